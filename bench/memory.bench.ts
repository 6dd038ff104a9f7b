/**
 * bench:memory: the embedded default's memory at rest and after many jobs (issue: performance).
 *
 * One process runs the whole platform (as `npm start` does) with a no-op task service. It measures
 * RSS and heap after a forced GC:
 *   - at rest, after start;
 *   - after BENCH_JOBS (100,000) jobs of BENCH_TASKS_PER_JOB no-op tasks, each started over the bus
 *     and waited for (BENCH_CONCURRENCY at a time);
 *   - again after BENCH_IDLE_S (10) idle seconds.
 * The embedded store keeps every document in memory (and appends it to its log), so the heap grows
 * with the stored jobs. The figure to watch is the growth per job against the stored JSON size of a
 * job: an overhead that stays flat means nothing else grows with the work. The process caches are
 * capped (engine job cache 5,000; caller cache; rate-limit windows) and are reported here.
 *
 *   npm run bench:memory            (node --expose-gc; BENCH_JOBS=20000 for a shorter run)
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { callAsPlatform } from "../shared/authorization";
import { platformEnv, startPlatform } from "./support/platform";
import { Completions, taskService, automaticWorkflow, AUTOMATIC_WORKFLOW } from "./engine/workload";
import { JOB_CACHE_SIZE } from "../services/engine/run/settings";
import { runBench } from "./support/main";
import { resultsDir } from "./support/report";

const JOBS = Number(process.env.BENCH_JOBS ?? 100_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 10);

const gc = (globalThis as { gc?: () => void }).gc;
const mib = (n: number) => (n / 1024 / 1024).toFixed(1);

async function settled(): Promise<{ rss: number; heap: number; heapTotal: number; external: number }> {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 100));
  }
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed, heapTotal: m.heapTotal, external: m.external };
}

async function main(): Promise<void> {
  if (!gc) throw new Error("run with node --expose-gc (npm run bench:memory does)");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-memory-"));
  const broker = await startPlatform(platformEnv({ DATA_DIR: dataDir }));
  const completions = new Completions();
  broker.createService(taskService());
  broker.createService(completions.service());
  await broker.waitForServices(["benchtask", "benchlistener", "engine"]);
  await callAsPlatform(broker, "engine.createWorkflow", { workflow: automaticWorkflow() });

  const rest = await settled();
  let peak = rest.rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 200);

  const started = performance.now();
  let next = 0;
  let failed = 0;
  const worker = async () => {
    while (next < JOBS) {
      next++;
      const job = await callAsPlatform(broker, "engine.startJob", {
        workflow: AUTOMATIC_WORKFLOW,
        options: {},
      });
      const end = await completions.wait(job._id, 60_000);
      if (end.status !== "complete") failed++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);

  const after = await settled();
  await new Promise((r) => setTimeout(r, IDLE_S * 1000));
  const idle = await settled();

  const sample = await callAsPlatform(broker, "engine.adminJobs", { queryParameters: { limit: 100 } });
  const jsonPerJob =
    sample.items.reduce((n: number, j: unknown) => n + JSON.stringify(j).length, 0) / sample.items.length;
  const runner = broker.getLocalService("engine") as unknown as {
    runner: { jobs: { cache: Map<string, unknown> } };
  };
  const cached = runner.runner?.jobs?.cache?.size;

  const perJob = (idle.heap - rest.heap) / JOBS;
  const rows = [
    ["at rest", rest],
    [`after ${JOBS.toLocaleString()} jobs`, after],
    [`after ${IDLE_S} s idle`, idle],
  ] as const;
  console.log(`\nbench:memory — ${JOBS.toLocaleString()} jobs of 10 no-op tasks, ${CONCURRENCY} at a time`);
  console.log(
    `  ${(JOBS / seconds).toFixed(0)} jobs/s (${((JOBS * 10) / seconds).toFixed(0)} task transitions/s), ${failed} not complete`,
  );
  console.log("  moment                   RSS MiB   heap used / total MiB   external MiB");
  for (const [label, m] of rows)
    console.log(
      `  ${label.padEnd(24)} ${mib(m.rss).padStart(7)}   ${`${mib(m.heap)} / ${mib(m.heapTotal)}`.padStart(21)}   ${mib(m.external).padStart(12)}`,
    );
  console.log(`  peak RSS while running    ${mib(peak)} MiB`);
  console.log(
    `  heap growth per stored job ${(perJob / 1024).toFixed(2)} KiB; a job's JSON is ${(jsonPerJob / 1024).toFixed(2)} KiB (ratio ${(perJob / jsonPerJob).toFixed(2)})`,
  );
  console.log(`  engine job cache: ${cached ?? "?"} entries (cap ${JOB_CACHE_SIZE})`);

  const out = resultsDir();
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(
    path.join(out, "memory.json"),
    JSON.stringify(
      { jobs: JOBS, seconds, failed, rest, after, idle, peak, perJob, jsonPerJob, cached },
      null,
      2,
    ),
  );
  await broker.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

runBench(main);
