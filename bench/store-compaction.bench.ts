/**
 * bench:store-compaction: how long the embedded store's compaction holds the event loop.
 *
 * The embedded store appends every write to its log; once the log passes its threshold (64 MiB)
 * the write that crossed it starts a compaction. It used to rewrite every collection synchronously,
 * a cost that grew with everything stored; then it wrote the snapshot a chunk per turn of the
 * event loop; now it rotates the log and a worker thread writes the snapshot from the files
 * (shared/store/embedded/compaction.ts). This bench stores BENCH_JOBS
 * finished jobs of about 6 KB (bench:engine's shape),
 * reopens the store with a threshold of one byte, and times the one insert that compacts and the
 * compaction it starts, with the store's thread's CPU time over both and a 1 ms timer measuring the
 * event loop's longest stall meanwhile. Then, with that snapshot in place, it stores BENCH_NEW (1,000)
 * jobs more and times the next compaction: the steady state, a big snapshot and a log of recent
 * writes, where a document no write touched is copied as its snapshot line (eleventh round).
 * Last, a log as the engine writes it: BENCH_STEPPED_JOBS (3,000; 0 skips it) jobs inserted and
 * then stepped through their 10 tasks by compare-and-sets (bench/engine/transition-fixture.ts),
 * each logged as the members it changed: the store's opening over that log (its load, three times),
 * then the compaction of that log (eighteenth round: a load applies a document's patches once, a
 * compaction replays them in place, their paths split once).
 *
 *   npm run build && node dist/bench/store-compaction.bench.js        (BENCH_JOBS=5000,20000)
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EmbeddedBackend } from "../shared/store/embedded/backend";
import { benchJob, transitionSet } from "./engine/transition-fixture";
import { runBench } from "./support/main";

const SIZES = (process.env.BENCH_JOBS ?? "5000,20000").split(",").map(Number);
const CHUNK = 500;
const NEW_JOBS = Number(process.env.BENCH_NEW ?? 1000);
const STEPPED_JOBS = Number(process.env.BENCH_STEPPED_JOBS ?? 3000);
const STEPS = 10;

/** A finished job of ten tasks, about 6 KB of JSON. */
function finishedJob(i: number) {
  const tasks: Record<string, unknown> = {};
  for (let t = 0; t < 10; t++)
    tasks[`t${t}`] = {
      status: "complete",
      app: "benchtask",
      name: "noop",
      variables: { incoming: { a: i, s: "x".repeat(200) }, outgoing: { r: "y".repeat(200) } },
      metrics: { start_time: "2026-11-25T00:00:00.000Z", end_time: "2026-11-25T00:00:01.000Z" },
    };
  return { _id: `job${i}`, name: "bench", status: "complete", tasks, variables: { i } };
}

/** Stores jobs `from` to `to - 1`, never compacting. */
async function seed(dataDir: string, from: number, to: number): Promise<void> {
  const seeding = new EmbeddedBackend({ dataDir, compactBytes: Number.MAX_SAFE_INTEGER });
  for (let k = from; k < to; k += CHUNK)
    await seeding
      .collection("jobs")
      .insertMany(Array.from({ length: Math.min(CHUNK, to - k) }, (_, j) => finishedJob(k + j)));
  await seeding.close();
}

/** Stores `jobs` running jobs and steps each through its tasks, a compare-and-set a step, never compacting. */
async function seedStepped(dataDir: string, jobs: number): Promise<void> {
  const seeding = new EmbeddedBackend({ dataDir, compactBytes: Number.MAX_SAFE_INTEGER });
  const coll = seeding.collection("jobs");
  for (let k = 0; k < jobs; k += CHUNK) {
    const batch = Array.from({ length: Math.min(CHUNK, jobs - k) }, (_, j) => benchJob(`s${k + j}`, k + j));
    await coll.insertMany(batch);
    for (let step = 0; step < STEPS; step++) {
      const written = await Promise.all(
        batch.map((job) => coll.updateVersioned!(job._id, step + 1, transitionSet(step))),
      );
      if (written.some((ok) => !ok)) throw new Error(`a compare-and-set of step ${step} missed`);
    }
  }
  await seeding.close();
}

async function measureStepped(jobs: number): Promise<string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-compaction-"));
  try {
    await seedStepped(dataDir, jobs);
    const logMb = fs.statSync(path.join(dataDir, "store", "store.log")).size / 2 ** 20;
    // A restart's load replays that log (load-replay.ts): timed on its own, best of three.
    const loads: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const opened = new EmbeddedBackend({ dataDir, compactBytes: Number.MAX_SAFE_INTEGER });
      loads.push(performance.now() - started);
      await opened.close();
    }
    const result = await compactOnce(dataDir, jobs + 1);
    return (
      `${jobs} jobs of ${STEPS} compare-and-sets each, a ${logMb.toFixed(1)} MiB log: opening the store took ` +
      `${loads.map((ms) => ms.toFixed(0)).join(", ")} ms; ${result}`
    );
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function measure(jobs: number): Promise<string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-compaction-"));
  try {
    await seed(dataDir, 0, jobs);
    const first = await compactOnce(dataDir, jobs);
    await seed(dataDir, jobs + 1, jobs + 1 + NEW_JOBS);
    const next = await compactOnce(dataDir, jobs + 1 + NEW_JOBS);
    return `${jobs} jobs, all in the log: ${first}\n  then ${NEW_JOBS} more in the log, beside that snapshot: ${next}`;
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Reopens the store with a one-byte threshold; one insert (job `id`) starts the compaction. With a
 * snapshot in place the threshold is the snapshot's size: a padding document first brings the log
 * to just under it, so the insert crosses it.
 */
async function compactOnce(dataDir: string, id: number): Promise<string> {
  {
    const store = new EmbeddedBackend({ dataDir, compactBytes: 1 });
    const file = (name: string) => path.join(dataDir, "store", name);
    const short = fs.existsSync(file("snapshot.json"))
      ? fs.statSync(file("snapshot.json")).size - fs.statSync(file("store.log")).size
      : 0;
    // Documents of at most 8 MiB: the store keeps MongoDB's 16 MiB bound.
    for (let left = short - 200; left > 0; left -= 8 << 20)
      await store.collection("padding").insertOne({ text: "x".repeat(Math.min(left, 8 << 20)) });
    let stall = 0;
    let last = performance.now();
    const probe = setInterval(() => {
      const now = performance.now();
      stall = Math.max(stall, now - last);
      last = now;
    }, 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = performance.now();
    const cpu = process.threadCpuUsage();
    await store.collection("jobs").insertOne(finishedJob(id));
    const insertMs = performance.now() - started;
    await store.compacted();
    const compactionMs = performance.now() - started;
    const used = process.threadCpuUsage(cpu);
    await new Promise((resolve) => setTimeout(resolve, 20));
    clearInterval(probe);
    await store.close();
    return (
      `the compacting insert took ${insertMs.toFixed(0)} ms, the compaction ${compactionMs.toFixed(0)} ms; ` +
      `the store's thread's CPU meanwhile ${((used.user + used.system) / 1000).toFixed(0)} ms; ` +
      `longest event-loop stall ${stall.toFixed(0)} ms`
    );
  }
}

async function main(): Promise<void> {
  for (const jobs of SIZES) console.log(await measure(jobs));
  if (STEPPED_JOBS > 0) console.log(await measureStepped(STEPPED_JOBS));
}

runBench(main);
