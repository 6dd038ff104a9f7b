/**
 * Access control that holds on every path (docs/security.md#authorization), through HTTP on a
 * platform whose broker is left as production has it (`strictCalls`):
 *  - an action's roles are checked where it runs: a workflow task, a schedule and an endpoint
 *    trigger run with their user's rights, and a refused task ends `error` with a 403 record naming
 *    the action and the roles it needs, while the orchestrator stand-in receives nothing;
 *  - a workflow with groups starts only for their members; the starter reads its job;
 *  - automations and triggers follow gbac (read, write) on every write, run and delete;
 *  - custom roles allow exactly the methods they name, and lose them within AUTH_CACHE_MS.
 */
import { randomUUID } from "node:crypto";
import { auto, chain, createWorkflow, manual, waitForJob } from "../support/engine-fixtures";
import {
  client,
  expectError,
  login,
  startPlatform,
  ROLE_HOLDER_PASSWORD,
  type Client,
  type Platform,
} from "../support/platform";
import { startOrchestrator, type TestOrchestrator } from "../support/orchestrator";

const AUTH_CACHE_MS = 400;
let platform: Platform;
let orch: TestOrchestrator;
let admin: Client;
/** The scheduler's clock (a test moves it, then runs one firing pass). */
let now = Date.parse("2030-01-01T00:00:00Z");

/** Requests the orchestrator stand-in saw beyond the adapter's health checks. */
const work = () => orch.seen.filter((s) => s.url !== "/" && s.url !== "/health");

interface User {
  api: Client;
  accountId: string;
  groupId: string;
  groupName: string;
}

async function user(assignedRoles: string[]): Promise<User> {
  const suffix = randomUUID().slice(0, 8);
  const group = await admin.post("/user-management/groups", { name: `g-${suffix}`, assignedRoles });
  expect(group.status).toBe(200);
  const username = `u-${suffix}`;
  const account = await admin.post("/user-management/accounts", {
    username,
    password: ROLE_HOLDER_PASSWORD,
    groups: [group.body.name],
  });
  expect(account.status).toBe(200);
  const api = client(platform.baseUrl, await login(platform.baseUrl, username, ROLE_HOLDER_PASSWORD));
  return { api, accountId: account.body._id, groupId: group.body._id, groupName: group.body.name };
}

const TASKS = {
  restAction: auto("adapters", "restAction", {
    adapterId: "nso",
    params: { path: "/restconf/data/change", accept: "application/yang-data+json", method: "patch" },
    body: { "tailf-ncs:devices": {} },
  }),
  restQuery: auto("adapters", "restQuery", {
    adapterId: "nso",
    params: { path: "/restconf/data/tailf-ncs:devices", accept: "application/yang-data+json" },
  }),
  deviceLookup: auto("devices", "find", { options: { filter: "pe" } }),
} as const;

const ROLES_NEEDED = {
  restAction: ["admin"],
  restQuery: ["admin"],
  deviceLookup: ["admin", "engineering", "support"],
} as const;

const jobId = (reply: { body: any }) => reply.body._id ?? reply.body.data?._id;

/** A job's refused task: `error`, with the 403 record naming the action and its roles. */
function expectRefusedTask(job: any, taskId: string, action: string, required: readonly string[]) {
  expect(job.status).toBe("error");
  expect(job.tasks[taskId].status).toBe("error");
  const record = job.error.find((e: any) => e.task === taskId);
  expect(record.message.code).toBe(403);
  expect(record.message.message.method).toBe(action);
  expect(record.message.message.error.message).toContain(action);
  expect(record.message.message.error.errors).toEqual([{ required: [...required], action }]);
}

beforeAll(async () => {
  orch = await startOrchestrator();
  platform = await startPlatform({
    strictCalls: true,
    env: { AUTH_CACHE_MS: String(AUTH_CACHE_MS), SCHEDULER_TICK_MS: "100000" },
  });
  const scheduler = platform.broker.getLocalService("scheduler") as unknown as { clock: () => number };
  scheduler.clock = () => now;
  admin = client(platform.baseUrl, await login(platform.baseUrl));
  const created = await admin.post("/adapters", {
    properties: {
      name: "nso",
      type: "Application",
      properties: { id: "nso", type: "NSO", properties: { host: "127.0.0.1", port: orch.port } },
    },
  });
  expect(created.status).toBe(200);
  for (const [name, task] of Object.entries(TASKS))
    await createWorkflow(admin, platform.broker, chain(`wf-${name}`, [["t1", task]]));
});

afterAll(async () => {
  await platform?.stop();
  await orch?.close();
});

