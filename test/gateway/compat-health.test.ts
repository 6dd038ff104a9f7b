/**
 * The real product's health and applications reads: /health/status, /health/system,
 * /health/server, /health/applications[/:name] and /applications[/:name], for any signed-in caller,
 * in its `{results, total}` shape with `equals` / `equalsField`, `skip`, `limit`, `sort`; a service
 * no node runs is STOPPED and the platform `degraded`.
 */
import {
  client,
  expectError,
  login,
  request,
  startPlatform,
  type Client,
  type Platform,
} from "../support/platform";

let platform: Platform;
let partial: Platform;
let api: Client;

beforeAll(async () => {
  platform = await startPlatform();
  partial = await startPlatform({ services: ["store", "gateway", "accounts", "profiles"] });
  api = client(platform.baseUrl, await login(platform.baseUrl));
});
afterAll(async () => {
  await platform?.stop();
  await partial?.stop();
});

test("GET /health/status: the bus, the store and every service", async () => {
  const reply = await api.get("/health/status");
  expect(reply.status).toBe(200);
  expect(reply.body).toMatchObject({ status: "running", bus: "in-process", store: "ok" });
  expect(reply.body.services.accounts).toEqual({ state: "RUNNING", replicas: 1 });
  expect(Object.keys(reply.body.services)).toEqual(
    expect.arrayContaining(["engine", "scheduler", "configuration"]),
  );
  const degraded = await client(partial.baseUrl, await login(partial.baseUrl)).get("/health/status");
  expect(degraded.body.status).toBe("degraded");
  expect(degraded.body.services.engine).toEqual({ state: "STOPPED", replicas: 0 });
});

test("GET /health/system and /health/server: host and process figures, nothing secret", async () => {
  const system = await api.get("/health/system");
  expect(system.body).toMatchObject({
    cpus: expect.any(Number),
    totalmem: expect.any(Number),
    uptime: expect.any(Number),
  });
  const server = await api.get("/health/server");
  expect(server.body).toMatchObject({
    version: expect.any(String),
    node: process.version,
    uptime: expect.any(Number),
  });
  const text = system.text + server.text;
  expect(text).not.toMatch(/admin-test-password|ADMIN_PASSWORD|ENCRYPTION_KEY/);
});

test("GET /health/applications: one entry per service, with the real product's query", async () => {
  const all = await api.get("/health/applications");
  expect(all.status).toBe(200);
  const engine = all.body.results.find((a: any) => a.id === "engine");
  expect(engine).toMatchObject({ package_id: "automation-platform/engine", state: "RUNNING", replicas: 1 });
  expect(all.body.total).toBe(all.body.results.length);
  const one = await api.get("/health/applications?equals=scheduler&equalsField=id");
  expect(one.body).toMatchObject({ total: 1, results: [{ id: "scheduler" }] });
  const page = await api.get("/health/applications?sort=id&order=-1&skip=1&limit=2");
  expect(page.body.results).toHaveLength(2);
  expect(page.body.results[0].id > page.body.results[1].id).toBe(true);
  const stopped = await client(partial.baseUrl, await login(partial.baseUrl)).get(
    "/health/applications?equals=STOPPED&equalsField=state",
  );
  expect(stopped.body.results.map((a: any) => a.id)).toEqual(expect.arrayContaining(["engine", "scheduler"]));
  expect(stopped.body.results.map((a: any) => a.id)).not.toContain("accounts");
  expect((await api.get("/health/applications/accounts")).body).toMatchObject({
    total: 1,
    results: [{ id: "accounts" }],
  });
  expectError(await api.get("/health/applications/nope"), 404, "NOT_FOUND");
  expectError(await api.get("/health/applications?equalsField=secret"), 400, "VALIDATION_ERROR");
});

test("GET /applications[/:name]; every health read needs a signed-in caller", async () => {
  expect((await api.get("/applications")).body.results.map((a: any) => a.id)).toContain("adapters");
  expect((await api.get("/applications/devices")).body).toMatchObject({ id: "devices", state: "RUNNING" });
  expectError(await api.get("/applications/nope"), 404, "NOT_FOUND");
  for (const path of ["/health/status", "/health/applications", "/applications", "/health/system"])
    expectError(await request(platform.baseUrl, "GET", path), 401, "UNAUTHORIZED");
});
