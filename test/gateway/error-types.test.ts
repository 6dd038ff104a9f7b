/**
 * Every error `type` and `name` the API can answer is listed in docs/platform-rules.md#errors, and
 * the list says nothing the API does not answer. Three sources, compared both ways: the catalogue
 * (`ERROR_CATALOGUE` in shared/errors.ts, which the gateway holds every answer to), the doc's table,
 * and every (status, type) the code builds (error classes, `body(...)` calls, the framework
 * mappings), read from the sources. Over HTTP: answers carry the catalogue's name (never a
 * framework class name) and a `data` member, and a member not allowed is named by its path.
 */
import fs from "node:fs";
import path from "node:path";
import { ERROR_CATALOGUE, ERROR_TYPES } from "../../shared/errors";
import { client, expectError, login, startPlatform, type Platform } from "../support/platform";

const ROOT = path.resolve(__dirname, "../..");
const pair = (status: number | string, type: string) => `${status} ${type}`;

function catalogue(): Set<string> {
  return new Set(Object.entries(ERROR_TYPES).flatMap(([status, types]) => types.map((t) => pair(status, t))));
}

/** The rows of the table under `## Errors` in docs/platform-rules.md: status, type, name. */
function documentedRows(): string[][] {
  const doc = fs.readFileSync(path.join(ROOT, "docs/platform-rules.md"), "utf8");
  const section = doc.slice(doc.indexOf("## Errors"), doc.indexOf("\n## ", doc.indexOf("## Errors") + 1));
  return [...section.matchAll(/^\|\s*(\d{3})\s*\|\s*`([A-Z][A-Z0-9_]+)`\s*\|\s*`([A-Za-z]+)`\s*\|/gm)].map(
    (row) => [row[1], row[2], row[3]],
  );
}

/** The (status, type) pairs of the doc's table. */
function documented(): Set<string> {
  return new Set(documentedRows().map(([status, type]) => pair(status, type)));
}

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(file);
    return entry.name.endsWith(".ts") ? [file] : [];
  });
}

/**
 * What the code builds: `<status>, "<TYPE>"` (an error's constructor, `body(...)`) and
 * `status: <status>, type: "<TYPE>"` (a mapping table), in every layer; the catalogue itself aside.
 */
function built(): { pairs: Map<string, string[]>; bare: Map<string, string[]> } {
  const pairs = new Map<string, string[]>();
  const bare = new Map<string, string[]>();
  const note = (map: Map<string, string[]>, key: string, file: string) =>
    map.set(key, [...(map.get(key) ?? []), path.relative(ROOT, file)]);
  for (const layer of ["app", "gateway", "services", "shared"])
    for (const file of sources(path.join(ROOT, layer))) {
      let text = fs.readFileSync(file, "utf8");
      if (file.endsWith(path.join("shared", "errors.ts")))
        text = text.replace(/export const ERROR_CATALOGUE[\s\S]*?\n\];/, "");
      for (const m of text.matchAll(/\b([1-5]\d\d),\s*"([A-Z][A-Z0-9_]+)"/g))
        note(pairs, pair(m[1], m[2]), file);
      for (const m of text.matchAll(/status:\s*([1-5]\d\d),\s*type:\s*"([A-Z][A-Z0-9_]+)"/g))
        note(pairs, pair(m[1], m[2]), file);
      // An error class naming its type apart from its status (`this.type = "..."`).
      for (const m of text.matchAll(/this\.type\s*=\s*"([A-Z][A-Z0-9_]+)"/g)) note(bare, m[1], file);
    }
  return { pairs, bare };
}

test("the doc's table lists exactly the catalogue", () => {
  expect([...documented()].sort()).toEqual([...catalogue()].sort());
});

test("the doc's table names each (status, type) as the catalogue does, one name per type", () => {
  expect(documentedRows().map((row) => row.join(" "))).toEqual(
    ERROR_CATALOGUE.map(({ status, type, name }) => `${status} ${type} ${name}`),
  );
  const names = ERROR_CATALOGUE.map((e) => e.name);
  expect(new Set(names).size).toBe(names.length);
  for (const framework of ["MoleculerError", "MoleculerClientError", "ValidationError", "UnAuthorizedError"])
    expect(names).not.toContain(framework);
});

test("every (status, type) the code builds is in the catalogue, and every catalogued one is built", () => {
  const { pairs, bare } = built();
  const listed = catalogue();
  const unlisted = [...pairs]
    .filter(([p]) => !listed.has(p))
    .map(([p, files]) => `${p} (${files.join(", ")})`);
  expect(unlisted).toEqual([]);
  const types = new Set([...listed].map((p) => p.split(" ")[1]));
  expect([...bare.keys()].filter((t) => !types.has(t))).toEqual([]);
  expect([...listed].filter((p) => !pairs.has(p))).toEqual([]);
});

