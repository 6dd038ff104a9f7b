/**
 * Schedule inputs that could poison shared reads (docs/scheduler.md#ranges): due times out of 100
 * years of now and intervals over 10 years are refused at write time with a 400 naming the field,
 * and store nothing; a record that cannot be rendered, planted in the store directly, is answered
 * with an error marker and never fails a list; the firing pass pages through every due automation,
 * so 520 broken ones due at once cannot starve a good one, and each broken one is disabled with
 * its reason, once.
 */
import { newAutomation, type NewAutomation } from "../../services/scheduler/new-automation";
import { ObjectId } from "mongodb";
import { chain, op, withStore } from "../support/engine-fixtures";
import { expectError, usePlatform } from "../support/platform";

const env = usePlatform({ env: { SCHEDULER_TICK_MS: "100000", SCHEDULER_TIMERS: "false" } });
const HOUR = 3_600_000;
const at = (ms: number) => new Date(ms).toISOString();

beforeAll(async () => {
  const reply = await env.admin.post("/workflow_builder/workflows", {
    workflow: chain("Quick", [["noop", op("delay", { time: 0 })]]),
  });
  expect(reply.status).toBe(200);
});

const automationsIn = () =>
  withStore(env.platform.broker, (store) =>
    store.collection("automations").find({}, { projection: { name: 1 } }),
  );

/** An automation document as the scheduler stores it, for planting what no request may write. */
function stored(name: string, fields: Record<string, unknown>) {
  return newAutomation(name, "planted", {
    _id: new ObjectId().toHexString(),
    workflow: "Quick",
    ...fields,
  } as Partial<NewAutomation>);
}

describe("refused at write time, nothing stored", () => {
  test.each([
    ["nextRunAt", { nextRunAt: "9999-12-31T23:59:59Z", repeatInterval: "1000000 years" }],
    ["nextRunAt", { nextRunAt: "2200-01-01T00:00:00Z" }],
    ["nextRunAt", { nextRunAt: "1900-01-01T00:00:00Z" }],
    ["repeatInterval", { nextRunAt: "2030-01-01T00:00:00Z", repeatInterval: "1000000 years" }],
    ["repeatInterval", { repeatInterval: "11 years" }],
    ["catchUpWindow", { catchUpWindow: "20 years" }],
  ])("POST /automation_catalog/automations: %s out of range -> 400", async (field, body) => {
    const before = await automationsIn();
    const reply = await env.admin.post("/automation_catalog/automations", {
      name: `refused-${field}-${Math.random()}`,
      workflow: "Quick",
      ...body,
    });
    const error = expectError(reply, 400, "VALIDATION_ERROR");
    expect(error.data.map((d: { field: string }) => d.field)).toContain(field);
    expect(await automationsIn()).toEqual(before);
  });

  test("the bounds themselves are accepted: 10 years, a due time 99 years ahead", async () => {
    const ahead = new Date();
    ahead.setUTCFullYear(ahead.getUTCFullYear() + 99);
    const reply = await env.admin.post("/automation_catalog/automations", {
      name: "at-the-bounds",
      workflow: "Quick",
      nextRunAt: ahead.toISOString(),
      repeatInterval: "10 years",
    });
    expect(reply.status).toBe(200);
    expect(reply.body.preview).toHaveLength(10);
  });

  test("PUT .../schedule and PUT .../:id name the field under options / changes", async () => {
    const { body: a } = await env.admin.post("/automation_catalog/automations", {
      name: "to-update",
      workflow: "Quick",
    });
    const schedule = await env.admin.put(`/automation_catalog/automations/${a._id}/schedule`, {
      options: { nextRunAt: "9999-12-31T23:59:59Z", repeatInterval: "1000000 years" },
    });
    const fields = expectError(schedule, 400, "VALIDATION_ERROR").data.map((d: any) => d.field);
    expect(fields).toEqual(expect.arrayContaining(["options.nextRunAt", "options.repeatInterval"]));
    const update = await env.admin.put(`/automation_catalog/automations/${a._id}`, {
      changes: { repeatInterval: "50 years" },
    });
    expect(expectError(update, 400, "VALIDATION_ERROR").data[0].field).toBe("changes.repeatInterval");
    const read = await env.admin.get(`/automation_catalog/automations/${a._id}`);
    expect(read.body).toMatchObject({ nextRunAt: null, repeatInterval: null });
  });

  test.each([
    ["firstRunAt", { firstRunAt: 8_640_000_000_000_000 }],
    ["repeatInterval", { firstRunAt: Date.now() + HOUR, repeatInterval: 11 * 365 * 24 * HOUR }],
    ["repeatFrequency", { firstRunAt: Date.now() + HOUR, repeatUnit: "week", repeatFrequency: 1_000_000 }],
  ])("POST /operations-manager/triggers (schedule): %s out of range -> 400", async (field, body) => {
    const { body: a } = await env.admin.post("/automation_catalog/automations", {
      name: `trigger-host-${Math.random()}`,
      workflow: "Quick",
    });
    const reply = await env.admin.post("/operations-manager/triggers", {
      name: "poison",
      type: "schedule",
      actionId: a._id,
      ...body,
    });
    expect(expectError(reply, 400, "VALIDATION_ERROR").data[0].field).toBe(field);
    const triggers = await env.admin.get(`/operations-manager/triggers?actionId=${a._id}`);
    expect(triggers.body.data).toEqual([]);
    expect((await env.admin.get(`/automation_catalog/automations/${a._id}`)).body.nextRunAt).toBeNull();
  });
});

