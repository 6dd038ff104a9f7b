/**
 * bench:scheduler's shape of ours, as a function (bench:scheduler and bench:peers both run it):
 * automations due evenly over a spread, seeded into the store, fired by one or more scheduler
 * replicas; the firing lag (job created minus due time), duplicates and missed fires.
 */
import type { ServiceBroker } from "moleculer";
import { ObjectId } from "mongodb";
import { stopChild } from "../support/children";
import { watchCpu } from "../support/cpu";
import {
  ADMIN_PASSWORD,
  httpUrl,
  platformEnv,
  spawnPlatformNode,
  startPlatform,
  waitForRemote,
} from "../support/platform";
import { latency, type Latency } from "../engine/stats";
import { withStore } from "../support/store";
import { newAutomation } from "../../services/scheduler/new-automation";
import { SCHEDULE_CHANGED_EVENT, type ScheduleChangedEvent } from "../../shared/contracts/events";

export interface ScheduleSettings {
  schedules: number;
  /** Due times spread evenly over this many ms. */
  spreadMs: number;
  /** The first due time, this many ms after seeding. */
  leadMs: number;
  natsUrl: string;
  /** Namespace prefix (one per run). */
  runId: string;
  /** A fresh data dir per call. */
  dataDir: () => string;
}

/** One shape's firing figures; bench:peers gives its peers' in the same shape. */
export interface ScheduleResult {
  id: string;
  replicas: number;
  schedules: number;
  fired: number;
  duplicates: number;
  missed: number;
  lag: Latency & { maxMs: number };
  /**
   * Where the lag goes (from each slot's run record; ours only): due -> the replica's timer fired
   * (the claim's lease minus its length), fired -> job created (claim, engine start), created ->
   * the run recorded as started (the start's reply back).
   */
  stages?: { fired: Latency; created: Latency; recorded: Latency };
  /** CPU ms from seeding to the last fire, per process (ours only), and the share used by others. */
  cpu?: { schedulersMs: number[]; engineMs: number; storeMs: number; othersShare: number | null };
}

/** The claim's lease length the replicas run with (the bench sets none: the default). */
const CLAIM_TTL_MS = Number(process.env.SCHEDULER_CLAIM_TTL_MS) || 10_000;

