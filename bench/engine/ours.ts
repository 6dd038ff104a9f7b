/**
 * bench:engine's three shapes of ours, as functions (bench:engine and bench:peers both run them):
 *   in-process  every service on one broker, embedded store (the default deployment)
 *   nats        store in one process, two engine replicas in two more, gateway + accounts + the
 *               no-op service in this one, all over NATS: every task's call crosses the bus
 *   nats-local  the same, with the no-op service in each engine's process too, which calls it
 *               there (Moleculer prefers a local endpoint): a worker with its processor, as each
 *               of BullMQ's or graphile-worker's worker processes is
 * Each starts the platform, warms it up, runs the closed loop (jobs started over HTTP, `concurrency`
 * at a time), finishTask calls (unless `finish` is 0), then the open loop at half the peak jobs/s,
 * and stops what it started.
 */
import path from "node:path";
import type { ServiceBroker } from "moleculer";
import { childPids, spawnTracked, stopChild } from "../support/children";
import { cpuUsPer, cpuUsPerByRole, waitQuiet, watchCpu, type CpuShares, type RoleCpu } from "../support/cpu";
import {
  ADMIN_PASSWORD,
  httpUrl,
  platformEnv,
  spawnPlatformNode,
  startPlatform,
  waitForRemote,
} from "../support/platform";
import { latency, type Latency } from "./stats";
import { StageRecorder } from "./stages";
import { StageProfiler } from "./stages-profile";
import { intEnv } from "../support/env";
import {
  Completions,
  Http,
  TASKS_PER_JOB,
  createWorkflows,
  openLoopRate,
  runFinishTasks,
  runJobs,
  runPacedJobs,
  taskService,
  thirds,
  warmUp,
  type JobsRun,
} from "./workload";

export type Shape = "in-process" | "nats" | "nats-local";

export interface OursSettings {
  /** Jobs of the closed loop. */
  jobs: number;
  /** Jobs in flight in the closed loop. */
  concurrency: number;
  /** finishTask calls after the closed loop (0 skips them). */
  finish: number;
  warmupJobs: number;
  /** The warm-up's least duration, ms (./workload.ts, warmLoop). */
  warmupMs: number;
  /** Longest measured run, in ms. */
  maxMs: number;
  quietWaitS: number;
  /** Jobs of the open loop at half the peak (0 skips it). */
  pacedJobs: number;
  /** The open loop's jobs/s when above 0 (BENCH_PACED_RATE), else half the peak (./workload.ts openLoopRate). */
  pacedRate?: number;
  /** Where the load's HTTP client runs: its own process (`child`) or this one (`same`). */
  client: "child" | "same";
  natsUrl: string;
  /** Namespace prefix of the NATS shape (one per run). */
  runId: string;
  /** A fresh data dir per call. */
  dataDir: () => string;
  /** Platform settings on top of the bench's (STORE_FSYNC=true for the durable mode). */
  env?: Record<string, string>;
}

export interface OursResult {
  id: Shape;
  label: string;
  jobs: number;
  completed: number;
  failed: number;
  wallMs: number;
  transitionsPerSec: number;
  jobsPerSec: number;
  startToComplete: Latency;
  /** Jobs/s in the closed loop's first and last third (./workload.ts, thirds). */
  thirds: { first: number; last: number } | null;
  startJob: Latency;
  finishTask: Latency & { perSec: number; failed: number };
  /** Jobs started at half the measured peak jobs/s, open loop. */
  /** The open loop: its latencies, its rate, its time from the first start to the last end. */
  halfPeak: (Latency & { jobsPerSec: number; wallMs: number; failed: number }) | null;
  cpu: CpuShares | null;
  /** CPU µs a transition of the closed loop, over the run's processes and nats-server (cpuUsPer). */
  cpuUsPerTransition: number | null;
  /**
   * The same by process (`platform` in one process; `gateway`, `store`, `engine 1`, `engine 2` over
   * NATS; `nats-server`; `load client`), each split by kind of thread (support/cpu.ts threadKind).
   */
  cpuByRole: Record<string, RoleCpu> | null;
}

/** A load loop in ./load-child.ts; job ends go to it from this process's listener. */
async function inChild(
  base: string,
  completions: Completions,
  spec: { mode: "closed" | "paced"; jobs: number; concurrency: number; perSecond: number; maxMs: number },
  warmup: { ms: number; concurrency: number },
  onWarm: () => void | Promise<void>,
): Promise<JobsRun> {
  const full = {
    ...spec,
    base,
    password: ADMIN_PASSWORD,
    warmupMs: warmup.ms,
    warmupConcurrency: warmup.concurrency,
  };
  const child = spawnTracked(
    process.execPath,
    [path.join(__dirname, "load-child.js"), JSON.stringify(full)],
    { stdio: ["ignore", "inherit", "inherit", "ipc"] },
  );
  completions.forward = (jobId, status, wallMs) => {
    if (child.connected) child.send({ jobId, status, wallMs });
  };
  try {
    return await new Promise<JobsRun>((resolve, reject) => {
      child.on("message", (m: { warm?: true; result?: JobsRun }) => {
        if (m.warm) void Promise.resolve(onWarm()).then(() => child.send({ go: true }), reject);
        else if (m.result) resolve(m.result);
      });
      child.once("exit", (code) => reject(new Error(`load child exited ${code} without a result`)));
    });
  } finally {
    completions.forward = undefined;
    await stopChild(child);
  }
}

