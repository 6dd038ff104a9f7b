/**
 * One peer in one shape (1 or more worker processes): the same measured work as bench:engine's —
 * a warm-up, the closed loop (`concurrency` jobs in flight) for the peak, then the open loop at half
 * that peak for the start-to-complete latency — through the same loops (../engine/workload.ts).
 * And the schedules workload on BullMQ delayed jobs. Each run uses a queue (BullMQ) or a schema
 * (graphile-worker) of its own and removes it at the end.
 */
import path from "node:path";
import { Queue } from "bullmq";
import { makeWorkerUtils } from "graphile-worker";
import { childPids, spawnTracked, stopChild } from "../support/children";
import { waitQuiet, watchCpu, type CpuShares } from "../support/cpu";
import { latency, type Latency } from "../engine/stats";
import {
  Completions,
  closedLoop,
  openLoopRate,
  pacedLoop,
  thirds,
  warmLoop,
  type OneJob,
} from "../engine/workload";
import type { ScheduleResult } from "../scheduler/ours";
import { STEPS, producer, startWorker, type PeerId, type Servers, type WorkerSpec } from "./peers";

export interface PeerSettings {
  jobs: number;
  /** Jobs in flight in the closed loop; also the steps all workers together run at once. */
  concurrency: number;
  warmupJobs: number;
  /** The warm-up's least duration, ms (../engine/workload.ts, warmLoop). */
  warmupMs: number;
  maxMs: number;
  quietWaitS: number;
  pacedJobs: number;
  /** The open loop's jobs/s when above 0 (BENCH_PACED_RATE), else half the peak (../engine/workload.ts openLoopRate). */
  pacedRate?: number;
  servers: Servers;
  /** Where the workers run: processes of their own (the bench), or this one (the smoke test). */
  workersIn: "processes" | "this-process";
  /** Unique per bench run: names queues and schemas. */
  runId: string;
}

export interface PeerResult {
  id: string;
  peer: PeerId;
  workers: number;
  jobs: number;
  completed: number;
  failed: number;
  wallMs: number;
  transitionsPerSec: number;
  jobsPerSec: number;
  startToComplete: Latency;
  /** Jobs/s in the closed loop's first and last third (../engine/workload.ts, thirds). */
  thirds: { first: number; last: number } | null;
  /** The library call that starts a job (add, or the flow's add), answered. */
  startJob: Latency;
  /** The open loop: its latencies, its rate, its time from the first start to the last end. */
  halfPeak: (Latency & { jobsPerSec: number; wallMs: number; failed: number }) | null;
  /** Jobs each worker ended in the closed loop (each should have had a share). */
  endsPerWorker: number[];
  cpu: CpuShares | null;
}

/** Where the peer's data lives in this run: a BullMQ queue name, or a graphile-worker schema. */
export function nameOf(peer: string, workers: number, runId: string): string {
  return `${runId}_${peer}_${workers}`.replace(/[^a-z0-9_]/gi, "_").toLowerCase();
}

interface Workers {
  ends: number[];
  stop(): Promise<void>;
}

/** `count` workers of `spec`, each reporting ends to `onEnd`. */
async function startWorkers(
  spec: WorkerSpec,
  count: number,
  where: PeerSettings["workersIn"],
  onEnd: (key: string, wallMs: number) => void,
): Promise<Workers> {
  const ends = Array.from({ length: count }, () => 0);
  if (where === "this-process") {
    const started = await Promise.all(
      ends.map((_, i) =>
        startWorker(spec, (key, at) => {
          ends[i]++;
          onEnd(key, at);
        }),
      ),
    );
    return { ends, stop: async () => void (await Promise.all(started.map((w) => w.close()))) };
  }
  const children = ends.map((_, i) => {
    const child = spawnTracked(
      process.execPath,
      [path.join(__dirname, "worker-node.js"), JSON.stringify(spec)],
      {
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      },
    );
    const ready = new Promise<void>((resolve, reject) => {
      child.on("message", (m: { ready?: boolean; key?: string; at?: number }) => {
        if (m.ready) return resolve();
        ends[i]++;
        onEnd(m.key!, m.at!);
      });
      child.once("exit", (code) => reject(new Error(`${spec.peer} worker exited ${code}`)));
    });
    return { child, ready };
  });
  await Promise.all(children.map((c) => c.ready));
  return { ends, stop: async () => void (await Promise.all(children.map((c) => stopChild(c.child)))) };
}

/** Removes a run's queue or schema. */
async function cleanUp(peer: WorkerSpec["peer"], name: string, servers: Servers): Promise<void> {
  if (peer === "graphile") {
    const utils = await makeWorkerUtils({ connectionString: servers.pgUrl, maxPoolSize: 1 });
    try {
      await utils.withPgClient((c) => c.query(`drop schema if exists "${name}" cascade`));
    } finally {
      await utils.release();
    }
    return;
  }
  const queue = new Queue(name, { connection: { ...servers.redis, maxRetriesPerRequest: null } });
  try {
    await queue.obliterate({ force: true });
  } finally {
    await queue.close();
  }
}

