/**
 * The engine's CPU cost per task transition, in one process (`node dist/bench/engine/cpu.bench.js`):
 * the whole platform on one broker with the embedded store, jobs of the bench workload (10 no-op
 * tasks) started over the bus, BENCH_CONCURRENCY (32) at a time, each awaited until its
 * `engine.jobChanges` event says complete. Reports the process's CPU time (user + system, GC
 * threads included) per transition over the measured jobs. CPU time, not wall time: on a shared
 * machine other processes' load slows a run down, but barely changes the work it does.
 *
 * Each round also prints the main thread's own CPU per transition (process.threadCpuUsage: the part
 * that bounds throughput, without the store's compaction thread and V8's helper threads), its GC
 * pauses (scavenges and mark-compacts, ms) and the heap used at its end, so a long run
 * (BENCH_JOBS=30000 BENCH_ROUNDS=10) shows what a growing store costs.
 *
 * Env: BENCH_JOBS (2000), BENCH_WARMUP_JOBS (300), BENCH_CONCURRENCY (32), BENCH_ROUNDS (3: the
 * measured jobs in rounds, each reported, the lowest is the figure), BENCH_JOB_VARIABLES_KB (0:
 * each job started with that many KiB of job variables, ./job-variables.ts).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { constants, PerformanceObserver } from "node:perf_hooks";
import { callAsPlatform } from "../../shared/authorization";
import { platformEnv, startPlatform } from "../support/platform";
import { Completions, taskService, automaticWorkflow, AUTOMATIC_WORKFLOW, TASKS_PER_JOB } from "./workload";
import { intEnv } from "../support/env";
import { runBench } from "../support/main";
import { jobStartOptions } from "./job-variables";

const JOBS = intEnv("BENCH_JOBS", 2000, 10);
const WARMUP = intEnv("BENCH_WARMUP_JOBS", 300, 0);
const CONCURRENCY = intEnv("BENCH_CONCURRENCY", 32, 1);
const ROUNDS = intEnv("BENCH_ROUNDS", 3, 1);

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-engine-cpu-"));
  try {
    const broker = await startPlatform(platformEnv({ DATA_DIR: dataDir }));
    const completions = new Completions();
    broker.createService(taskService());
    broker.createService(completions.service());
    await broker.waitForServices(["benchtask", "benchlistener", "engine"]);
    await callAsPlatform(broker, "engine.createWorkflow", { workflow: automaticWorkflow() });

    const run = async (jobs: number) => {
      let next = 0;
      let failed = 0;
      const worker = async () => {
        while (next < jobs) {
          next++;
          const job = await callAsPlatform(broker, "engine.startJob", {
            workflow: AUTOMATIC_WORKFLOW,
            options: jobStartOptions(),
          });
          const end = await completions.wait(job._id, 60_000);
          if (end.status !== "complete") failed++;
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      if (failed > 0) throw new Error(`${failed} jobs did not complete`);
    };

    const pauses = { minor: 0, major: 0 };
    const gc = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind;
        if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) pauses.major += entry.duration;
        else pauses.minor += entry.duration;
      }
    });
    gc.observe({ entryTypes: ["gc"] });

    if (WARMUP > 0) await run(WARMUP);
    const figures: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const jobs = Math.ceil(JOBS / ROUNDS);
      const cpu = process.cpuUsage();
      const mainCpu = process.threadCpuUsage();
      pauses.minor = pauses.major = 0;
      const started = performance.now();
      await run(jobs);
      const used = process.cpuUsage(cpu);
      const mainUsed = process.threadCpuUsage(mainCpu);
      const wallS = (performance.now() - started) / 1000;
      const transitions = jobs * TASKS_PER_JOB;
      const perTransition = (used.user + used.system) / transitions;
      figures.push(perTransition);
      console.log(
        `round ${round + 1}: ${jobs} jobs, ${perTransition.toFixed(1)} µs CPU per transition ` +
          `(user ${(used.user / transitions).toFixed(1)}; main thread ` +
          `${((mainUsed.user + mainUsed.system) / transitions).toFixed(1)}), ${Math.round(transitions / wallS)} transitions/s wall; ` +
          `GC ${Math.round(pauses.minor)} ms scavenges, ${Math.round(pauses.major)} ms mark-compacts; ` +
          `heap used ${Math.round(process.memoryUsage().heapUsed / 2 ** 20)} MiB`,
      );
    }
    console.log(`lowest: ${Math.min(...figures).toFixed(1)} µs CPU per transition`);
    gc.disconnect();
    await broker.stop();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

runBench(main);
