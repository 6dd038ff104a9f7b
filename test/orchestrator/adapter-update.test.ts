/**
 * Updating an adapter over HTTP (docs/orchestrator.md#updating-an-adapter): the real product's
 * `PUT /adapters/:name/properties` with `{properties}` (and `PUT /adapters/:name`), re-validated
 * as a create is; credentials kept when left out or resent as read, replaced when sent, removed
 * with null; the running adapter's connections and health follow the new settings at once; roles
 * as create; 404; `_meta.updated`/`updatedBy`.
 */
import { clientWithRoles, expectError, usePlatform } from "../support/platform";
import { startOrchestrator, type TestOrchestrator } from "../support/orchestrator";

const env = usePlatform({ env: { ADAPTER_HEALTH_TICK_MS: "50" } });
let first: TestOrchestrator;
let second: TestOrchestrator;

const body = (name: string, settings: Record<string, unknown>, type = "NSO") => ({
  properties: { name, type: "Application", properties: { id: name, type, properties: settings } },
});
const basic = (user: string, password: string) =>
  "Basic " + Buffer.from(`${user}:${password}`).toString("base64");

/** A restQuery through the adapter; answers which orchestrator saw it and the authorization it got. */
async function query(name: string): Promise<{ status: number; via?: "first" | "second"; auth?: unknown }> {
  const counts = [first.seen.length, second.seen.length];
  const reply = await env.admin.post(`/orchestrator_manager/restQuery/${name}`, {
    params: { path: "/restconf/data/tailf-ncs:devices", accept: "application/yang-data+json" },
  });
  const [a, b] = [first.seen.slice(counts[0]), second.seen.slice(counts[1])];
  const hit = a.find((r) => r.url.startsWith("/restconf")) ?? b.find((r) => r.url.startsWith("/restconf"));
  const via = a.includes(hit!) ? "first" : b.includes(hit!) ? "second" : undefined;
  return { status: reply.status, via, auth: hit?.headers.authorization };
}

const health = async (name: string) => (await env.admin.get(`/health/adapters/${name}`)).body.results[0];

async function waitFor<T>(read: () => Promise<T>, ok: (value: T) => boolean, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  let last = await read();
  while (!ok(last) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    last = await read();
  }
  if (!ok(last)) throw new Error(`condition not met in ${ms} ms: ${JSON.stringify(last)}`);
  return last;
}

