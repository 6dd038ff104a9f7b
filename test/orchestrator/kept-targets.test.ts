/**
 * Each replica keeps the orchestrator targets it read (services/adapters/orchestrator/target-cache.ts)
 * so a proxy call does not read the store: over HTTP, every change is still obeyed by the very next
 * call after the change answered (stop, start, restart, update, delete and re-create), paths resolve
 * under the adapter's current base, and a change written where no event announces it (as a replica
 * cut off from the bus would miss it) is obeyed within TARGET_TTL_MS. Across replicas over NATS:
 * test/nats/adapters-over-nats.test.ts.
 */
import { expectError, usePlatform } from "../support/platform";
import { withStore } from "../support/catalog";
import { startOrchestrator, type TestOrchestrator } from "../support/orchestrator";
import { TARGET_TTL_MS } from "../../services/adapters/orchestrator/target-cache";

const env = usePlatform({ env: { ADAPTER_HEALTH_TICK_MS: "60000" } });
let first: TestOrchestrator;
let second: TestOrchestrator;

const body = (name: string, settings: Record<string, unknown>) => ({
  properties: { name, type: "Application", properties: { id: name, type: "NSO", properties: settings } },
});
const settings = (orch: TestOrchestrator, extra: Record<string, unknown> = {}) => ({
  host: "127.0.0.1",
  port: orch.port,
  timeout: 2000,
  healthCheckInterval: 3_600_000,
  ...extra,
});

/** restQuery through `name`: its reply and the URL each orchestrator saw for it. */
async function query(name: string, path = "/restconf/data/tailf-ncs:devices") {
  const counts = [first.seen.length, second.seen.length];
  const reply = await env.admin.post(`/orchestrator_manager/restQuery/${name}`, {
    params: { path, accept: "application/yang-data+json" },
  });
  return {
    reply,
    first: first.seen.slice(counts[0]).map((r) => r.url),
    second: second.seen.slice(counts[1]).map((r) => r.url),
  };
}

beforeAll(async () => {
  first = await startOrchestrator();
  second = await startOrchestrator();
});

afterAll(async () => {
  await first?.close();
  await second?.close();
});

test("stop, start and restart are obeyed by the next call, a kept target or not", async () => {
  expect((await env.admin.post("/adapters", body("kept-life", settings(first)))).status).toBe(200);
  for (let i = 0; i < 3; i++) expect((await query("kept-life")).reply.status).toBe(200);
  expect((await env.admin.put("/adapters/kept-life/stop")).status).toBe(200);
  const stopped = await query("kept-life");
  expectError(stopped.reply, 503, "ADAPTER_STOPPED");
  expect(stopped.first).toEqual([]);
  expect((await env.admin.put("/adapters/kept-life/start")).status).toBe(200);
  expect((await query("kept-life")).reply.status).toBe(200);
  const connections = first.connections;
  expect((await env.admin.put("/adapters/kept-life/restart")).status).toBe(200);
  expect((await query("kept-life")).reply.status).toBe(200);
  // The restart's new generation reached the kept target: the old pool was replaced.
  expect(first.connections).toBeGreaterThan(connections);
});

test("an update is obeyed by the next call: new target, new credentials, new base path", async () => {
  const name = "kept-update";
  expect((await env.admin.post("/adapters", body(name, settings(first, { token: "t-one" })))).status).toBe(
    200,
  );
  expect((await query(name)).first).toEqual(["/restconf/data/tailf-ncs:devices"]);
  expect(first.seen.at(-1)!.headers.authorization).toBe("Bearer t-one");
  const update = body(name, settings(second, { token: "t-two", base_path: "/restconf" }));
  expect((await env.admin.put(`/adapters/${name}/properties`, update)).status).toBe(200);
  // The same path as before the update, now under the new base path, on the new orchestrator.
  const moved = await query(name, "/data/tailf-ncs:devices");
  expect(moved.reply.status).toBe(200);
  expect(moved).toMatchObject({ first: [], second: ["/restconf/data/tailf-ncs:devices"] });
  expect(second.seen.at(-1)!.headers.authorization).toBe("Bearer t-two");
});

test("a path refused is refused on every call, and does not stop good paths", async () => {
  expect((await env.admin.post("/adapters", body("kept-paths", settings(first)))).status).toBe(200);
  for (let i = 0; i < 2; i++) {
    const refused = await query("kept-paths", "/restconf/../../etc");
    expectError(refused.reply, 400, "VALIDATION_ERROR");
    expect(refused.first).toEqual([]);
    expect((await query("kept-paths")).reply.status).toBe(200);
  }
});

test("a delete is obeyed by the next call; the adapter re-created answers from its new target", async () => {
  expect((await env.admin.post("/adapters", body("kept-gone", settings(first)))).status).toBe(200);
  expect((await query("kept-gone")).reply.status).toBe(200);
  expect((await env.admin.delete("/adapters/kept-gone")).status).toBe(200);
  expectError((await query("kept-gone")).reply, 404, "NOT_FOUND");
  expect((await env.admin.post("/adapters", body("kept-gone", settings(second)))).status).toBe(200);
  expect(await query("kept-gone")).toMatchObject({ first: [], second: ["/restconf/data/tailf-ncs:devices"] });
});

test("a change no event announced is obeyed within TARGET_TTL_MS", async () => {
  expect((await env.admin.post("/adapters", body("kept-ttl", settings(first)))).status).toBe(200);
  expect((await query("kept-ttl")).reply.status).toBe(200);
  // Written to the store directly: no replica is told, as when one missed the change's event.
  await withStore(env.platform, (store) =>
    store.collection("adapters").updateOne({ name: "kept-ttl" }, { $set: { state: "STOPPED" } }),
  );
  const written = Date.now();
  let status = (await query("kept-ttl")).reply.status;
  while (status !== 503 && Date.now() - written < TARGET_TTL_MS + 1000) {
    await new Promise((r) => setTimeout(r, 50));
    status = (await query("kept-ttl")).reply.status;
  }
  expect(status).toBe(503);
  expect(Date.now() - written).toBeLessThan(TARGET_TTL_MS + 1000);
});
