/**
 * Firing at the due time (docs/scheduler.md#firing-at-the-due-time), on real time: the safety sweep
 * is set to a minute, so every job these tests wait for (at most 15 s) was started by a timer armed
 * at its due time, never by the sweep. No timing is asserted beyond that: each wait is generous.
 *
 * One platform on its own, then two scheduler brokers over real NATS (store, engine and gateway
 * brokers beside them): exactly once, a change made on one replica re-arms the other, and a replica
 * that leaves hands its automations to the one left.
 */
import { newAutomation } from "../../services/scheduler/new-automation";
import { randomUUID } from "node:crypto";
import { chain, op, withStore } from "../support/engine-fixtures";
import { client, login, startPlatform, tempDir, type Client, type Platform } from "../support/platform";
import { eventually } from "../support/processes";
import { owns } from "../../services/scheduler/timers";

const SWEEP_MS = "60000";
const WAIT_MS = 15_000;
const at = (ms: number) => new Date(ms).toISOString();

const jobsOf = (platform: Platform, automationId: string) =>
  withStore(platform.broker, (store) =>
    store.collection("jobs").find({ "automation._id": automationId }, { projection: { _id: 1, created: 1 } }),
  );

async function addWorkflow(api: Client, name: string) {
  const workflow = chain(name, [["wait", op("delay", { time: 0 })]]);
  expect((await api.post("/workflow_builder/workflows", { workflow })).status).toBe(200);
}

describe("one replica: timers at the due times", () => {
  let platform: Platform;
  let api: Client;

  beforeAll(async () => {
    platform = await startPlatform({
      env: { SCHEDULER_TICK_MS: SWEEP_MS, SCHEDULE_MIN_INTERVAL_MS: "1000" },
    });
    api = client(platform.baseUrl, await login(platform.baseUrl));
    await addWorkflow(api, "Timed");
  });

  afterAll(() => platform.stop());

  test("a schedule due in 300 ms starts its job without waiting for a sweep", async () => {
    const due = Date.now() + 300;
    const created = await api.post("/automation_catalog/automations", {
      name: `soon-${randomUUID().slice(0, 6)}`,
      workflow: "Timed",
      nextRunAt: at(due),
    });
    expect(created.status).toBe(200);
    await eventually(async () => (await jobsOf(platform, created.body._id)).length > 0, WAIT_MS, "the job");
    const jobs = await jobsOf(platform, created.body._id);
    expect(jobs).toHaveLength(1);
    expect(Date.parse(jobs[0].created)).toBeGreaterThanOrEqual(due);
    // Moved on once the engine has answered (the job exists a moment before).
    const read = async () => (await api.get(`/automation_catalog/automations/${created.body._id}`)).body;
    await eventually(async () => (await read()).lastJobId === jobs[0]._id, WAIT_MS, "lastJobId");
    expect(await read()).toMatchObject({ nextRunAt: null, lastError: null });
  });

  test("moving a far due time near re-arms the timer", async () => {
    const created = await api.post("/automation_catalog/automations", {
      name: `moved-${randomUUID().slice(0, 6)}`,
      workflow: "Timed",
      nextRunAt: at(Date.now() + 3_600_000),
    });
    expect(created.status).toBe(200);
    const due = Date.now() + 300;
    const moved = await api.put(`/automation_catalog/automations/${created.body._id}/schedule`, {
      options: { nextRunAt: at(due) },
    });
    expect(moved.status).toBe(200);
    await eventually(async () => (await jobsOf(platform, created.body._id)).length > 0, WAIT_MS, "the job");
    expect(Date.parse((await jobsOf(platform, created.body._id))[0].created)).toBeGreaterThanOrEqual(due);
  });

  test("a repeating schedule re-arms at each next due time", async () => {
    const created = await api.post("/automation_catalog/automations", {
      name: `every-${randomUUID().slice(0, 6)}`,
      workflow: "Timed",
      nextRunAt: at(Date.now() + 300),
      repeatInterval: "1 second",
    });
    expect(created.status).toBe(200);
    await eventually(async () => (await jobsOf(platform, created.body._id)).length >= 3, WAIT_MS, "3 jobs");
    // One job per due time: the run history holds no due time twice.
    const runs = await api.get(`/automation_catalog/automations/${created.body._id}/runs?limit=100`);
    const dues = runs.body.results.map((r: { dueAt: string }) => r.dueAt);
    expect(new Set(dues).size).toBe(dues.length);
    expect((await api.delete(`/automation_catalog/automations/${created.body._id}`)).status).toBe(200);
  });

  test("a disabled schedule does not fire; enabled again, its passed due time fires at once", async () => {
    const due = Date.now() + 300;
    const created = await api.post("/automation_catalog/automations", {
      name: `paused-${randomUUID().slice(0, 6)}`,
      workflow: "Timed",
      nextRunAt: at(due),
      disabled: true,
    });
    expect(created.status).toBe(200);
    await new Promise((r) => setTimeout(r, 1000));
    expect(await jobsOf(platform, created.body._id)).toHaveLength(0);
    const enabled = await api.put(`/automation_catalog/automations/${created.body._id}/schedule`, {
      options: { disabled: false },
    });
    expect(enabled.status).toBe(200);
    await eventually(async () => (await jobsOf(platform, created.body._id)).length > 0, WAIT_MS, "the job");
    expect(await jobsOf(platform, created.body._id)).toHaveLength(1);
  });
});