async function createWorkflow(broker: ServiceBroker): Promise<void> {
  const base = httpUrl(broker);
  const login = await fetch(`${base}/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user: { username: "admin", password: ADMIN_PASSWORD } }),
  });
  const token = await login.text();
  const workflow = {
    name: "Bench tick",
    tasks: {
      workflow_start: { name: "workflow_start", summary: "Start" },
      wait: {
        type: "operation",
        name: "delay",
        summary: "delay",
        variables: { incoming: { time: 0 }, outgoing: {} },
      },
      workflow_end: { name: "workflow_end", summary: "End" },
    },
    transitions: {
      workflow_start: { wait: { state: "success", type: "standard" } },
      wait: { workflow_end: { state: "success", type: "standard" } },
      workflow_end: {},
    },
  };
  const reply = await fetch(`${base}/workflow_builder/workflows`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ workflow }),
  });
  if (reply.status !== 200) throw new Error(`workflow: ${reply.status} ${await reply.text()}`);
}

/**
 * Automations straight into the store (seeding 10,000 over HTTP would measure HTTP, not firing),
 * each chunk announced as the scheduler announces its own writes (SCHEDULE_CHANGED_EVENT, with the
 * chunk's earliest due time): without it the schedulers would learn of them only at their sweep.
 */
async function seed(
  broker: ServiceBroker,
  firstDue: number,
  s: ScheduleSettings,
): Promise<Map<string, number>> {
  const { schedules: SCHEDULES, spreadMs: SPREAD_MS } = s;
  const due = new Map<string, number>();
  const now = new Date().toISOString();
  const docs = Array.from({ length: SCHEDULES }, (_, i) => {
    const _id = new ObjectId().toHexString();
    const dueAt = firstDue + Math.floor((i * SPREAD_MS) / SCHEDULES);
    due.set(_id, dueAt);
    // Written by the platform itself: a schedule runs as the account that last changed it, and a
    // made-up account would be refused (docs/security.md#authorization).
    return newAutomation(
      `bench-${i}`,
      "system",
      { _id, workflow: "Bench tick", nextRunAt: new Date(dueAt).toISOString() },
      now,
    );
  });
  await withStore(broker, async (store) => {
    for (let i = 0; i < docs.length; i += 1000) {
      const chunk = docs.slice(i, i + 1000);
      await store.collection("automations").insertMany(chunk);
      // What the scheduler announces after its own writes: the schedulers re-arm on it.
      const event: ScheduleChangedEvent = {
        automationId: chunk[0]._id,
        nextRunAt: chunk[0].nextRunAt,
        disabled: false,
      };
      await broker.broadcast(SCHEDULE_CHANGED_EVENT, event);
    }
  });
  return due;
}

/**
 * `replicas` scheduler replicas fire s.schedules automations: store, engine and schedulers in
 * processes of their own over NATS, the gateway in this one; stops what it started.
 */
export async function runOurSchedules(
  id: string,
  replicas: number,
  s: ScheduleSettings,
): Promise<ScheduleResult> {
  const { schedules: SCHEDULES, dataDir } = s;
  const NAMESPACE = `${s.runId}-${id}`;
  const common = { TRANSPORTER: s.natsUrl, NAMESPACE };
  const store = spawnPlatformNode(platformEnv({ ...common, SERVICES: "store", DATA_DIR: dataDir() }));
  await waitForRemote(s.natsUrl, NAMESPACE, ["store"]);
  const engine = spawnPlatformNode(platformEnv({ ...common, SERVICES: "engine", DATA_DIR: dataDir() }));
  const schedulers = Array.from({ length: replicas }, (_, i) =>
    spawnPlatformNode(
      platformEnv({
        ...common,
        SERVICES: "scheduler",
        NODE_ID: `${NAMESPACE}-sched-${i}`,
        DATA_DIR: dataDir(),
      }),
    ),
  );
  const broker = await startPlatform(
    platformEnv({ ...common, SERVICES: "gateway,accounts", DATA_DIR: dataDir() }),
  );
  try {
    const until = Date.now() + 30_000;
    while ((broker.registry.getActionEndpoints("scheduler.tick")?.count() ?? 0) < replicas) {
      if (Date.now() > until) throw new Error(`${replicas} scheduler replicas did not join within 30 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await broker.waitForServices(["engine", "store"], 30_000);
    await createWorkflow(broker);
    process.stdout.write(`- ${replicas} scheduler replica(s): seeding ${SCHEDULES} ... `);
    const due = await seed(broker, Date.now() + s.leadMs, s);
    const cpu = watchCpu(() =>
      [store, engine, ...schedulers].flatMap((c) => (c.pid === undefined ? [] : [c.pid])),
    );
    process.stdout.write("firing ... ");

    const last = Math.max(...due.values());
    const deadline = last + 60_000;
    let count = 0;
    while (Date.now() < deadline) {
      count = await withStore(broker, (s) => s.collection("jobs").count({ type: "automation" }));
      if (count >= SCHEDULES && Date.now() > last) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const used = cpu.stop();
    await new Promise((r) => setTimeout(r, 2000)); // a late duplicate would show up here
    // Paged: one answer over the bus must stay under NATS's payload limit (1 MiB by default).
    const jobs: { automation: { _id: string }; created: string }[] = [];
    await withStore(broker, async (s) => {
      for (let skip = 0; ; skip += 1000) {
        const page = await s
          .collection("jobs")
          .find(
            { type: "automation" },
            { sort: { _id: 1 }, skip, limit: 1000, projection: { automation: 1, created: 1 } },
          );
        jobs.push(...(page as typeof jobs));
        if (page.length < 1000) break;
      }
    });
    const perAutomation = new Map<string, number>();
    const lags: number[] = [];
    for (const job of jobs) {
      const a = job.automation._id as string;
      perAutomation.set(a, (perAutomation.get(a) ?? 0) + 1);
      lags.push(Date.parse(job.created) - due.get(a)!);
    }
    const runs: { automationId: string; leaseUntil: number; startedAt: string | null; jobId: string }[] = [];
    await withStore(broker, async (s) => {
      for (let skip = 0; ; skip += 1000) {
        const page = await s.collection("automation_runs").find(
          {},
          {
            sort: { _id: 1 },
            skip,
            limit: 1000,
            projection: { automationId: 1, leaseUntil: 1, startedAt: 1, jobId: 1 },
          },
        );
        runs.push(...(page as typeof runs));
        if (page.length < 1000) break;
      }
    });
    const created = new Map(jobs.map((j) => [j.automation._id, Date.parse(j.created)]));
    const [fired, made, recorded]: number[][] = [[], [], []];
    for (const run of runs) {
      const at = run.leaseUntil - CLAIM_TTL_MS;
      const job = created.get(run.automationId);
      fired.push(at - due.get(run.automationId)!);
      if (job !== undefined) made.push(job - at);
      if (job !== undefined && run.startedAt) recorded.push(Date.parse(run.startedAt) - job);
    }
    const ms = (c: { pid?: number }) => (c.pid === undefined ? 0 : (used.byPid[c.pid] ?? 0));
    const result: ScheduleResult = {
      id,
      replicas,
      schedules: SCHEDULES,
      fired: jobs.length,
      duplicates: [...perAutomation.values()].filter((n) => n > 1).length,
      missed: [...due.keys()].filter((a) => !perAutomation.has(a)).length,
      lag: { ...latency(lags), maxMs: Math.max(...lags) },
      stages: { fired: latency(fired), created: latency(made), recorded: latency(recorded) },
      cpu: {
        schedulersMs: schedulers.map(ms),
        engineMs: ms(engine),
        storeMs: ms(store),
        othersShare: used.others,
      },
    };
    console.log(
      `lag p50 ${result.lag.p50Ms} ms, p99 ${result.lag.p99Ms} ms, max ${result.lag.maxMs} ms; ` +
        `${result.duplicates} duplicate, ${result.missed} missed`,
    );
    const st = result.stages!;
    const c = result.cpu!;
    console.log(
      `  stages p50/p99: due->fired ${st.fired.p50Ms}/${st.fired.p99Ms}, fired->job ${st.created.p50Ms}/` +
        `${st.created.p99Ms}, job->recorded ${st.recorded.p50Ms}/${st.recorded.p99Ms} ms; CPU ms: ` +
        `schedulers ${c.schedulersMs.join("+")}, engine ${c.engineMs}, store ${c.storeMs}; ` +
        `others ${c.othersShare ?? "n/a"} of the machine`,
    );
    return result;
  } finally {
    await broker.stop();
    await Promise.all(schedulers.map((c) => stopChild(c)));
    await stopChild(engine);
    await stopChild(store);
  }
}
