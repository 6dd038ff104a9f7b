/**
 * bench:store-gc: what the embedded store's cold documents (shared/store/embedded/doc-map.ts) buy
 * and cost, with BENCH_JOBS (20,000) finished jobs in the store.
 *
 * Two modes, each in a child process of its own (node --expose-gc), alternated BENCH_ROUNDS (3)
 * times, the same work in each:
 *   - cold:    the default: all but the newest 1,024 documents of a collection held as JSON text
 *              (BENCH_HOT_DOCUMENTS: another number of them);
 *   - objects: every document an object (hotDocuments: Infinity, as before the cold documents).
 * Each child writes the jobs as the engine does (an insert, then 10 versioned transitions of
 * transition-fixture.ts, BENCH_CONCURRENCY jobs at a time), then measures:
 *   - a full GC's pause on the store's thread (median of 5 `gc()` calls after the heap settled);
 *   - the heap used after it;
 *   - the writes' time per transition (the cold mode serializes each job once as it goes cold);
 *   - the job list's first page as the engine asks for it (newest first, 25: a read the indexes'
 *     fields cover, so the cold mode parses only the page), median of 5;
 *   - a scan: a count over every job on a field no index keeps (the cold mode parses each cold job);
 *   - an aggregation over every job on indexed fields (counts by workflow and status: the cold
 *     mode passes the skeletons, aggregate-plan.ts);
 *   - the job counts as `GET /workflow_engine/jobs/metrics` asks for them (JobRepository
 *     countsByWorkflow: it reads run times, which no index keeps), its time and the longest it held
 *     the event loop (a setImmediate chain beside it);
 * each read after a write to the jobs, so that no answer comes from the read cache.
 *   - a read by `_id` of the oldest jobs (a parse each, and the job an object again).
 * Ratios are cold / objects of one run; the figures of both modes are printed beside them.
 *
 *   npm run bench:store-gc            (BENCH_JOBS=5000 BENCH_ROUNDS=1 for a short run)
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EmbeddedBackend } from "../shared/store/embedded/backend";
import { JobRepository } from "../services/engine/jobs.repository";
import { benchJob, transitionSet } from "./engine/transition-fixture";
import { percentile } from "./engine/stats";
import { runBench } from "./support/main";
import { writeResults } from "./support/report";

const JOBS = Number(process.env.BENCH_JOBS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const STEPS = 10;
const READS = 1000;
/** The cold mode's documents held as objects (unset: the store's default, HOT_DOCUMENTS). */
const HOT = process.env.BENCH_HOT_DOCUMENTS ? Number(process.env.BENCH_HOT_DOCUMENTS) : undefined;

type Mode = "cold" | "objects";

interface Figures {
  mode: Mode;
  gcMs: number;
  heapMiB: number;
  coldDocs: number;
  writeUsPerTransition: number;
  listMs: number;
  scanMs: number;
  aggregateMs: number;
  jobCountsMs: number;
  jobCountsHoldMs: number;
  readUsPerDoc: number;
}

const gc = (globalThis as { gc?: () => void }).gc;

/** One job's life as the engine writes it: the insert, then STEPS compare-and-set transitions. */
async function runJob(store: EmbeddedBackend, j: number): Promise<void> {
  const jobs = store.collection("jobs");
  const _id = `job-${j}`;
  await jobs.insertOne(benchJob(_id, j));
  for (let step = 0; step < STEPS; step++) {
    const written = await jobs.updateOne(
      { _id, version: step + 1 },
      {
        $set: { ...transitionSet(step), status: step === STEPS - 1 ? "complete" : "running" },
        $inc: { version: 1 },
      },
    );
    if (written.modifiedCount !== 1) throw new Error(`job ${_id} lost its write at step ${step}`);
  }
}