describe("the safety sweep", () => {
  let platform: Platform;

  beforeAll(async () => {
    platform = await startPlatform({ env: { SCHEDULER_TICK_MS: "500" } });
    await addWorkflow(client(platform.baseUrl, await login(platform.baseUrl)), "Swept");
  });

  afterAll(() => platform.stop());

  test("an automation written straight into the store, announced to no timer, is fired by the sweep", async () => {
    const id = randomUUID().replace(/-/g, "").slice(0, 24);
    await withStore(platform.broker, (store) =>
      store.collection("automations").insertOne(
        newAutomation(`direct-${id.slice(0, 6)}`, "system", {
          _id: id,
          workflow: "Swept",
          nextRunAt: at(Date.now() + 300),
        }),
      ),
    );
    await eventually(async () => (await jobsOf(platform, id)).length > 0, WAIT_MS, "the job");
    await new Promise((r) => setTimeout(r, 1000)); // more sweeps: still one job
    expect(await jobsOf(platform, id)).toHaveLength(1);
  });
});

describe("many schedules at one instant, more than a window holds", () => {
  let platform: Platform;
  let api: Client;

  beforeAll(async () => {
    // A window of 10 due times: 45 schedules due at the same millisecond overflow it.
    platform = await startPlatform({ env: { SCHEDULER_TICK_MS: SWEEP_MS, SCHEDULER_BATCH: "10" } });
    api = client(platform.baseUrl, await login(platform.baseUrl));
    await addWorkflow(api, "Crowded");
  });

  afterAll(() => platform.stop());

  test("every one fires at its due time, none waits for the sweep", async () => {
    const due = Date.now() + 2000;
    const ids: string[] = [];
    for (let i = 0; i < 45; i++) {
      const reply = await api.post("/automation_catalog/automations", {
        name: `crowd-${i}-${randomUUID().slice(0, 4)}`,
        workflow: "Crowded",
        nextRunAt: at(due),
      });
      expect(reply.status).toBe(200);
      ids.push(reply.body._id);
    }
    const jobs = () =>
      withStore(platform.broker, (store) =>
        store.collection("jobs").find({ "automation._id": { $in: ids } }, { projection: { automation: 1 } }),
      );
    await eventually(async () => (await jobs()).length >= 45, WAIT_MS, "45 jobs");
    expect(new Set((await jobs()).map((j) => j.automation._id)).size).toBe(45);
  }, 30_000);
});

