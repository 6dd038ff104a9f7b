/**
 * The real product's newer surface over HTTP: /operations-manager/automations and
 * /operations-manager/triggers (manual, endpoint, schedule) in its {message, data, metadata}
 * envelope, on the scheduler's automations. The scheduler's clock is injected, as in
 * schedules.test.ts: a schedule trigger fires through the one firing pass (`scheduler.tick`).
 */
import { chain, op, waitForJob, withStore } from "../support/engine-fixtures";
import { clientWithRoles, expectError, usePlatform } from "../support/platform";

const env = usePlatform({ env: { SCHEDULER_TICK_MS: "100000", SCHEDULER_TIMERS: "false" } });
let workflowId: string;
let now = Date.parse("2026-12-01T08:00:00.000Z");
const HOUR = 3_600_000;

const tick = () =>
  env.platform.broker.call("scheduler.tick", {}) as Promise<{
    started: number;
    skipped: number;
    failed: number;
  }>;

const jobsOf = (automationId: string) =>
  withStore(env.platform.broker, (store) =>
    store.collection("jobs").find({ "automation._id": automationId }),
  );

let seq = 0;
async function automation(body: Record<string, unknown> = {}) {
  const reply = await env.admin.post("/operations-manager/automations", {
    name: `auto-${++seq}`,
    componentType: "workflows",
    componentId: workflowId,
    ...body,
  });
  expect(reply.status).toBe(200);
  return reply.body.data;
}

async function trigger(actionId: string, body: Record<string, unknown>) {
  const reply = await env.admin.post("/operations-manager/triggers", {
    name: `trigger-${++seq}`,
    actionType: "automations",
    actionId,
    enabled: true,
    ...body,
  });
  expect(reply.status).toBe(200);
  expect(reply.body.message).toBe("Successfully created trigger");
  return reply.body.data;
}

beforeAll(async () => {
  const scheduler = env.platform.broker.getLocalService("scheduler") as unknown as { clock: () => number };
  scheduler.clock = () => now;
  const reply = await env.admin.post("/workflow_builder/workflows", {
    workflow: chain("Backup", [["noop", op("delay", { time: 0 })]]),
  });
  expect(reply.status).toBe(200);
  workflowId = reply.body._id;
});