describe("a workflow task runs with its job's rights", () => {
  for (const name of Object.keys(TASKS) as (keyof typeof TASKS)[]) {
    test(`an apiread user's ${name} task ends error (403) and reaches nothing; an admin's reaches the orchestrator`, async () => {
      const reader = await user(["apiread"]);
      const before = work().length;
      const started = await reader.api.post("/operations-manager/jobs/start", {
        workflow: `wf-${name}`,
        options: {},
      });
      expect(started.status).toBe(200);
      const job = await waitForJob(platform.broker, jobId(started));
      const action = `${TASKS[name].app}.${TASKS[name].name}`;
      expectRefusedTask(job, "t1", action, ROLES_NEEDED[name]);
      expect(work().length).toBe(before);

      const byAdmin = await admin.post("/operations-manager/jobs/start", {
        workflow: `wf-${name}`,
        options: {},
      });
      expect((await waitForJob(platform.broker, jobId(byAdmin))).status).toBe("complete");
      expect(work().length).toBeGreaterThan(before);
    });
  }

  test("the rights are the account's current ones: a role taken away reaches a job already running", async () => {
    const role = await admin.post("/authorization/roles", {
      role: {
        name: `may-change-${randomUUID().slice(0, 6)}`,
        allowedMethods: [{ name: "restAction", provenance: "adapters" }],
      },
    });
    expect(role.status).toBe(200);
    const holder = await user(["engineering", role.body.data.name]);
    await createWorkflow(
      admin,
      platform.broker,
      chain("wf-wait-then-change", [
        ["m1", manual("approve")],
        ["t1", TASKS.restAction],
      ]),
    );
    // While the role stands, its method is the holder's: the same task reaches the orchestrator.
    const allowed = await holder.api.post("/operations-manager/jobs/start", {
      workflow: "wf-restAction",
      options: {},
    });
    expect((await waitForJob(platform.broker, jobId(allowed))).status).toBe("complete");
    const started = await holder.api.post("/operations-manager/jobs/start", {
      workflow: "wf-wait-then-change",
      options: {},
    });
    expect(started.status).toBe(200);
    const id = jobId(started);
    await waitForJob(platform.broker, id, (job) => job.tasks.m1?.status === "waiting");
    expect((await admin.delete(`/authorization/roles/${role.body.data._id}`)).status).toBe(200);
    // The bound: within AUTH_CACHE_MS every node sees the account's rights as they are now.
    await new Promise((r) => setTimeout(r, AUTH_CACHE_MS + 100));
    const before = work().length;
    const finished = await admin.post("/workflow_engine/finishTask", {
      job_id: id,
      task_id: "m1",
      task_data: {},
    });
    expect(finished.status).toBe(200);
    const job = await waitForJob(platform.broker, id);
    expectRefusedTask(job, "t1", "adapters.restAction", ROLES_NEEDED.restAction);
    expect(work().length).toBe(before);
  });
});

describe("triggers and schedules run with their user's rights", () => {
  const HOUR = 3_600_000;
  const tick = () => platform.broker.call("scheduler.tick", {}, { meta: { platform: true } });
  const automation = async (id: string) =>
    (await admin.get(`/automation_catalog/automations/${id}`)).body as { lastJobId: string | null };

  test("a schedule runs as whoever last changed its automation: an engineer's edit makes its restAction task 403", async () => {
    const engineer = await user(["engineering"]);
    // Created by an admin, with no groups: open to every role the routes admit.
    const created = await admin.post("/automation_catalog/automations", {
      name: `sched-${randomUUID().slice(0, 6)}`,
      workflow: "wf-restAction",
      groups: [],
      nextRunAt: new Date(now + HOUR).toISOString(),
    });
    expect(created.status).toBe(200);
    const id = created.body._id;
    const edited = await engineer.api.patch(`/operations-manager/automations/${id}`, {
      description: "mine now",
    });
    expect(edited.status).toBe(200);
    expect(edited.body.data.lastUpdatedBy).toBe(engineer.accountId);

    const before = work().length;
    now += 2 * HOUR;
    expect(await tick()).toMatchObject({ started: 1 });
    const refused = await waitForJob(platform.broker, (await automation(id)).lastJobId!);
    expectRefusedTask(refused, "t1", "adapters.restAction", ROLES_NEEDED.restAction);
    expect(work().length).toBe(before);

    // The admin sets the next run: the schedule is the admin's again, and reaches the orchestrator.
    const rescheduled = await admin.put(`/automation_catalog/automations/${id}/schedule`, {
      options: { nextRunAt: new Date(now + HOUR).toISOString() },
    });
    expect(rescheduled.status).toBe(200);
    now += 2 * HOUR;
    expect(await tick()).toMatchObject({ started: 1 });
    expect((await waitForJob(platform.broker, (await automation(id)).lastJobId!)).status).toBe("complete");
    expect(work().length).toBeGreaterThan(before);
  });

  test("an endpoint trigger an admin made runs as the user who calls its route", async () => {
    const engineer = await user(["engineering"]);
    const created = await admin.post("/operations-manager/automations", {
      name: `ep-${randomUUID().slice(0, 6)}`,
      componentId: "wf-restAction",
      gbac: { read: [], write: [] },
    });
    expect(created.status).toBe(200);
    const route = `ep-${randomUUID().slice(0, 6)}`;
    const trigger = await admin.post("/operations-manager/triggers", {
      name: "by route",
      type: "endpoint",
      routeName: route,
      actionId: created.body.data._id,
    });
    expect(trigger.status).toBe(200);

    const before = work().length;
    const run = await engineer.api.post(`/operations-manager/triggers/endpoint/${route}`, {});
    expect(run.status).toBe(200);
    const refused = await waitForJob(platform.broker, run.body.data._id);
    expectRefusedTask(refused, "t1", "adapters.restAction", ROLES_NEEDED.restAction);
    expect(work().length).toBe(before);

    const byAdmin = await admin.post(`/operations-manager/triggers/endpoint/${route}`, {});
    expect((await waitForJob(platform.broker, byAdmin.body.data._id)).status).toBe("complete");
    expect(work().length).toBeGreaterThan(before);
  });
});