/**
 * The load child's own warm-up, ms, before each measured loop (at most the bench's warm-up): the
 * platform is warm by then, the child is a new process whose code is not, and a cold client
 * slowed the first third of a closed loop by a third (docs/performance-rounds.md, ninth round).
 */
const CHILD_WARMUP_MS = 2000;

/** BENCH_STAGES=1: where the half-peak run's slow jobs wait, in one process (./stages.ts). */
const STAGES = intEnv("BENCH_STAGES", 0, 0) > 0;
/** BENCH_STAGES_PROFILE=1 with it: what the main thread ran in the slow jobs' time (./stages-profile.ts). */
const PROFILE = intEnv("BENCH_STAGES_PROFILE", 0, 0) > 0;

/** The measured part, the same for both shapes. */
async function measure(
  id: Shape,
  label: string,
  broker: ServiceBroker,
  replicas: number,
  s: OursSettings,
  roles: Record<number, string>,
): Promise<OursResult> {
  const completions = new Completions();
  const taskCalls = { count: 0 };
  broker.createService(taskService(taskCalls));
  broker.createService(completions.service());
  const stages = STAGES && id === "in-process" ? new StageRecorder() : undefined;
  if (stages) broker.createService(stages.service());
  const profiler = stages && PROFILE ? new StageProfiler() : undefined;
  await broker.waitForServices(["benchtask", "benchlistener", "engine"], 30_000);

  const http = new Http(httpUrl(broker));
  await http.login(ADMIN_PASSWORD);
  await createWorkflows(http);
  process.stdout.write(`- ${label}: warming up ... `);
  await warmUp(http, completions, replicas, {
    jobs: s.warmupJobs,
    ms: s.warmupMs,
    concurrency: s.concurrency,
  });
  if (s.quietWaitS > 0) await waitQuiet(s.quietWaitS * 1000);

  // The child's own warm-up (a new process) is left out of the CPU shares.
  let cpu: ReturnType<typeof watchCpu> | undefined;
  const watch = () => void (cpu = watchCpu(childPids));
  const base = httpUrl(broker);
  const childWarmUp = { ms: Math.min(CHILD_WARMUP_MS, s.warmupMs), concurrency: s.concurrency };
  const closed = {
    mode: "closed" as const,
    jobs: s.jobs,
    concurrency: s.concurrency,
    perSecond: 0,
    maxMs: s.maxMs,
  };
  const run =
    s.client === "child"
      ? await inChild(base, completions, closed, childWarmUp, watch)
      : (watch(), await runJobs(http, completions, s.jobs, s.concurrency, performance.now() + s.maxMs));
  const shares = cpu!.stop();
  const finish =
    s.finish > 0
      ? await runFinishTasks(http, s.finish, s.concurrency)
      : { count: 0, failed: 0, wallMs: 0, latencies: [] };
  const peakJobsPerSec = run.completed / (run.wallMs / 1000);
  const pacedRate = openLoopRate(peakJobsPerSec, s.pacedRate);
  // The profiler first: starting it logs every function compiled so far, a few hundred ms of the
  // main thread that the stage recorder would count as a loop stall of the run.
  const record = async () => {
    await profiler?.start();
    stages?.start();
  };
  const pacedSpec = {
    mode: "paced" as const,
    jobs: s.pacedJobs,
    concurrency: 0,
    perSecond: pacedRate,
    maxMs: s.maxMs,
  };
  const paced =
    s.pacedJobs > 0 && peakJobsPerSec > 0
      ? s.client === "child"
        ? await inChild(base, completions, pacedSpec, childWarmUp, record)
        : (await record(), await runPacedJobs(http, completions, s.pacedJobs, pacedRate))
      : null;
  stages?.stop();
  await profiler?.stop();
  if (stages && paced) {
    for (const line of stages.report(paced.stamps ?? [])) console.log(line);
    const slow = profiler && stages.slowWindows(paced.stamps ?? []);
    if (slow) for (const line of profiler!.report(slow.windows, slow.run)) console.log(line);
  }

  http.close();
  checkTaskCalls(id, taskCalls.count);
  const transitions = run.completed * TASKS_PER_JOB;
  return {
    id,
    label,
    jobs: run.jobs,
    completed: run.completed,
    failed: run.failed,
    wallMs: Math.round(run.wallMs),
    transitionsPerSec: Math.round(transitions / (run.wallMs / 1000)),
    jobsPerSec: Math.round((run.completed / (run.wallMs / 1000)) * 10) / 10,
    startToComplete: latency(run.latencies),
    thirds: thirds(run),
    startJob: latency(run.startLatencies),
    finishTask: {
      ...latency(finish.latencies),
      perSec: finish.wallMs > 0 ? Math.round(finish.count / (finish.wallMs / 1000)) : 0,
      failed: finish.failed,
    },
    cpu: shares,
    cpuUsPerTransition: cpuUsPer(shares, transitions),
    cpuByRole: cpuUsPerByRole(shares, roles, transitions),
    halfPeak: paced
      ? {
          ...latency(paced.latencies),
          jobsPerSec: Math.round(pacedRate * 10) / 10,
          wallMs: Math.round(paced.wallMs),
          failed: paced.failed,
        }
      : null,
  };
}

