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
 * event loop's longest stall meanwhile.
 *
 *   npm run build && node dist/bench/store-compaction.bench.js        (BENCH_JOBS=5000,20000)
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EmbeddedBackend } from "../shared/store/embedded/backend";
import { runBench } from "./support/main";

const SIZES = (process.env.BENCH_JOBS ?? "5000,20000").split(",").map(Number);
const CHUNK = 500;

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

async function measure(jobs: number): Promise<string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-compaction-"));
  try {
    const seeding = new EmbeddedBackend({ dataDir, compactBytes: Number.MAX_SAFE_INTEGER });
    for (let k = 0; k < jobs; k += CHUNK)
      await seeding
        .collection("jobs")
        .insertMany(Array.from({ length: Math.min(CHUNK, jobs - k) }, (_, j) => finishedJob(k + j)));
    await seeding.close();

    const store = new EmbeddedBackend({ dataDir, compactBytes: 1 });
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
    await store.collection("jobs").insertOne(finishedJob(jobs));
    const insertMs = performance.now() - started;
    await store.compacted();
    const compactionMs = performance.now() - started;
    const used = process.threadCpuUsage(cpu);
    await new Promise((resolve) => setTimeout(resolve, 20));
    clearInterval(probe);
    await store.close();
    return (
      `${jobs} jobs: the compacting insert took ${insertMs.toFixed(0)} ms, the compaction ${compactionMs.toFixed(0)} ms; ` +
      `the store's thread's CPU meanwhile ${((used.user + used.system) / 1000).toFixed(0)} ms; ` +
      `longest event-loop stall ${stall.toFixed(0)} ms`
    );
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  for (const jobs of SIZES) console.log(await measure(jobs));
}

runBench(main);