describe("/operations-manager/automations", () => {
  test("create, read, patch, delete answer the real product's envelope and fields", async () => {
    const created = await env.admin.post("/operations-manager/automations", {
      name: "Nightly backup",
      description: "every night",
      componentType: "workflows",
      componentId: workflowId,
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      message: "Successfully created automation",
      data: expect.objectContaining({
        _id: expect.stringMatching(/^[0-9a-f]{24}$/),
        name: "Nightly backup",
        description: "every night",
        componentType: "workflows",
        componentId: workflowId,
        componentName: "Backup",
        gbac: { read: [], write: expect.any(Array) },
        created: expect.any(String),
        createdBy: expect.any(String),
        lastUpdated: expect.any(String),
        lastUpdatedBy: expect.any(String),
      }),
      metadata: {},
    });
    const id = created.body.data._id;
    // The same document on the older surface.
    const old = await env.admin.get(`/automation_catalog/automations/${id}`);
    expect(old.body).toMatchObject({ name: "Nightly backup", workflow: "Backup", componentId: workflowId });

    const read = await env.admin.get(`/operations-manager/automations/${id}`);
    expect(read.body).toMatchObject({
      message: "Successfully retrieved automation",
      data: { _id: id },
      metadata: {},
    });
    const patched = await env.admin.patch(`/operations-manager/automations/${id}`, {
      description: "changed",
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      message: "Successfully updated automation",
      data: { description: "changed" },
    });

    const gone = await env.admin.delete(`/operations-manager/automations/${id}`);
    expect(gone.body).toEqual({ message: "Successfully deleted automation", data: null, metadata: {} });
    expectError(await env.admin.get(`/operations-manager/automations/${id}`), 404, "NOT_FOUND");
    expectError(
      await env.admin.patch(`/operations-manager/automations/${id}`, { description: "x" }),
      404,
      "NOT_FOUND",
    );
    expectError(await env.admin.delete(`/operations-manager/automations/${id}`), 404, "NOT_FOUND");
  });

  test("a componentId may be the workflow's name; without one the automation has no component", async () => {
    const byName = await automation({ componentId: "Backup" });
    expect(byName).toMatchObject({ componentId: workflowId, componentName: "Backup" });
    const bare = await env.admin.post("/operations-manager/automations", {
      name: `bare-${++seq}`,
      componentType: "workflows",
    });
    expect(bare.status).toBe(200);
    expect(bare.body.data).toMatchObject({ componentId: null, componentName: null });
  });

  test("bad input is a 400 naming the field and changes nothing; a taken name is 409", async () => {
    const bad = async (body: Record<string, unknown>, field: string) => {
      const error = expectError(
        await env.admin.post("/operations-manager/automations", body),
        400,
        "VALIDATION_ERROR",
      );
      expect(error.data.map((d: { field: string }) => d.field)).toContain(field);
    };
    await bad({ componentType: "workflows" }, "name");
    await bad({ name: "x".repeat(257) }, "name");
    await bad({ name: "plan", componentType: "ucm_compliance_plan" }, "componentType");
    await bad({ name: "nowhere", componentId: "No such workflow" }, "componentId");
    await bad({ name: "nowhere", componentId: "0123456789abcdef01234567" }, "componentId");
    await bad({ name: "groups", gbac: { write: Array(101).fill("g") } }, "gbac.write");
    const list = await env.admin.get("/operations-manager/automations?equals=nowhere&equalsField=name");
    expect(list.body.metadata.total).toBe(0);

    const a = await automation();
    expectError(await env.admin.post("/operations-manager/automations", { name: a.name }), 409, "CONFLICT");
    const b = await automation();
    expectError(
      await env.admin.patch(`/operations-manager/automations/${b._id}`, { name: a.name }),
      409,
      "CONFLICT",
    );
    expectError(
      await env.admin.patch(`/operations-manager/automations/${b._id}`, {}),
      400,
      "VALIDATION_ERROR",
    );
  });

  test("lists filter with equals/contains/startsWith and a field, and page with metadata", async () => {
    for (const n of ["Page A", "Page B", "Page C"]) await automation({ name: n });
    const eq = await env.admin.get("/operations-manager/automations?equals=Page%20B&equalsField=name");
    expect(eq.body).toMatchObject({
      message: "Successfully retrieved automations",
      metadata: { total: 1 },
      data: [{ name: "Page B" }],
    });
    const first = await env.admin.get(
      "/operations-manager/automations?startsWith=page&startsWithField=name&limit=2",
    );
    expect(first.body.data.map((a: any) => a.name)).toEqual(["Page A", "Page B"]);
    expect(first.body.metadata).toEqual({
      skip: 0,
      limit: 2,
      total: 3,
      nextPageSkip: 2,
      previousPageSkip: null,
      currentPageSize: 2,
    });
    const last = await env.admin.get(
      "/operations-manager/automations?startsWith=page&startsWithField=name&limit=2&skip=2&sort=name&order=-1",
    );
    expect(last.body.data.map((a: any) => a.name)).toEqual(["Page A"]);
    expect(last.body.metadata).toMatchObject({ nextPageSkip: null, previousPageSkip: 0, currentPageSize: 1 });
    const byComponent = await env.admin.get(
      `/operations-manager/automations?contains=ackup&containsField=componentName`,
    );
    expect(byComponent.body.metadata.total).toBeGreaterThanOrEqual(3);
    const onlyField = await env.admin.get("/operations-manager/automations?equalsField=name");
    expect(expectError(onlyField, 400, "VALIDATION_ERROR").data[0].field).toBe("equals");
    expectError(
      await env.admin.get("/operations-manager/automations?equals=x&equalsField=gbac"),
      400,
      "VALIDATION_ERROR",
    );
  });
});

