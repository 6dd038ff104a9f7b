/**
 * Every error `type` the API can answer is listed in docs/platform-rules.md#errors, and the list
 * says nothing the API does not answer. Three sources, compared both ways: the catalogue
 * (`ERROR_TYPES` in shared/errors.ts, which the gateway holds every answer to), the doc's table, and
 * every (status, type) the code builds (error classes, `body(...)` calls, the framework mappings),
 * read from the sources. The last two answers the issue found undocumented are checked over HTTP.
 */
import fs from "node:fs";
import path from "node:path";
import { ERROR_TYPES } from "../../shared/errors";
import { client, expectError, startPlatform, type Platform } from "../support/platform";

const ROOT = path.resolve(__dirname, "../..");
const pair = (status: number | string, type: string) => `${status} ${type}`;

function catalogue(): Set<string> {
  return new Set(Object.entries(ERROR_TYPES).flatMap(([status, types]) => types.map((t) => pair(status, t))));
}

/** The (status, type) pairs of the table under `## Errors` in docs/platform-rules.md. */
function documented(): Set<string> {
  const doc = fs.readFileSync(path.join(ROOT, "docs/platform-rules.md"), "utf8");
  const section = doc.slice(doc.indexOf("## Errors"), doc.indexOf("\n## ", doc.indexOf("## Errors") + 1));
  const pairs = new Set<string>();
  for (const row of section.matchAll(/^\|\s*(\d{3})\s*\|([^|]*)\|/gm))
    for (const type of row[2].matchAll(/`([A-Z][A-Z0-9_]+)`/g)) pairs.add(pair(row[1], type[1]));
  return pairs;
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
        text = text.replace(/export const ERROR_TYPES[\s\S]*?\n};/, "");
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
  beforeAll(async () => {
    platform = await startPlatform();
  });
  afterAll(() => platform.stop());

  test("bad percent-encoding in a path parameter is a 400 VALIDATION_ERROR naming the path", async () => {
    const body = expectError(await client(platform.baseUrl).get("/adapters/%zz"), 400, "VALIDATION_ERROR");
    expect(body.data).toEqual([expect.objectContaining({ field: "path", type: "encoding" })]);
    expect(JSON.stringify(body)).not.toContain("%zz");
  });
});