describe("two scheduler brokers over NATS", () => {
  const namespace = `timers-${randomUUID().slice(0, 8)}`;
  const env = {
    TRANSPORTER: process.env.NATS_URL || "nats://127.0.0.1:4222",
    NAMESPACE: namespace,
    SCHEDULER_TICK_MS: SWEEP_MS,
  };
  const dataDir = tempDir("timers-");
  const parts: Platform[] = [];
  let gateway: Platform;
  let one: Platform;
  let two: Platform;
  let api: Client;
  const replicas = () => [one.broker.nodeID, two.broker.nodeID].sort();

  beforeAll(async () => {
    const start = async (services: string[]) => {
      const part = await startPlatform({ services, dataDir, env });
      parts.push(part);
      return part;
    };
    await start(["store"]);
    await start(["engine"]);
    one = await start(["scheduler"]);
    two = await start(["scheduler"]);
    gateway = await start(["gateway", "accounts"]);
    // Each scheduler sees both (each shares the automations by the same list).
    await eventually(
      async () =>
        [one, two, gateway].every(
          (p) => p.broker.registry.getActionEndpoints("scheduler.tick")?.count() === 2,
        ) && gateway.broker.registry.getActionEndpoints("engine.startScheduledJob")?.count() === 1,
      30_000,
      "two schedulers and an engine",
    );
    api = client(gateway.baseUrl, await login(gateway.baseUrl));
    await addWorkflow(api, "Shared");
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled(parts.reverse().map((p) => p.stop()));
  });

  test("40 schedules due within a second start exactly 40 jobs, one each, fired by both replicas", async () => {
    const first = Date.now() + 1500;
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) {
      const reply = await api.post("/automation_catalog/automations", {
        name: `pair-${i}-${randomUUID().slice(0, 4)}`,
        workflow: "Shared",
        nextRunAt: at(first + (i % 10) * 100),
      });
      expect(reply.status).toBe(200);
      ids.push(reply.body._id);
    }
    const jobs = () =>
      withStore(gateway.broker, (store) =>
        store.collection("jobs").find({ "automation._id": { $in: ids } }, { projection: { automation: 1 } }),
      );
    await eventually(async () => (await jobs()).length >= 40, WAIT_MS, "40 jobs");
    await new Promise((r) => setTimeout(r, 1000)); // a late duplicate would show here
    const started = await jobs();
    expect(started).toHaveLength(40);
    expect(new Set(started.map((j) => j.automation._id)).size).toBe(40);
    const runs = () =>
      withStore(gateway.broker, (store) =>
        store.collection("automation_runs").find({ automationId: { $in: ids } }),
      );
    // A run is recorded started once the engine has answered (the job exists a moment before).
    await eventually(
      async () => (await runs()).filter((r) => r.state === "started").length === 40,
      WAIT_MS,
      "40 started runs",
    );
    expect(await runs()).toHaveLength(40);
    // Each replica fired its share (the automations hashed over the two).
    expect(new Set((await runs()).map((r) => r.claimedBy))).toEqual(new Set(replicas()));
  }, 30_000);

  test("a schedule changed on one replica fires on time from the other, which owns it", async () => {
    // Names until one is owned by `two`; the change is then made on `one`.
    let id = "";
    for (let i = 0; !id || !owns(two.broker.nodeID, replicas(), id); i++) {
      if (id) await api.delete(`/automation_catalog/automations/${id}`);
      const reply = await api.post("/automation_catalog/automations", {
        name: `owned-${i}-${randomUUID().slice(0, 4)}`,
        workflow: "Shared",
        nextRunAt: at(Date.now() + 3_600_000),
      });
      expect(reply.status).toBe(200);
      id = reply.body._id;
    }
    const due = Date.now() + 500;
    await one.broker.call(
      "scheduler.updateSchedule",
      { id, options: { nextRunAt: at(due) } },
      { nodeID: one.broker.nodeID },
    );
    const runs = () =>
      withStore(gateway.broker, (store) => store.collection("automation_runs").find({ automationId: id }));
    await eventually(async () => (await runs())[0]?.state === "started", WAIT_MS, "the started run");
    expect(await runs()).toMatchObject([{ state: "started", claimedBy: two.broker.nodeID }]);
    expect(await jobsOf(gateway, id)).toHaveLength(1);
  }, 30_000);

  test("a replica that leaves hands its automations to the other, which fires them on time", async () => {
    const due = Date.now() + 4000;
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const reply = await api.post("/automation_catalog/automations", {
        name: `handover-${i}-${randomUUID().slice(0, 4)}`,
        workflow: "Shared",
        nextRunAt: at(due),
      });
      expect(reply.status).toBe(200);
      ids.push(reply.body._id);
    }
    expect(ids.some((id) => owns(two.broker.nodeID, replicas(), id))).toBe(true);
    await two.stop();
    parts.splice(parts.indexOf(two), 1);
    const jobs = () =>
      withStore(gateway.broker, (store) =>
        store.collection("jobs").find({ "automation._id": { $in: ids } }, { projection: { automation: 1 } }),
      );
    await eventually(async () => (await jobs()).length >= 10, WAIT_MS, "10 jobs");
    expect(new Set((await jobs()).map((j) => j.automation._id)).size).toBe(10);
    const runs = await withStore(gateway.broker, (store) =>
      store.collection("automation_runs").find({ automationId: { $in: ids } }),
    );
    expect(runs.map((r) => r.claimedBy)).toEqual(ids.map(() => one.broker.nodeID));
  }, 30_000);
});