/** Runs one peer with `workers` worker processes from start to stop. */
export async function runPeer(peer: PeerId, workers: number, s: PeerSettings): Promise<PeerResult> {
  const name = nameOf(peer, workers, s.runId);
  const spec: WorkerSpec = {
    peer,
    name,
    concurrency: Math.ceil(s.concurrency / workers),
    servers: s.servers,
  };
  const completions = new Completions();
  // The producer first: it installs graphile-worker's schema before the workers start.
  const jobs = await producer(spec);
  let pool: Workers | undefined;
  try {
    pool = await startWorkers(spec, workers, s.workersIn, (key, at) =>
      completions.ended(key, "complete", at - performance.timeOrigin),
    );
    let n = 0;
    const one: OneJob = async () => {
      const key = `${name}-${n++}`;
      const sent = performance.now();
      try {
        await jobs.start(key);
      } catch {
        return {};
      }
      const startMs = performance.now() - sent;
      const end = await completions.wait(key, 60_000).catch(() => ({ at: NaN, status: "timeout" }));
      return end.status === "complete" ? { startMs, completeMs: end.at - sent } : { startMs };
    };
    await warmLoop(one, { jobs: s.warmupJobs, ms: s.warmupMs, concurrency: s.concurrency });
    if (s.quietWaitS > 0) await waitQuiet(s.quietWaitS * 1000);

    const before = [...pool.ends];
    const cpu = watchCpu(childPids, ["redis-server", "postgres"]);
    const run = await closedLoop(one, s.jobs, s.concurrency, performance.now() + s.maxMs);
    const shares = cpu.stop();
    const endsPerWorker = pool.ends.map((e, i) => e - before[i]);
    const peak = run.completed / (run.wallMs / 1000);
    const pacedRate = openLoopRate(peak, s.pacedRate);
    const paced = s.pacedJobs > 0 && peak > 0 ? await pacedLoop(one, s.pacedJobs, pacedRate) : null;
    return {
      id: `${peer}-${workers}`,
      peer,
      workers,
      jobs: run.jobs,
      completed: run.completed,
      failed: run.failed,
      wallMs: Math.round(run.wallMs),
      transitionsPerSec: Math.round((run.completed * STEPS) / (run.wallMs / 1000)),
      jobsPerSec: Math.round(peak * 10) / 10,
      startToComplete: latency(run.latencies),
      thirds: thirds(run),
      startJob: latency(run.startLatencies),
      halfPeak: paced
        ? {
            ...latency(paced.latencies),
            jobsPerSec: Math.round(pacedRate * 10) / 10,
            wallMs: Math.round(paced.wallMs),
            failed: paced.failed,
          }
        : null,
      endsPerWorker,
      cpu: shares,
    };
  } finally {
    await pool?.stop();
    await jobs.close();
    await cleanUp(peer, name, s.servers).catch((err) => console.error(`cleaning ${name} up: ${err}`));
  }
}

export interface DelayedSettings {
  schedules: number;
  spreadMs: number;
  leadMs: number;
  servers: Servers;
  workersIn: PeerSettings["workersIn"];
  runId: string;
  /** Delayed jobs all workers together run at once. */
  concurrency: number;
}

/**
 * The schedules workload on BullMQ: one delayed job per schedule, due evenly over the spread, fired
 * by `workers` worker processes. The lag of a schedule is its job's start in a worker's processor
 * minus its due time, as ours is its job's creation minus its due time.
 */
export async function runBullDelayed(workers: number, s: DelayedSettings): Promise<ScheduleResult> {
  const name = nameOf("bullmq-delayed", workers, s.runId);
  const spec: WorkerSpec = {
    peer: "bullmq-delayed",
    name,
    concurrency: Math.ceil(s.concurrency / workers),
    servers: s.servers,
  };
  const fires = new Map<string, number[]>();
  const queue = new Queue(name, { connection: { ...s.servers.redis, maxRetriesPerRequest: null } });
  let pool: Workers | undefined;
  try {
    pool = await startWorkers(spec, workers, s.workersIn, (key, at) => {
      const list = fires.get(key);
      if (list) list.push(at);
      else fires.set(key, [at]);
    });
    process.stdout.write(`- BullMQ delayed jobs, ${workers} worker(s): adding ${s.schedules} ... `);
    const firstDue = Date.now() + s.leadMs;
    const due = new Map<string, number>();
    for (let i = 0; i < s.schedules; i += 1000) {
      const batch = Array.from({ length: Math.min(1000, s.schedules - i) }, (_, j) => {
        const key = `s${i + j}`;
        const at = firstDue + Math.floor(((i + j) * s.spreadMs) / s.schedules);
        due.set(key, at);
        return { name: "fire", data: { key }, opts: { delay: Math.max(0, at - Date.now()) } };
      });
      await queue.addBulk(batch);
    }
    process.stdout.write("firing ... ");
    const last = Math.max(...due.values());
    while (Date.now() < last + 60_000 && (fires.size < s.schedules || Date.now() < last)) {
      await new Promise((r) => setTimeout(r, 250));
    }
    await new Promise((r) => setTimeout(r, 2000)); // a late duplicate would show up here
    const lags = [...fires].map(([key, at]) => Math.min(...at) - due.get(key)!);
    const result: ScheduleResult = {
      id: `bullmq-delayed-${workers}`,
      replicas: workers,
      schedules: s.schedules,
      fired: [...fires.values()].reduce((sum, at) => sum + at.length, 0),
      duplicates: [...fires.values()].filter((at) => at.length > 1).length,
      missed: [...due.keys()].filter((key) => !fires.has(key)).length,
      lag: { ...latency(lags), maxMs: lags.length ? Math.max(...lags) : NaN },
    };
    console.log(
      `lag p50 ${result.lag.p50Ms} ms, p99 ${result.lag.p99Ms} ms, max ${result.lag.maxMs} ms; ` +
        `${result.duplicates} duplicate, ${result.missed} missed`,
    );
    return result;
  } finally {
    await pool?.stop();
    await queue.close();
    await cleanUp("bullmq-delayed", name, s.servers).catch((err) =>
      console.error(`cleaning ${name} up: ${err}`),
    );
  }
}