describe("over HTTP", () => {
  let platform: Platform;
  let admin: ReturnType<typeof client>;
  beforeAll(async () => {
    platform = await startPlatform();
    admin = client(platform.baseUrl, await login(platform.baseUrl));
  });
  afterAll(() => platform.stop());

  test("bad percent-encoding in a path parameter is a 400 VALIDATION_ERROR naming the path", async () => {
    const body = expectError(await client(platform.baseUrl).get("/adapters/%zz"), 400, "VALIDATION_ERROR");
    expect(body.data).toEqual([expect.objectContaining({ field: "path", type: "encoding" })]);
    expect(JSON.stringify(body)).not.toContain("%zz");
  });

  test("a top-level member the spec forbids is named by its path, not as the object ''", async () => {
    const reply = await admin.post("/orchestrator_manager/restQuery/nso", {
      params: { path: "/restconf/data", accept: "application/yang-data+json" },
      body: { x: 1 },
    });
    const body = expectError(reply, 400, "VALIDATION_ERROR");
    expect(body.name).toBe("BadRequestError");
    expect(body.data).toEqual([
      {
        field: "body",
        type: "objectStrict",
        message: "The property 'body' is not allowed (allowed here: adapterId, params).",
      },
    ]);
    expect(body.message).not.toContain("''");
  });

  test("a nested one names its full path, each key once", async () => {
    const reply = await admin.post("/orchestrator_manager/restQuery/nso", {
      params: { path: "/restconf/data", accept: "application/yang-data+json", foo: 1, bar: 2 },
    });
    const body = expectError(reply, 400, "VALIDATION_ERROR");
    expect(body.data.map((e: { field: string }) => e.field).sort()).toEqual(["params.bar", "params.foo"]);
    for (const entry of body.data) expect(entry.message).toContain(`'${entry.field}' is not allowed`);
  });

  test("a schema failure is a BadRequestError, not Moleculer's ValidationError", async () => {
    const body = expectError(
      await admin.post("/user-management/groups", { name: 42 }),
      400,
      "VALIDATION_ERROR",
    );
    expect(body.name).toBe("BadRequestError");
  });

  test("401 carries data", async () => {
    const body = expectError(await client(platform.baseUrl).get("/whoami"), 401, "UNAUTHORIZED");
    expect(body).toEqual(expect.objectContaining({ name: "UnauthorizedError", data: {} }));
    const bad = expectError(
      await client(platform.baseUrl, "not-a-token").get("/whoami"),
      401,
      "UNAUTHORIZED",
    );
    expect(bad).toEqual(expect.objectContaining({ name: "UnauthorizedError", data: {} }));
  });

  test("403 carries data.required", async () => {
    await admin.post("/user-management/groups", { name: "readers-403", assignedRoles: ["apiread"] });
    await admin.post("/user-management/accounts", {
      username: "reader403",
      password: "reader-403-password",
      groups: ["readers-403"],
    });
    const reader = client(
      platform.baseUrl,
      await login(platform.baseUrl, "reader403", "reader-403-password"),
    );
    const body = expectError(await reader.post("/user-management/groups", { name: "x" }), 403, "FORBIDDEN");
    expect(body.name).toBe("ForbiddenError");
    expect(body.data.required).toEqual(expect.arrayContaining(["admin"]));
  });

  test("409 carries data, and the catalogue's name", async () => {
    expect((await admin.post("/user-management/groups", { name: "dup-409" })).status).toBe(200);
    const body = expectError(
      await admin.post("/user-management/groups", { name: "dup-409" }),
      409,
      "CONFLICT",
    );
    expect(body.name).toBe("ConflictError");
    expect(body.data).toEqual(expect.any(Object));
  });

  test("no answer names a framework class", async () => {
    const replies = [
      await admin.get("/no/such/path"),
      await admin.post("/orchestrator_manager/restQuery/nso", { nope: true }),
      await admin.post("/user-management/groups", { name: "dup-409" }),
      await client(platform.baseUrl).get("/whoami"),
    ];
    const names = new Set(ERROR_CATALOGUE.map((e) => e.name));
    for (const reply of replies) {
      expect(names.has(reply.body.name)).toBe(true);
      expect(reply.body.name).not.toMatch(/^Moleculer|^ValidationError$/);
    }
  });
});