test("a stored record that cannot be rendered is answered with an error marker; the lists stay 200", async () => {
  const poisoned = [
    stored("planted-far", { nextRunAt: "9999-12-31T23:59:59.000Z", repeatInterval: "1000000 years" }),
    stored("planted-edge", { nextRunAt: "+275760-09-13T00:00:00.000Z", repeatInterval: "1 day" }),
    stored("planted-number", { nextRunAt: 8_640_000_000_000_000 }),
  ];
  await withStore(env.platform.broker, (store) => store.collection("automations").insertMany(poisoned));

  const list = await env.admin.get("/automation_catalog/automations?limit=1000");
  expect(list.status).toBe(200);
  for (const p of poisoned) {
    const answered = list.body.results.find((a: any) => a._id === p._id);
    expect(answered).toMatchObject({ name: p.name, preview: [] });
    expect(answered.renderError).toMatch(/cannot be rendered/);
  }
  const good = list.body.results.find((a: any) => a.name === "at-the-bounds");
  expect(good.renderError).toBeUndefined();
  expect(good.preview).toHaveLength(10);

  const one = await env.admin.get(`/automation_catalog/automations/${poisoned[0]._id}`);
  expect(one.status).toBe(200);
  expect(one.body.renderError).toMatch(/cannot be rendered/);
  expect((await env.admin.get("/operations-manager/automations?limit=100")).status).toBe(200);
  expect((await env.admin.get("/operations-manager/triggers")).status).toBe(200);

  await withStore(env.platform.broker, (store) =>
    store.collection("automations").deleteMany({ _id: { $in: poisoned.map((p) => p._id) } }),
  );
});

test("520 broken automations due at once: the good one behind them fires; each broken one is disabled once", async () => {
  const now = Date.now();
  // Broken: fires (no workflow: a failed run), then its next due time is past what a date holds.
  const broken = Array.from({ length: 520 }, (_, i) =>
    stored(`broken-${String(i).padStart(3, "0")}`, {
      workflow: null,
      nextRunAt: at(now - 3 * HOUR + i),
      repeatInterval: "200000 years",
    }),
  );
  await withStore(env.platform.broker, (store) => store.collection("automations").insertMany(broken));
  const created = await env.admin.post("/automation_catalog/automations", {
    name: "good-behind-the-broken",
    workflow: "Quick",
    nextRunAt: at(now - HOUR),
  });
  expect(created.status).toBe(200);

  const warn = jest
    .spyOn(env.platform.broker.getLocalService("scheduler")!.logger, "warn")
    .mockImplementation(() => undefined);
  try {
    const first = (await env.platform.broker.call("scheduler.tick", {})) as {
      started: number;
      failed: number;
    };
    expect(first.started).toBe(1);
    expect(first.failed).toBe(520);
    const second = (await env.platform.broker.call("scheduler.tick", {})) as {
      started: number;
      failed: number;
    };
    expect(second).toEqual({ started: 0, skipped: 0, failed: 0 });

    const [good] = await withStore(env.platform.broker, (store) =>
      store.collection("automations").find({ _id: created.body._id }),
    );
    expect(good.lastJobId).toEqual(expect.any(String));
    expect(good.lastError).toBeNull();

    const after = await withStore(env.platform.broker, (store) =>
      store.collection("automations").find({ _id: { $in: broken.map((b) => b._id) } }),
    );
    expect(after).toHaveLength(520);
    for (const a of after) {
      expect(a.disabled).toBe(true);
      expect(a.lastError).toMatch(/^The schedule was disabled: its next due time .* is out of range$/);
    }
    const runs = await withStore(env.platform.broker, (store) =>
      store.collection("automation_runs").count({ automationId: { $in: broken.map((b) => b._id) } }),
    );
    expect(runs).toBe(520);
    const disabledWarnings = warn.mock.calls.filter(([line]) => /schedule disabled/.test(String(line)));
    expect(disabledWarnings).toHaveLength(520);
    expect((await env.admin.get("/automation_catalog/automations?limit=1000")).status).toBe(200);
  } finally {
    warn.mockRestore();
  }
});
