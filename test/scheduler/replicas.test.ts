/**
 * Exactly once across scheduler replicas, over real NATS: 200 schedules due within the same two
 * seconds, two scheduler processes (`node dist/app/main.js`), one SIGKILLed while they fire. Every
 * schedule starts exactly one job, none twice, and none later than the claim expiry allows.
 *
 * Processes: the store, the engine, two schedulers; the gateway and accounts on this test's broker.
 */
import { randomUUID } from "node:crypto";
import { chain, op, withStore } from "../support/engine-fixtures";
import { client, login, startPlatform, tempDir, type Platform } from "../support/platform";
import { eventually, spawnServices, type ServiceProcess } from "../support/processes";

const NATS_URL = process.env.NATS_URL!;
const SCHEDULES = 200;
const CLAIM_TTL_MS = 2000;
const TICK_MS = 100;

describe("two scheduler replicas, one killed while firing", () => {
  const namespace = `sch-${randomUUID().slice(0, 8)}`;
  const common = { TRANSPORTER: NATS_URL, NAMESPACE: namespace };
  const schedulerEnv = {
    ...common,
    SERVICES: "scheduler",
    SCHEDULER_TICK_MS: String(TICK_MS),
    SCHEDULER_CLAIM_TTL_MS: String(CLAIM_TTL_MS),
  };
  const processes: Record<string, ServiceProcess> = {};
  let gateway: Platform;

  beforeAll(async () => {
    processes.store = spawnServices({ ...common, SERVICES: "store", DATA_DIR: tempDir() });
    processes.engine = spawnServices({ ...common, SERVICES: "engine", DATA_DIR: tempDir() });
    processes.victim = spawnServices({
      ...schedulerEnv,
      NODE_ID: `${namespace}-sched-1`,
      DATA_DIR: tempDir(),
    });
    processes.survivor = spawnServices({
      ...schedulerEnv,
      NODE_ID: `${namespace}-sched-2`,
      DATA_DIR: tempDir(),
    });
    gateway = await startPlatform({ services: ["gateway", "accounts"], env: common });
    await eventually(
      async () =>
        gateway.broker.registry.getActionEndpoints("scheduler.tick")?.count() === 2 &&
        gateway.broker.registry.getActionEndpoints("engine.startScheduledJob")?.count() === 1,
      30_000,
      `two schedulers and an engine\n${Object.values(processes)
        .map((p) => p.output())
        .join("\n")}`,
    );
  }, 60_000);

  afterAll(async () => {
    await gateway?.stop();
    await Promise.all(Object.values(processes).map((p) => p.stop()));
  });

  test(`${SCHEDULES} schedules due together start exactly ${SCHEDULES} jobs, one each`, async () => {
    const admin = client(gateway.baseUrl, await login(gateway.baseUrl));
    const workflow = chain("Tiny", [["wait", op("delay", { time: 0 })]]);
    expect((await admin.post("/workflow_builder/workflows", { workflow })).status).toBe(200);

    const firstDue = Date.now() + 4000;
    const due = new Map<string, number>();
    for (let i = 0; i < SCHEDULES; i++) {
      const dueAt = firstDue + (i % 20) * 100;
      const reply = await admin.post("/automation_catalog/automations", {
        name: `s-${i}`,
        workflow: "Tiny",
        nextRunAt: new Date(dueAt).toISOString(),
      });
      expect(reply.status).toBe(200);
      due.set(reply.body._id, dueAt);
    }

    const countJobs = () =>
      withStore(gateway.broker, (store) => store.collection("jobs").count({ type: "automation" }));
    // Kill one replica once firing is under way.
    await eventually(async () => (await countJobs()) > 0, 20_000, "the first scheduled job");
    await processes.victim.stop("SIGKILL");

    await eventually(async () => (await countJobs()) >= SCHEDULES, 30_000, `${SCHEDULES} jobs`);
    // Past any claim the dead replica held: nothing more may start.
    await new Promise((r) => setTimeout(r, CLAIM_TTL_MS + 1000));

    const jobs = await withStore(gateway.broker, (store) =>
      store.collection("jobs").find({ type: "automation" }, { projection: { automation: 1, created: 1 } }),
    );
    expect(jobs).toHaveLength(SCHEDULES);
    const perAutomation = new Map<string, number>();
    for (const job of jobs)
      perAutomation.set(job.automation._id, (perAutomation.get(job.automation._id) ?? 0) + 1);
    expect(perAutomation.size).toBe(SCHEDULES);
    expect([...perAutomation.values()].every((n) => n === 1)).toBe(true);

    // None late by more than the claim expiry (plus a pass and a margin for a busy machine).
    const lateness = jobs.map((job) => Date.parse(job.created) - due.get(job.automation._id)!);
    expect(Math.min(...lateness)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...lateness)).toBeLessThan(CLAIM_TTL_MS + TICK_MS + 3000);

    const runs = await withStore(gateway.broker, (store) => store.collection("automation_runs").find({}));
    expect(runs.filter((r) => r.state === "started")).toHaveLength(SCHEDULES);
  }, 90_000);
});
