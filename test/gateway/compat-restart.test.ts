/**
 * PUT /applications/:name/restart (issue: client compatibility; docs/operations-guide.md#restarting-a-service):
 * the service reloads on its node; calls in flight finish; calls that arrive meanwhile wait for it.
 */
import { RESTART_EVENTS } from "../../shared/restart-window";
import { chain, createWorkflow, auto, taskService, waitForJob } from "../support/engine-fixtures";
import { client, expectError, request, usePlatform, ADMIN_PASSWORD } from "../support/platform";

const env = usePlatform();
const svc = taskService();

beforeAll(async () => {
  env.platform.broker.createService(svc.schema);
  await env.platform.broker.waitForServices(["enginetest"], 15_000);
});

const signIn = () =>
  request(env.platform.baseUrl, "POST", "/login", {
    body: { user: { username: "admin", password: ADMIN_PASSWORD } },
  });

test("restarting accounts: sign-ins in flight and arriving meanwhile all succeed; sessions survive", async () => {
  const before = env.platform.broker.getLocalService("accounts");
  // Each sign-in spends tens of milliseconds in scrypt: several are in flight when the restart begins.
  const inFlight = Array.from({ length: 6 }, () => signIn());
  await new Promise((r) => setTimeout(r, 15));
  const restart = env.admin.put("/applications/accounts/restart");
  const meanwhile = Array.from({ length: 6 }, (_, i) =>
    new Promise((r) => setTimeout(r, 5 * i)).then(() => env.admin.get("/whoami")),
  );
  const reply = await restart;
  expect(reply.status).toBe(200);
  expect(reply.body).toEqual({
    status: "OK",
    message: "Application 'accounts' restarted on 1 node(s)",
    data: { id: "accounts", nodes: [env.platform.broker.nodeID] },
  });
  for (const r of await Promise.all(inFlight)) expect(r.status).toBe(200);
  for (const r of await Promise.all(meanwhile)) expect(r.status).toBe(200);
  expect(env.platform.broker.getLocalService("accounts")).not.toBe(before);
  expect((await env.admin.get("/applications/accounts")).body).toEqual(
    expect.objectContaining({ state: "RUNNING", replicas: 1 }),
  );
  expect((await env.admin.get("/whoami")).status).toBe(200);
});

test("restarting the engine mid-job: the job completes", async () => {
  await createWorkflow(
    env.admin,
    env.platform.broker,
    chain("restart-flow", [["wait", auto("enginetest", "slow", { ms: 300 })]]),
  );
  const started = await env.admin.post("/operations-manager/jobs/start", {
    workflow: "restart-flow",
    options: {},
  });
  expect(started.status).toBe(200);
  expect((await env.admin.put("/applications/engine/restart")).status).toBe(200);
  const done = await waitForJob(env.platform.broker, started.body._id, (job) => job.status === "complete");
  expect(done.tasks.wait.status).toBe("complete");
});

test("the gateway and the store restart with their process; unknown -> 404; admin only", async () => {
  expectError(await env.admin.put("/applications/gateway/restart"), 409, "CONFLICT");
  expectError(await env.admin.put("/applications/nope/restart"), 404, "NOT_FOUND");
  expectError(await env.admin.put("/applications/bad name/restart"), 400, "VALIDATION_ERROR");
  expectError(await client(env.platform.baseUrl).put("/applications/forms/restart"), 401, "UNAUTHORIZED");
});

test("a call to a service whose restart was announced waits for it; any other missing service fails at once", async () => {
  const broker = env.platform.broker;
  await broker.broadcast(RESTART_EVENTS.restarting, { name: "enginetest" });
  await broker.destroyService("enginetest");
  const started = Date.now();
  const pending = broker.call("enginetest.noop", {});
  setTimeout(() => broker.createService(svc.schema), 200);
  await expect(pending).resolves.toEqual({});
  expect(Date.now() - started).toBeGreaterThanOrEqual(150);
  await broker.broadcast(RESTART_EVENTS.restarted, { name: "enginetest" });

  const refused = Date.now();
  await expect(broker.call("nosuch.action", {})).rejects.toThrow(/nosuch/);
  expect(Date.now() - refused).toBeLessThan(1000);
});
