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
import { auto, chain, createWorkflow, manual, op, waitForJob } from "../support/engine-fixtures";
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

describe("group-based access to automations and triggers (gbac)", () => {
  let writer: User;
  let reader: User;
  let outsider: User;
  let id: string;
  let manualId: string;
  let endpointId: string;
  const route = `owned-${randomUUID().slice(0, 6)}`;

  /** What an admin reads of the automation and its triggers: must not change under refused calls. */
  const snapshot = async () => ({
    automation: (await admin.get(`/operations-manager/automations/${id}`)).body,
    triggers: (await admin.get(`/operations-manager/triggers?actionId=${id}`)).body.data,
  });

  beforeAll(async () => {
    [writer, reader, outsider] = await Promise.all([
      user(["engineering"]),
      user(["engineering"]),
      user(["engineering"]),
    ]);
    const created = await admin.post("/operations-manager/automations", {
      name: `gbac-${randomUUID().slice(0, 6)}`,
      componentId: "wf-restQuery",
      gbac: { write: [writer.groupId], read: [reader.groupId] },
    });
    expect(created.status).toBe(200);
    id = created.body.data._id;
    expect(created.body.data.gbac).toEqual({ write: [writer.groupId], read: [reader.groupId] });
    const trigger = (body: Record<string, unknown>) =>
      admin.post("/operations-manager/triggers", { actionId: id, ...body });
    manualId = (await trigger({ name: "by hand", type: "manual" })).body.data._id;
    endpointId = (await trigger({ name: "by route", type: "endpoint", routeName: route })).body.data._id;
  });

  test("a read member reads it, and every write, run and delete is 403 and changes nothing", async () => {
    const before = await snapshot();
    const api = reader.api;
    expect((await api.get(`/operations-manager/automations/${id}`)).status).toBe(200);
    expect((await api.get(`/operations-manager/triggers/${manualId}`)).status).toBe(200);
    const refused = [
      await api.patch(`/operations-manager/automations/${id}`, { gbac: { write: [reader.groupId] } }),
      await api.patch(`/operations-manager/automations/${id}`, { description: "taken over" }),
      await api.put(`/automation_catalog/automations/${id}`, { changes: { variables: { x: 1 } } }),
      await api.post("/operations-manager/triggers", { actionId: id, name: "mine", type: "manual" }),
      await api.patch(`/operations-manager/triggers/${endpointId}`, { routeName: "elsewhere" }),
      await api.patch(`/operations-manager/triggers/${manualId}`, { enabled: false }),
      await api.delete(`/operations-manager/triggers/${endpointId}`),
      await api.post(`/operations-manager/triggers/manual/${manualId}/run`, {}),
      await api.post(`/operations-manager/triggers/endpoint/${route}`, {}),
      await api.delete(`/automation_catalog/automations/${id}`),
      await api.delete(`/operations-manager/automations/${id}`),
    ];
    for (const reply of refused) {
      const error = expectError(reply, 403, "FORBIDDEN");
      expect(error.data.required).toEqual(["admin"]);
    }
    expect(await snapshot()).toEqual(before);
  });

  test("an outsider finds it nowhere: every read, write, run and delete is 404 and changes nothing", async () => {
    const before = await snapshot();
    const api = outsider.api;
    const list = await api.get("/operations-manager/automations?limit=1000");
    expect(list.body.data.map((a: any) => a._id)).not.toContain(id);
    const triggers = await api.get("/operations-manager/triggers?limit=1000");
    expect(triggers.body.data.map((t: any) => t.actionId)).not.toContain(id);
    for (const reply of [
      await api.get(`/operations-manager/automations/${id}`),
      await api.get(`/automation_catalog/automations/${id}`),
      await api.get(`/operations-manager/triggers/${manualId}`),
      await api.patch(`/operations-manager/automations/${id}`, { gbac: { write: [outsider.groupId] } }),
      await api.put(`/automation_catalog/automations/${id}`, { changes: { description: "x" } }),
      await api.patch(`/operations-manager/triggers/${endpointId}`, { routeName: "elsewhere" }),
      await api.delete(`/operations-manager/triggers/${endpointId}`),
      await api.post(`/operations-manager/triggers/manual/${manualId}/run`, {}),
      await api.post(`/operations-manager/triggers/endpoint/${route}`, {}),
      await api.delete(`/operations-manager/automations/${id}`),
    ])
      expectError(reply, 404, "NOT_FOUND");
    // By its route, the answer names the route only: not the trigger behind it.
    const byRoute = await api.post(`/operations-manager/triggers/endpoint/${route}`, {});
    expect(byRoute.body.message).toBe(`Endpoint trigger '${route}' not found`);
    // A trigger on it is refused as for an automation that does not exist.
    expectError(
      await api.post("/operations-manager/triggers", { actionId: id, name: "mine", type: "manual" }),
      400,
      "VALIDATION_ERROR",
    );
    expect(await snapshot()).toEqual(before);
  });

  test("an endpoint route name belongs to its trigger: another automation cannot take it", async () => {
    const own = await outsider.api.post("/operations-manager/automations", {
      name: `own-${randomUUID().slice(0, 6)}`,
      componentId: "wf-restQuery",
    });
    expect(own.status).toBe(200);
    const taken = await outsider.api.post("/operations-manager/triggers", {
      actionId: own.body.data._id,
      name: "steal",
      type: "endpoint",
      routeName: route,
    });
    expectError(taken, 409, "CONFLICT");
    expect((await admin.get(`/operations-manager/triggers/${endpointId}`)).body.data.routeName).toBe(route);
  });

  test("a write member changes, runs and may change gbac itself", async () => {
    const api = writer.api;
    expect((await api.patch(`/operations-manager/automations/${id}`, { description: "edited" })).status).toBe(
      200,
    );
    const run = await api.post(`/operations-manager/triggers/manual/${manualId}/run`, {});
    expect(run.status).toBe(200);
    const changed = await api.patch(`/operations-manager/automations/${id}`, {
      gbac: { write: [writer.groupId], read: [] },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data.gbac).toEqual({ write: [writer.groupId], read: [] });
    // The read member lost its read: the automation is now invisible to it.
    expectError(await reader.api.get(`/operations-manager/automations/${id}`), 404, "NOT_FOUND");
  });
});

describe("who may start a workflow, and who reads the job", () => {
  test("a workflow with groups starts only for their members (403 otherwise, no job); the member reads its job", async () => {
    const member = await user(["engineering"]);
    const stranger = await user(["engineering"]);
    await createWorkflow(
      admin,
      platform.broker,
      chain("wf-grouped", [["m1", manual("hold")]], { groups: [member.groupId] }),
    );
    const jobsBefore = (await admin.get("/operations-manager/admin/jobs")).body.total;
    const refused = expectError(
      await stranger.api.post("/operations-manager/jobs/start", { workflow: "wf-grouped", options: {} }),
      403,
      "FORBIDDEN",
    );
    expect(refused.data).toEqual({ required: ["admin"], groups: [member.groupId] });
    expect((await admin.get("/operations-manager/admin/jobs")).body.total).toBe(jobsBefore);

    const started = await member.api.post("/operations-manager/jobs/start", {
      workflow: "wf-grouped",
      options: {},
    });
    expect(started.status).toBe(200);
    expect((await member.api.get(`/operations-manager/jobs/${jobId(started)}`)).status).toBe(200);
    expectError(await stranger.api.get(`/operations-manager/jobs/${jobId(started)}`), 404, "NOT_FOUND");
  });

  test("a child job's workflow groups apply to the parent's runAs: a stranger's childJob task ends error, no child", async () => {
    const member = await user(["engineering"]);
    const stranger = await user(["engineering"]);
    await createWorkflow(
      admin,
      platform.broker,
      chain("wf-grouped-child", [["m1", manual("hold")]], { groups: [member.groupId] }),
    );
    await createWorkflow(
      admin,
      platform.broker,
      chain("wf-spawner", [["spawn", op("childJob", { workflow: "wf-grouped-child", variables: {} })]]),
    );
    const started = await stranger.api.post("/operations-manager/jobs/start", {
      workflow: "wf-spawner",
      options: {},
    });
    expect(started.status).toBe(200);
    const parent = await waitForJob(platform.broker, jobId(started));
    expect(parent.status).toBe("error");
    expect(parent.tasks.spawn.status).toBe("error");
    const record = parent.error.find((e: any) => e.task === "spawn");
    expect(record.message.code).toBe(403);
    const named = async (name: string) =>
      (await admin.get(`/operations-manager/admin/jobs?equals[name]=${name}`)).body.total;
    expect(await named("wf-spawner")).toBeGreaterThan(0);
    expect(await named("wf-grouped-child")).toBe(0);
  });

  test("the starter reads the job it started even outside the job's groups (through the broker)", async () => {
    const group = (await admin.post("/user-management/groups", { name: `jg-${randomUUID().slice(0, 6)}` }))
      .body._id;
    const starter = {
      accountId: "a".repeat(24),
      username: "starter",
      roles: ["engineering"],
      groupIds: [group],
    };
    const as = (caller: Record<string, unknown>) => ({
      meta: { caller: { ...caller, resolvedAt: Date.now() } },
    });
    const job: any = await platform.broker.call(
      "engine.startJob",
      { workflow: "wf-grouped", options: { groups: [group] } },
      as({ ...starter, roles: ["admin"] }),
    );
    // Out of the job's group now: the starter still reads it; someone else outside it does not.
    const read: any = await platform.broker.call(
      "engine.getJob",
      { id: job._id },
      as({ ...starter, groupIds: [] }),
    );
    expect(read.data._id).toBe(job._id);
    await expect(
      platform.broker.call(
        "engine.getJob",
        { id: job._id },
        as({ ...starter, accountId: "b".repeat(24), groupIds: [] }),
      ),
    ).rejects.toMatchObject({ code: 404 });
  });
});

describe("roles as the real product manages them (/authorization/roles, /authorization/methods)", () => {
  const LIST_TASKS = { name: "listTasks", provenance: "engine" };

  test("methods list every operation with its route and built-in roles", async () => {
    const methods = await admin.get("/authorization/methods");
    expect(methods.status).toBe(200);
    expect(methods.body.total).toBe(methods.body.results.length);
    expect(methods.body.results).toContainEqual({
      ...LIST_TASKS,
      route: { path: "/workflow_builder/tasks/list", verb: "GET" },
      roles: ["admin", "engineering", "support"],
    });
    const roles = await admin.get("/authorization/roles?limit=100");
    expect(roles.body.results.map((r: any) => r.name)).toEqual(
      expect.arrayContaining(["admin", "apiread", "engineering"]),
    );
    const apiread = (await admin.get("/authorization/roles/apiread")).body;
    expect(apiread).toMatchObject({ _id: "apiread", provenance: "Builtin" });
    expect(apiread.allowedMethods).toContainEqual({ name: "getJob", provenance: "engine" });
  });

  test("a custom role allowing only GET /workflow_builder/tasks/list: its members call that and nothing else, until it is deleted", async () => {
    const name = `tasks-only-${randomUUID().slice(0, 6)}`;
    const created = await admin.post("/authorization/roles", {
      role: { name, description: "lists tasks", allowedMethods: [LIST_TASKS] },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      status: "Created",
      data: { name, provenance: "Custom", allowedMethods: [LIST_TASKS], allowedViews: [] },
    });
    const roleId = created.body.data._id;
    expect((await admin.get(`/authorization/roles/${roleId}`)).body.name).toBe(name);
    const member = await user([name]);

    expect((await member.api.get("/workflow_builder/tasks/list")).status).toBe(200);
    for (const reply of [
      await member.api.get("/workflow_builder/workflows"),
      await member.api.get("/operations-manager/jobs"),
      await member.api.post("/authorization/roles", { role: { name: "mine", allowedMethods: [] } }),
    ]) {
      const error = expectError(reply, 403, "FORBIDDEN");
      expect(error.data.required).toContain("admin");
    }
    // Its rights show in whoami's roles only as built-ins: the custom role is not one of them.
    expect((await member.api.get("/whoami")).body.roles).toEqual([]);

    expect((await admin.delete(`/authorization/roles/${roleId}`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, AUTH_CACHE_MS + 100));
    expectError(await member.api.get("/workflow_builder/tasks/list"), 403, "FORBIDDEN");
    expectError(await admin.get(`/authorization/roles/${roleId}`), 404, "NOT_FOUND");
  });

  test("bad role bodies are 400 or 409 and change nothing; built-in roles cannot change; only admins manage roles", async () => {
    const name = `dup-${randomUUID().slice(0, 6)}`;
    const before = (await admin.get("/authorization/roles?limit=1000")).body.total;
    expect((await admin.post("/authorization/roles", { role: { name } })).status).toBe(200);
    expectError(await admin.post("/authorization/roles", { role: { name } }), 409, "CONFLICT");
    const unknown = expectError(
      await admin.post("/authorization/roles", {
        role: { name: `x-${name}`, allowedMethods: [{ name: "nope", provenance: "engine" }] },
      }),
      400,
      "VALIDATION_ERROR",
    );
    expect(unknown.data[0].field).toBe("role.allowedMethods[0]");
    expectError(
      await admin.post("/authorization/roles", { role: { name: "admin" } }),
      400,
      "VALIDATION_ERROR",
    );
    expectError(await admin.delete("/authorization/roles/admin"), 400, "VALIDATION_ERROR");
    expectError(
      await admin.patch("/authorization/roles/apiread", { updates: { description: "x" } }),
      400,
      "VALIDATION_ERROR",
    );
    const group = expectError(
      await admin.post("/user-management/groups", { name: `g-${name}`, assignedRoles: ["no-such-role"] }),
      400,
      "VALIDATION_ERROR",
    );
    expect(group.data[0]).toMatchObject({ field: "assignedRoles", type: "unknownRole" });
    expect((await admin.get("/authorization/roles?limit=1000")).body.total).toBe(before + 1);
    const reader = await user(["apiread"]);
    expectError(await reader.api.get("/authorization/roles"), 403, "FORBIDDEN");
    expectError(await reader.api.get("/authorization/methods"), 403, "FORBIDDEN");
  });

  test("an account is assigned roles of its own, beside its groups'", async () => {
    const name = `own-${randomUUID().slice(0, 6)}`;
    expect(
      (await admin.post("/authorization/roles", { role: { name, allowedMethods: [LIST_TASKS] } })).status,
    ).toBe(200);
    const username = `solo-${randomUUID().slice(0, 6)}`;
    const account = await admin.post("/user-management/accounts", {
      username,
      password: ROLE_HOLDER_PASSWORD,
      assignedRoles: [name],
    });
    expect(account.status).toBe(200);
    expect(account.body.assignedRoles).toEqual([name]);
    const solo = client(platform.baseUrl, await login(platform.baseUrl, username, ROLE_HOLDER_PASSWORD));
    expect((await solo.get("/workflow_builder/tasks/list")).status).toBe(200);
    expectError(await solo.get("/workflow_builder/workflows"), 403, "FORBIDDEN");
    expectError(
      await admin.post("/user-management/accounts", {
        username: `${username}-2`,
        password: ROLE_HOLDER_PASSWORD,
        assignedRoles: ["no-such-role"],
      }),
      400,
      "VALIDATION_ERROR",
    );
  });

  test("changing a role's methods reaches its members within AUTH_CACHE_MS", async () => {
    const name = `grow-${randomUUID().slice(0, 6)}`;
    const role = (await admin.post("/authorization/roles", { role: { name, allowedMethods: [] } })).body.data;
    const member = await user([name]);
    expectError(await member.api.get("/workflow_builder/tasks/list"), 403, "FORBIDDEN");
    const updated = await admin.patch(`/authorization/roles/${role._id}`, {
      updates: { allowedMethods: [LIST_TASKS] },
    });
    expect(updated.body).toMatchObject({ status: "OK", data: { allowedMethods: [LIST_TASKS] } });
    await new Promise((r) => setTimeout(r, AUTH_CACHE_MS + 100));
    expect((await member.api.get("/workflow_builder/tasks/list")).status).toBe(200);
  });
});