async function child(mode: Mode): Promise<Figures> {
  if (!gc) throw new Error("run with node --expose-gc (npm run bench:store-gc does)");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-store-gc-"));
  const store = new EmbeddedBackend({ dataDir, hotDocuments: mode === "cold" ? HOT : Infinity });
  try {
    // The job repository's indexes (services/engine/jobs.repository.ts), as the engine declares them.
    const repository = new JobRepository(store);
    await repository.ensureIndexes();
    let next = 0;
    const writeStart = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < JOBS) await runJob(store, next++);
      }),
    );
    const writeUsPerTransition = ((performance.now() - writeStart) * 1000) / (JOBS * STEPS);
    for (let i = 0; i < 3; i++) gc();
    const pauses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      gc();
      pauses.push(performance.now() - start);
    }
    const heapMiB = process.memoryUsage().heapUsed / 1024 / 1024;
    const jobs = store.collection("jobs");
    // A write first: the read cache answers a repeated read of an unchanged collection.
    let touched = 0;
    const touch = () => jobs.updateOne({ _id: `job-${JOBS - 1}` }, { $set: { touched: ++touched } });
    const lists: number[] = [];
    for (let i = 0; i < 5; i++) {
      await touch();
      const start = performance.now();
      const page = await jobs.find({}, { sort: { "metrics.start_time": -1, _id: -1 }, limit: 25 });
      lists.push(performance.now() - start);
      if (page.length !== 25) throw new Error(`the list answered ${page.length} jobs`);
    }
    const listMs = percentile(lists, 50);
    await touch();
    const scanStart = performance.now();
    const complete = await jobs.count({ "tasks.t10.status": "complete" });
    const scanMs = performance.now() - scanStart;
    if (complete !== JOBS) throw new Error(`the scan counted ${complete} finished jobs of ${JOBS}`);
    // Once untimed first: the first aggregation past 500 rows starts the store's aggregation
    // thread (aggregate-input.ts), about 0.2 s that a running platform pays once.
    const byWorkflowPipeline = [
      {
        $group: {
          _id: "$workflow.name",
          total: { $sum: 1 },
          complete: { $sum: { $cond: [{ $eq: ["$status", "complete"] }, 1, 0] } },
        },
      },
    ];
    await jobs.aggregate(byWorkflowPipeline);
    await touch();
    const aggregateStart = performance.now();
    const byWorkflow = await jobs.aggregate<{ total: number }>(byWorkflowPipeline);
    const aggregateMs = performance.now() - aggregateStart;
    if (byWorkflow[0]?.total !== JOBS)
      throw new Error(`the aggregation counted ${byWorkflow[0]?.total} jobs`);
    await touch();
    const counts = await longestHold(() => repository.countsByWorkflow({ order: 1, skip: 0, limit: 100 }));
    if (counts.result.page[0]?.total !== JOBS)
      throw new Error(`the job counts counted ${counts.result.page[0]?.total} jobs`);
    const readStart = performance.now();
    for (let j = 0; j < Math.min(READS, JOBS); j++) await jobs.findOne({ _id: `job-${j}` });
    const readUsPerDoc = ((performance.now() - readStart) * 1000) / Math.min(READS, JOBS);
    return {
      mode,
      gcMs: percentile(pauses, 50),
      heapMiB,
      coldDocs: store.table("jobs").docs.coldCount,
      writeUsPerTransition,
      listMs,
      scanMs,
      aggregateMs,
      jobCountsMs: counts.ms,
      jobCountsHoldMs: counts.holdMs,
      readUsPerDoc,
    };
  } finally {
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `work`'s time, and the longest the event loop went without a turn meanwhile (a setImmediate chain). */
async function longestHold<T>(work: () => Promise<T>): Promise<{ result: T; ms: number; holdMs: number }> {
  let last = performance.now();
  let holdMs = 0;
  let running = true;
  const turn = () => {
    const now = performance.now();
    holdMs = Math.max(holdMs, now - last);
    last = now;
    if (running) setImmediate(turn);
  };
  setImmediate(turn);
  const start = performance.now();
  const result = await work();
  const ms = performance.now() - start;
  running = false;
  // The stretch that ended with the answer counts too.
  holdMs = Math.max(holdMs, performance.now() - last);
  return { result, ms, holdMs };
}

function runChild(mode: Mode): Promise<Figures> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ["--expose-gc", __filename], {
      env: { ...process.env, BENCH_STORE_GC_CHILD: mode },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    proc.stdout.on("data", (chunk) => (out += chunk));
    proc.on("error", reject);
    proc.on("exit", (code) =>
      code === 0
        ? resolve(JSON.parse(out) as Figures)
        : reject(new Error(`the ${mode} child exited ${code}`)),
    );
  });
}

async function main(): Promise<void> {
  const childMode = process.env.BENCH_STORE_GC_CHILD as Mode | undefined;
  if (childMode) {
    process.stdout.write(JSON.stringify(await child(childMode)));
    return;
  }
  console.log(
    `bench:store-gc: ${JOBS} finished jobs of ${STEPS} transitions, ${ROUNDS} rounds, modes alternated`,
  );
  const row = (f: Figures) =>
    `${f.mode.padEnd(8)} full GC ${f.gcMs.toFixed(1).padStart(7)} ms  heap ${f.heapMiB.toFixed(0).padStart(5)} MiB` +
    `  cold ${String(f.coldDocs).padStart(6)}  write ${f.writeUsPerTransition.toFixed(1).padStart(5)} µs/transition` +
    `  list ${f.listMs.toFixed(1).padStart(6)} ms  scan ${f.scanMs.toFixed(0).padStart(5)} ms  aggregate ${f.aggregateMs.toFixed(0).padStart(5)} ms  job counts ${f.jobCountsMs.toFixed(0).padStart(5)} ms (loop held ${f.jobCountsHoldMs.toFixed(0).padStart(4)} ms)  read by _id ${f.readUsPerDoc.toFixed(1).padStart(5)} µs`;
  const rounds: { cold: Figures; objects: Figures }[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const order: Mode[] = round % 2 ? ["cold", "objects"] : ["objects", "cold"];
    const figures = new Map<Mode, Figures>();
    for (const mode of order) figures.set(mode, await runChild(mode));
    const cold = figures.get("cold")!;
    const objects = figures.get("objects")!;
    rounds.push({ cold, objects });
    console.log(`round ${round}`);
    console.log(`  ${row(cold)}`);
    console.log(`  ${row(objects)}`);
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
    console.log(
      `  cold / objects: full GC ${ratio(cold.gcMs, objects.gcMs)}, heap ${ratio(cold.heapMiB, objects.heapMiB)}, ` +
        `write ${ratio(cold.writeUsPerTransition, objects.writeUsPerTransition)}, list ${ratio(cold.listMs, objects.listMs)}, scan ${ratio(cold.scanMs, objects.scanMs)}, ` +
        `aggregate ${ratio(cold.aggregateMs, objects.aggregateMs)}, job counts ${ratio(cold.jobCountsMs, objects.jobCountsMs)}, ` +
        `read by _id ${ratio(cold.readUsPerDoc, objects.readUsPerDoc)}`,
    );
  }
  writeResults("store-gc", { jobs: JOBS, hotDocuments: HOT ?? "default", rounds });
}

runBench(main);