beforeAll(async () => {
  first = await startOrchestrator();
  second = await startOrchestrator();
  const settings = {
    host: "127.0.0.1",
    port: first.port,
    username: "nso",
    password: "first-secret-1",
    healthCheckInterval: 200,
    timeout: 1000,
  };
  expect((await env.admin.post("/adapters", body("nso-lab", settings))).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await first?.close();
  await second?.close();
});

test("PUT /adapters/:name/properties moves the running adapter: new target at once, password kept when left out", async () => {
  expect(await query("nso-lab")).toEqual({ status: 200, via: "first", auth: basic("nso", "first-secret-1") });
  await waitFor(
    () => health("nso-lab"),
    (h) => h.connection.state === "ONLINE",
  );
  const before = (await env.admin.get("/adapters/nso-lab")).body;

  const reply = await env.admin.put(
    "/adapters/nso-lab/properties",
    body("nso-lab", {
      host: "127.0.0.1",
      port: second.port,
      username: "nso",
      healthCheckInterval: 200,
      timeout: 1000,
    }),
  );
  expect(reply.status).toBe(200);
  expect(reply.body).toMatchObject({ status: "OK", message: "Adapter 'nso-lab' updated" });
  const data = reply.body.data;
  expect(before._meta.createdBy).toMatch(/^[0-9a-f]{24}$/);
  expect(data.properties.properties.port).toBe(second.port);
  // The password was not resent: its stored (sealed) value stays, never answered in plaintext.
  expect(data.properties.properties.password).toBe(before.properties.properties.password);
  expect(data.properties.properties.password).toMatch(/^enc:v1:/);
  expect(reply.text).not.toContain("first-secret-1");
  expect(data.isEncrypted).toBe(true);
  expect(data._id).toBe(before._id);
  expect(data._meta).toMatchObject({
    created: before._meta.created,
    createdBy: before._meta.createdBy,
    // the admin's account _id, as createdBy is
    updatedBy: before._meta.createdBy,
  });
  expect(Date.parse(data._meta.updated)).toBeGreaterThanOrEqual(Date.parse(before._meta.updated));

  // The very next call goes to the new orchestrator, with the kept password.
  expect(await query("nso-lab")).toEqual({
    status: 200,
    via: "second",
    auth: basic("nso", "first-secret-1"),
  });
  // Health is about the new settings: cleared by the update, then checked against the new target.
  const checked = await waitFor(
    () => health("nso-lab"),
    (h) =>
      h.connection.state === "ONLINE" && Date.parse(h.connection.lastCheck) >= Date.parse(data._meta.updated),
  );
  expect(checked.state).toBe("RUNNING");
});

test("a read's sealed password resent as it was keeps it; a new one replaces it; null removes it", async () => {
  const read = (await env.admin.get("/adapters/nso-lab")).body;
  // The adapter resent whole, as read: its answer-only members (_id, state, connection, profiling,
  // virtual, isEncrypted, _meta...) are ignored.
  const resent = await env.admin.put("/adapters/nso-lab/properties", {
    properties: {
      ...read,
      properties: { ...read.properties, properties: { ...read.properties.properties, timeout: 2000 } },
    },
  });
  expect(resent.status).toBe(200);
  expect(resent.body.data).toMatchObject({ virtual: false, isEncrypted: true });
  expect(resent.body.data.properties.properties.password).toBe(read.properties.properties.password);
  expect(await query("nso-lab")).toMatchObject({ status: 200, auth: basic("nso", "first-secret-1") });

  const changed = await env.admin.put("/adapters/nso-lab/properties", {
    properties: {
      ...body("nso-lab", {}).properties,
      properties: {
        id: "nso-lab",
        type: "NSO",
        properties: { ...read.properties.properties, password: "second-secret-2" },
      },
    },
  });
  expect(changed.status).toBe(200);
  expect(changed.text).not.toContain("second-secret-2");
  expect(changed.body.data.properties.properties.password).toMatch(/^enc:v1:/);
  expect(await query("nso-lab")).toMatchObject({ status: 200, auth: basic("nso", "second-secret-2") });

  // Another adapter's sealed text is not a way to borrow its secret: it is taken as plaintext.
  await env.admin.post(
    "/adapters",
    body("other", { host: "127.0.0.1", port: second.port, username: "x", password: "other-pw" }),
  );
  const borrowed = (await env.admin.get("/adapters/other")).body.properties.properties.password;
  await env.admin.put(
    "/adapters/nso-lab",
    body("nso-lab", { host: "127.0.0.1", port: second.port, username: "nso", password: borrowed }),
  );
  expect((await query("nso-lab")).auth).toBe(basic("nso", borrowed));

  const removed = await env.admin.put(
    "/adapters/nso-lab/properties",
    body("nso-lab", { host: "127.0.0.1", port: second.port, username: "nso", password: null }),
  );
  expect(removed.status).toBe(200);
  expect(removed.body.data.properties.properties).not.toHaveProperty("password");
  expect(removed.body.data.isEncrypted).toBe(false);
  expect((await query("nso-lab")).auth).toBeUndefined();
});

test("a bad target shows in health at once; the alias PUT /adapters/:name takes the same body", async () => {
  const closed = await env.admin.put(
    "/adapters/nso-lab",
    body("nso-lab", {
      host: "127.0.0.1",
      port: 1,
      username: "nso",
      password: "pw-3",
      healthCheckInterval: 200,
      timeout: 500,
    }),
  );
  expect(closed.status).toBe(200);
  const down = await waitFor(
    () => health("nso-lab"),
    (h) => h.connection.state === "OFFLINE",
  );
  expect(down.connection.lastError).toBeTruthy();
  expect((await query("nso-lab")).status).toBe(502);

  await env.admin.put(
    "/adapters/nso-lab",
    body("nso-lab", {
      host: "127.0.0.1",
      port: second.port,
      username: "nso",
      password: "pw-3",
      healthCheckInterval: 200,
    }),
  );
  await waitFor(
    () => health("nso-lab"),
    (h) => h.connection.state === "ONLINE",
  );
  expect(await query("nso-lab")).toMatchObject({ status: 200, via: "second", auth: basic("nso", "pw-3") });
});

test("a stopped adapter stays stopped; description and tags stay unless sent", async () => {
  await env.admin.put("/adapters/other/properties", {
    ...body("other", { host: "127.0.0.1", port: second.port }),
    description: "lab box",
  });
  expect((await env.admin.put("/adapters/other/stop")).status).toBe(200);
  const reply = await env.admin.put(
    "/adapters/other/properties",
    body("other", { host: "127.0.0.1", port: first.port }),
  );
  expect(reply.status).toBe(200);
  const read = (await env.admin.get("/adapters/other")).body;
  expect(read.state).toBe("STOPPED");
  expect(read.description).toBe("lab box");
  expectError(
    await env.admin.post("/orchestrator_manager/restQuery/other", {
      params: { path: "/restconf/data/x", accept: "application/yang-data+json" },
    }),
    503,
    "ADAPTER_STOPPED",
  );
});

/** The stored adapter as a read answers it, without its health (which the timer keeps refreshing). */
const stored = async (name: string) => {
  const { connection: _health, ...adapter } = (await env.admin.get(`/adapters/${name}`)).body;
  return adapter;
};

test("validated as a create is: 400 naming the field, nothing changed; no rename; 404; roles as create", async () => {
  const before = await stored("nso-lab");
  const cases: [unknown, string][] = [
    [{ properties: { name: "nso-lab", properties: { id: "nso-lab", type: "NSO" } } }, "properties.type"],
    [
      {
        properties: { name: "nso-lab", type: "x", properties: { id: "x", type: "NSO" } },
      },
      "properties.properties.id",
    ],
    [body("renamed", {}), "properties.name"],
    [
      body("nso-lab", { headers: { "X-Api-Key": "bad\r\nvalue" } }),
      "properties.properties.properties.headers.X-Api-Key",
    ],
    [{}, "properties"],
  ];
  for (const [sent, field] of cases) {
    const reply = expectError(
      await env.admin.put("/adapters/nso-lab/properties", sent),
      400,
      "VALIDATION_ERROR",
    );
    expect(reply.data.map((d: any) => d.field)).toContain(field);
  }
  expect(await stored("nso-lab")).toEqual(before);

  expectError(await env.admin.put("/adapters/nope/properties", body("nope", {})), 404, "NOT_FOUND");
  for (const roles of [["engineering"], ["apiwrite"], ["apiread"]]) {
    const other = await clientWithRoles(env.platform, env.admin, roles);
    const refused = expectError(
      await other.put("/adapters/nso-lab/properties", body("nso-lab", {})),
      403,
      "FORBIDDEN",
    );
    expect(refused.data.required).toEqual(["admin"]);
  }
  expect(await stored("nso-lab")).toEqual(before);
});

test("concurrent updates: each is whole (compare-and-set), none loses the kept password", async () => {
  await env.admin.put(
    "/adapters/nso-lab/properties",
    body("nso-lab", { host: "127.0.0.1", port: second.port, username: "nso", password: "race-pw" }),
  );
  const replies = await Promise.all(
    [1000, 1100, 1200, 1300, 1400, 1500].map((timeout) =>
      env.admin.put(
        "/adapters/nso-lab/properties",
        body("nso-lab", { host: "127.0.0.1", port: second.port, username: "nso", timeout }),
      ),
    ),
  );
  for (const reply of replies) expect([200, 409]).toContain(reply.status);
  expect(replies.some((r) => r.status === 200)).toBe(true);
  for (const reply of replies.filter((r) => r.status === 409)) expectError(reply, 409, "CONFLICT");
  const last = await stored("nso-lab");
  expect([1000, 1100, 1200, 1300, 1400, 1500]).toContain(last.properties.properties.timeout);
  expect(await query("nso-lab")).toMatchObject({ status: 200, auth: basic("nso", "race-pw") });
});