describe("/operations-manager/triggers", () => {
  test("a manual trigger starts the automation's job with its formData", async () => {
    const a = await automation();
    const t = await trigger(a._id, { type: "manual", description: "by hand" });
    expect(t).toMatchObject({
      type: "manual",
      enabled: true,
      actionType: "automations",
      actionId: a._id,
      formId: null,
      formData: {},
      legacyWrapper: false,
      lastExecuted: null,
    });
    const run = await env.admin.post(`/operations-manager/triggers/manual/${t._id}/run`, {
      formData: { device: "rtr1" },
    });
    expect(run.status).toBe(200);
    expect(run.body.message).toBe("Successfully started job");
    const job = await waitForJob(env.platform.broker, run.body.data._id, (j) => j.status === "complete");
    expect(job).toMatchObject({ name: "Backup", type: "automation", variables: { device: "rtr1" } });
    expect((await env.admin.get(`/operations-manager/triggers/${t._id}`)).body.data.lastExecuted).toBe(now);
  });

  test("an endpoint trigger's route starts the job with the JSON body as its variables", async () => {
    const a = await automation();
    const t = await trigger(a._id, { type: "endpoint", routeName: "start-backup" });
    expect(t).toMatchObject({
      type: "endpoint",
      verb: "POST",
      routeName: "start-backup",
      schema: { type: "object" },
    });
    const run = await env.admin.post("/operations-manager/triggers/endpoint/start-backup", {
      device: "rtr2",
      routeName: "not the route",
    });
    expect(run.status).toBe(200);
    expect(run.body.data).toMatchObject({
      _id: expect.any(String),
      name: "Backup",
      status: expect.any(String),
    });
    const job = await waitForJob(env.platform.broker, run.body.data._id, (j) => j.status === "complete");
    expect(job.variables).toMatchObject({ device: "rtr2", routeName: "not the route" });

    expectError(
      await env.admin.post("/operations-manager/triggers/endpoint/no-such-route", {}),
      404,
      "NOT_FOUND",
    );
    // Disabled, the route starts nothing.
    expect((await env.admin.patch(`/operations-manager/triggers/${t._id}`, { enabled: false })).status).toBe(
      200,
    );
    expectError(
      await env.admin.post("/operations-manager/triggers/endpoint/start-backup", {}),
      409,
      "CONFLICT",
    );
    // A manual run of an endpoint trigger is not a thing.
    expectError(
      await env.admin.post(`/operations-manager/triggers/manual/${t._id}/run`, {}),
      404,
      "NOT_FOUND",
    );
  });

  test("a schedule trigger is the automation's schedule: it fires once per due time, with the same run history", async () => {
    const a = await automation();
    const first = now + HOUR;
    const t = await trigger(a._id, {
      type: "schedule",
      firstRunAt: first,
      repeatUnit: "day",
      repeatFrequency: 1,
      processMissedRuns: "none",
    });
    expect(t).toMatchObject({
      repeatInterval: 86_400_000,
      nextRunAt: first,
      processMissedRuns: "none",
      enabled: true,
    });
    // Operation 10's view of the same schedule.
    const old = await env.admin.get(`/automation_catalog/automations/${a._id}`);
    expect(old.body).toMatchObject({
      nextRunAt: new Date(first).toISOString(),
      repeatInterval: "1 day",
      missedRuns: "skip",
    });

    now = first + 1000;
    await tick();
    await tick(); // a second pass at the same time fires nothing more
    const jobs = await jobsOf(a._id);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ type: "automation", automation: { _id: a._id } });
    const runs = await env.admin.get(`/automation_catalog/automations/${a._id}/runs`);
    expect(runs.body.results).toEqual([
      expect.objectContaining({ dueAt: new Date(first).toISOString(), state: "started", jobId: jobs[0]._id }),
    ]);
    const after = (await env.admin.get(`/operations-manager/triggers/${t._id}`)).body.data;
    expect(after).toMatchObject({ nextRunAt: first + 86_400_000, lastExecuted: first + 1000 });

    // Disabling through operation 10 shows on the trigger (and its list filter).
    await env.admin.put(`/automation_catalog/automations/${a._id}/schedule`, { options: { disabled: true } });
    const listed = await env.admin.get(`/operations-manager/triggers?actionId=${a._id}&enabled=false`);
    expect(listed.body.data).toEqual([expect.objectContaining({ _id: t._id, enabled: false })]);

    // A second schedule trigger on one automation is a 409; deleting the trigger stops the schedule.
    const second = await env.admin.post("/operations-manager/triggers", {
      name: "another",
      type: "schedule",
      actionId: a._id,
      firstRunAt: first,
    });
    expectError(second, 409, "CONFLICT");
    expect((await env.admin.delete(`/operations-manager/triggers/${t._id}`)).body.message).toBe(
      "Successfully deleted trigger",
    );
    expect((await env.admin.get(`/automation_catalog/automations/${a._id}`)).body).toMatchObject({
      nextRunAt: null,
      repeatInterval: null,
    });
  });

  test("lists filter by equals/equalsField, enabled and actionId, with paging metadata", async () => {
    const a = await automation();
    await trigger(a._id, { type: "endpoint", routeName: "list-one" });
    await trigger(a._id, { type: "endpoint", routeName: "list-two", enabled: false });
    await trigger(a._id, { type: "manual" });
    const endpoints = await env.admin.get(
      `/operations-manager/triggers?equals=endpoint&equalsField=type&enabled=true&actionId=${a._id}`,
    );
    expect(endpoints.body).toMatchObject({
      message: "Successfully retrieved triggers",
      metadata: { total: 1 },
    });
    expect(endpoints.body.data.map((t: any) => t.routeName)).toEqual(["list-one"]);
    const byAutomation = await env.admin.get(
      `/operations-manager/triggers?equals=${a._id}&equalsField=actionId&limit=2`,
    );
    expect(byAutomation.body.metadata).toMatchObject({ total: 3, nextPageSkip: 2, currentPageSize: 2 });
    const lastPage = await env.admin.get(
      `/operations-manager/triggers?equals=${a._id}&equalsField=actionId&limit=2&skip=2`,
    );
    expect(lastPage.body.metadata).toMatchObject({
      nextPageSkip: null,
      previousPageSkip: 0,
      currentPageSize: 1,
    });
    // Deleting the automation deletes its triggers.
    await env.admin.delete(`/operations-manager/automations/${a._id}`);
    expect((await env.admin.get(`/operations-manager/triggers?actionId=${a._id}`)).body.metadata.total).toBe(
      0,
    );
  });

  test("400s name the field and change nothing; 404s; 409s on a taken name or route", async () => {
    const a = await automation();
    const bad = async (body: Record<string, unknown>, field: string) => {
      const reply = await env.admin.post("/operations-manager/triggers", {
        name: "bad",
        actionId: a._id,
        ...body,
      });
      expect(expectError(reply, 400, "VALIDATION_ERROR").data.map((d: any) => d.field)).toContain(field);
    };
    await bad({ type: "cron" }, "type");
    await bad({ type: "endpoint" }, "routeName");
    await bad({ type: "endpoint", routeName: "a/b" }, "routeName");
    await bad({ type: "schedule" }, "firstRunAt");
    await bad({ type: "schedule", firstRunAt: now, repeatInterval: 1000 }, "repeatInterval");
    await bad({ type: "schedule", firstRunAt: -1 }, "firstRunAt");
    await bad({ type: "manual", actionId: "0123456789abcdef01234567" }, "actionId");
    await bad({ type: "manual", name: "" }, "name");
    const none = await env.admin.get(`/operations-manager/triggers?actionId=${a._id}`);
    expect(none.body.metadata.total).toBe(0);
    expect((await env.admin.get(`/automation_catalog/automations/${a._id}`)).body.nextRunAt).toBeNull();

    const t = await trigger(a._id, { type: "endpoint", routeName: "taken-route", name: "taken" });
    const dupName = await env.admin.post("/operations-manager/triggers", {
      name: "taken",
      type: "manual",
      actionId: a._id,
    });
    expectError(dupName, 409, "CONFLICT");
    const b = await automation();
    const dupRoute = await env.admin.post("/operations-manager/triggers", {
      name: "elsewhere",
      type: "endpoint",
      routeName: "taken-route",
      actionId: b._id,
    });
    expectError(dupRoute, 409, "CONFLICT");
    const other = await trigger(b._id, { type: "endpoint", routeName: "other-route" });
    expectError(
      await env.admin.patch(`/operations-manager/triggers/${other._id}`, { routeName: "taken-route" }),
      409,
      "CONFLICT",
    );
    expectError(
      await env.admin.patch(`/operations-manager/triggers/${t._id}`, { type: "manual" }),
      400,
      "VALIDATION_ERROR",
    );

    const missing = "0123456789abcdef01234567";
    expectError(await env.admin.get(`/operations-manager/triggers/${missing}`), 404, "NOT_FOUND");
    expectError(
      await env.admin.patch(`/operations-manager/triggers/${missing}`, { enabled: true }),
      404,
      "NOT_FOUND",
    );
    expectError(await env.admin.delete(`/operations-manager/triggers/${missing}`), 404, "NOT_FOUND");
    expectError(
      await env.admin.post(`/operations-manager/triggers/manual/${missing}/run`, {}),
      404,
      "NOT_FOUND",
    );
  });

  test("roles: writes need admin, apiwrite or engineering; reads also apiread; runs any signed-in caller", async () => {
    const a = await automation();
    const reader = await clientWithRoles(env.platform, env.admin, ["apiread"]);
    expect((await reader.get("/operations-manager/automations")).status).toBe(200);
    expect((await reader.get("/operations-manager/triggers")).status).toBe(200);
    expectError(await reader.post("/operations-manager/automations", { name: "nope" }), 403, "FORBIDDEN");
    expectError(
      await reader.post("/operations-manager/triggers", { name: "nope", type: "manual", actionId: a._id }),
      403,
      "FORBIDDEN",
    );
    expectError(
      await reader.patch(`/operations-manager/automations/${a._id}`, { description: "x" }),
      403,
      "FORBIDDEN",
    );
    const writer = await clientWithRoles(env.platform, env.admin, ["apiwrite"]);
    const created = await writer.post("/operations-manager/automations", {
      name: `w-${++seq}`,
      componentId: "Backup",
    });
    expect(created.status).toBe(200);
    const support = await clientWithRoles(env.platform, env.admin, ["support"]);
    expectError(await support.get("/operations-manager/triggers"), 403, "FORBIDDEN");
    // A run is a write of the automation's gbac: outside all its groups, the trigger is not there.
    const t = await trigger(a._id, { type: "manual" });
    expectError(await support.post(`/operations-manager/triggers/manual/${t._id}/run`, {}), 404, "NOT_FOUND");
    const own = await trigger(created.body.data._id, { type: "manual" });
    expect((await writer.post(`/operations-manager/triggers/manual/${own._id}/run`, {})).status).toBe(200);
  });
});