/**
 * The shape is what its label says: in `nats` every task's call reached this process's no-op
 * service over the bus, in `nats-local` none did (each engine called the one in its own process,
 * Moleculer preferring a local endpoint). A run that breaks it fails rather than report a figure.
 */
function checkTaskCalls(shape: Shape, callsHere: number): void {
  if (shape === "nats" && callsHere === 0)
    throw new Error("nats: no task call reached the gateway's process: the calls did not cross the bus");
  if (shape === "nats-local" && callsHere > 0)
    throw new Error(`nats-local: ${callsHere} task calls crossed the bus to the gateway's process`);
}

async function inProcess(s: OursSettings): Promise<OursResult> {
  const DATA_DIR = s.dataDir();
  // store.service reads DATA_DIR from process.env rather than its broker's config: keep both equal.
  const saved = process.env.DATA_DIR;
  process.env.DATA_DIR = DATA_DIR;
  const broker = await startPlatform(platformEnv({ ...s.env, DATA_DIR }));
  const settings = Object.entries(s.env ?? {}).map(([k, v]) => `${k}=${v}`);
  const label = `in-process (one broker, embedded store${settings.length ? `, ${settings.join(", ")}` : ""})`;
  try {
    return await measure("in-process", label, broker, 1, s, { [process.pid]: "platform" });
  } finally {
    await broker.stop();
    if (saved === undefined) delete process.env.DATA_DIR;
    else process.env.DATA_DIR = saved;
  }
}

async function overNats(s: OursSettings, localTask: boolean): Promise<OursResult> {
  const NAMESPACE = `${s.runId}-${localTask ? "nats-local" : "nats"}`;
  const common = { ...s.env, TRANSPORTER: s.natsUrl, NAMESPACE };
  const store = spawnPlatformNode(platformEnv({ ...common, SERVICES: "store", DATA_DIR: s.dataDir() }));
  await waitForRemote(s.natsUrl, NAMESPACE, ["store"], undefined, s.env?.SERIALIZER);
  const engines = [1, 2].map((i) =>
    spawnPlatformNode(
      platformEnv({
        ...common,
        SERVICES: "engine",
        NODE_ID: `${NAMESPACE}-engine-${i}`,
        DATA_DIR: s.dataDir(),
      }),
      undefined,
      { localTask },
    ),
  );
  const broker = await startPlatform(
    platformEnv({ ...common, SERVICES: "gateway,accounts", DATA_DIR: s.dataDir() }),
  );
  try {
    const until = Date.now() + 30_000;
    while ((broker.registry.getActionEndpoints("engine.startJob")?.count() ?? 0) < 2) {
      if (Date.now() > until) throw new Error("two engine replicas did not join the bus within 30 s");
      await new Promise((r) => setTimeout(r, 100));
    }
    const label = localTask
      ? "over NATS, the task in each engine's process (store + 2 engine replicas in 3 processes)"
      : "over NATS (store + 2 engine replicas in 3 processes)";
    const roles: Record<number, string> = { [process.pid]: "gateway" };
    if (store.pid !== undefined) roles[store.pid] = "store";
    engines.forEach((engine, i) => {
      if (engine.pid !== undefined) roles[engine.pid] = `engine ${i + 1}`;
    });
    return await measure(localTask ? "nats-local" : "nats", label, broker, 2, s, roles);
  } finally {
    await broker.stop();
    // Engines before the store they write to.
    await Promise.all(engines.map((c) => stopChild(c)));
    await stopChild(store);
  }
}

/** Runs one shape of ours from start to stop. */
export function runOurs(shape: Shape, settings: OursSettings): Promise<OursResult> {
  return shape === "in-process" ? inProcess(settings) : overNats(settings, shape === "nats-local");
}
