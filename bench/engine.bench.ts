/**
 * Workflow engine throughput: `npm run bench:engine` (docs/engine.md).
 *
 * Jobs of a 10-task automatic workflow (each task calls `benchtask.noop`, a no-op action) started
 * over HTTP, BENCH_CONCURRENCY at a time, each awaited until its `engine.jobChanges` event says
 * complete; then finishTask over HTTP on jobs waiting at a manual task. Three shapes:
 *   in-process  every service on one broker, embedded store (the default deployment)
 *   nats        store in one process, two engine replicas in two more, gateway + accounts + the
 *               no-op service in this one, all over NATS (the load in a child process)
 *   nats-local  the same with the no-op service in each engine's process as well, where each
 *               replica calls it: a worker with its processor, as the peers' workers are
 * Reports task transitions/s (tasks run to completion per second), jobs/s, start-to-complete
 * p50/p99 and finishTask p50/p99, with the CPU share other processes on the machine used meanwhile,
 * how busy the machine was, and the CPU a transition cost the run's processes and nats-server
 * (support/cpu.ts cpuUsPer): with the machine near 100 % busy, a shape is bound by CPU. Then, a
 * line per shape, the same CPU by process and by kind of thread (the event loop, V8's helpers,
 * worker threads, libuv's pool: support/cpu.ts threadKind), in the results as `cpuByRole`.
 * Table on stdout, JSON in bench/results/engine.json.
 *
 * Then, open loop, BENCH_PACED_JOBS jobs started at half the peak jobs/s just measured (or at
 * BENCH_PACED_RATE jobs/s when set above 0, the same load for every build of an A/B): the
 * start-to-complete p99 at that load (the issue's aim: under 100 ms).
 * The load's HTTP client runs in its own process (./engine/load-child.ts) unless BENCH_CLIENT=same.
 * Env: BENCH_JOBS (1500), BENCH_NATS_JOBS (800, both NATS shapes), BENCH_CONCURRENCY (32), BENCH_FINISH (400, 0 skips), BENCH_PACED_JOBS (500),
 * BENCH_WARMUP_JOBS (100, at least), BENCH_WARMUP_S (10, at least), BENCH_MAX_S (per measured run, 120), BENCH_QUIET_WAIT (s, 20),
 * BENCH_ONLY (in-process,nats,nats-local), BENCH_PROFILE_DIR (children write CPU profiles there), NATS_URL,
 * BENCH_SERIALIZER (the bus serializer of every process of the NATS shape: the platform's SERIALIZER).
 */
import { writeResults } from "./support/report";
import { scratchSpace, stopAllChildren } from "./support/children";
import { runBench } from "./support/main";
import { TASKS_PER_JOB, openLoopName, overPeak } from "./engine/workload";
import { runOurs, type OursResult, type OursSettings, type Shape } from "./engine/ours";
import { intEnv } from "./support/env";
import { roleCpuText } from "./support/cpu";

const JOBS = intEnv("BENCH_JOBS", 1500, 10);
const NATS_JOBS = intEnv("BENCH_NATS_JOBS", 800, 10);
const CONCURRENCY = intEnv("BENCH_CONCURRENCY", 32, 1);
const FINISH = intEnv("BENCH_FINISH", 400, 0);
const ONLY = process.env.BENCH_ONLY?.split(",").map((s) => s.trim());

/** The aims of the engine issue, in task transitions per second. */
const AIMS: Record<Shape, number> = { "in-process": 5000, nats: 2000, "nats-local": 2000 };
/** The performance issue's latency aim: p99 start-to-complete at half the peak rate. */
const AIM_HALF_PEAK_P99_MS = 100;
/**
 * Where the load's HTTP client runs: `child` (default), its own process, as bench:gateway runs
 * autocannon; `same`, on the platform's event loop in this process (the bench's earlier way).
 */
const CLIENT = process.env.BENCH_CLIENT === "same" ? "same" : "child";

const settings: OursSettings = {
  jobs: JOBS,
  concurrency: CONCURRENCY,
  finish: FINISH,
  warmupJobs: intEnv("BENCH_WARMUP_JOBS", 100, 1),
  warmupMs: intEnv("BENCH_WARMUP_S", 10, 0) * 1000,
  maxMs: intEnv("BENCH_MAX_S", 120, 5) * 1000,
  quietWaitS: intEnv("BENCH_QUIET_WAIT", 20, 0),
  pacedJobs: intEnv("BENCH_PACED_JOBS", 500, 0),
  pacedRate: intEnv("BENCH_PACED_RATE", 0, 0),
  client: CLIENT,
  natsUrl: process.env.NATS_URL || "nats://127.0.0.1:4222",
  runId: `engine-bench-${process.pid}-${Date.now().toString(36)}`,
  dataDir: scratchSpace("engine-bench-"),
  env: process.env.BENCH_SERIALIZER ? { SERIALIZER: process.env.BENCH_SERIALIZER } : undefined,
};

/** What the open loop ran at: half of each shape's peak, or BENCH_PACED_RATE for all. */
const OPEN_LOOP = openLoopName(settings.pacedRate);

type Result = OursResult & { aimTransitionsPerSec: number };

const results: Result[] = [];

async function run(shape: Shape): Promise<void> {
  const jobs = shape === "in-process" ? JOBS : NATS_JOBS;
  const result: Result = {
    ...(await runOurs(shape, { ...settings, jobs })),
    aimTransitionsPerSec: AIMS[shape],
  };
  results.push(result);
  const shares = result.cpu;
  const noisy =
    (shares?.others ?? 0) > 0.1
      ? ` (other processes used ${Math.round(shares!.others! * 100)}% CPU: noisy)`
      : "";
  console.log(
    `${result.transitionsPerSec} transitions/s, ${result.jobsPerSec} jobs/s, ` +
      `p99 ${result.startToComplete.p99Ms} ms (startJob p99 ${result.startJob.p99Ms} ms); ` +
      `finishTask p99 ${result.finishTask.p99Ms} ms${noisy}` +
      (result.halfPeak
        ? `; ${OPEN_LOOP} (${result.halfPeak.jobsPerSec} jobs/s) start-to-complete p99 ${result.halfPeak.p99Ms} ms (aim < ${AIM_HALF_PEAK_P99_MS})${overPeak(result)}`
        : ""),
  );
  if (result.failed > 0 || result.finishTask.failed > 0)
    console.log(`  ! ${result.failed} jobs and ${result.finishTask.failed} finishTask calls failed`);
}

function report(): void {
  console.log(
    `\n| shape | transitions/s (aim) | jobs/s | start-to-complete p50 / p99 | ${OPEN_LOOP} p50 / p99 (aim p99 < 100) | finishTask p50 / p99 | others' CPU | machine busy | CPU a transition |`,
  );
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const r of results) {
    const others = r.cpu?.others == null ? "n/a" : `${Math.round(r.cpu.others * 100)}%`;
    const busy = r.cpu ? `${Math.round(r.cpu.machine * 100)}%` : "n/a";
    const perTransition = r.cpuUsPerTransition == null ? "n/a" : `${r.cpuUsPerTransition} µs`;
    console.log(
      `| ${r.label} | ${r.transitionsPerSec} (${r.aimTransitionsPerSec}) | ${r.jobsPerSec} | ` +
        `${r.startToComplete.p50Ms} / ${r.startToComplete.p99Ms} ms | ` +
        `${r.halfPeak ? `${r.halfPeak.p50Ms} / ${r.halfPeak.p99Ms} ms at ${r.halfPeak.jobsPerSec} jobs/s` : "n/a"} | ` +
        `${r.finishTask.p50Ms} / ${r.finishTask.p99Ms} ms | ${others} | ${busy} | ${perTransition} |`,
    );
  }
  for (const r of results)
    if (r.cpuByRole)
      console.log(
        `CPU µs a transition by process and thread, ${r.id}: ` +
          Object.entries(r.cpuByRole)
            .map(([role, cpu]) => roleCpuText(role, cpu))
            .join("; "),
      );
  writeResults("engine", {
    settings: {
      jobs: JOBS,
      natsJobs: NATS_JOBS,
      concurrency: CONCURRENCY,
      finishTasks: FINISH,
      pacedJobs: settings.pacedJobs,
      pacedRate: settings.pacedRate,
      tasksPerJob: TASKS_PER_JOB,
      client: CLIENT,
    },
    results,
  });
}

async function main(): Promise<void> {
  const wanted = (id: string) => !ONLY || ONLY.includes(id);
  try {
    if (wanted("in-process")) await run("in-process");
    if (wanted("nats")) await run("nats");
    if (wanted("nats-local")) await run("nats-local");
  } finally {
    await stopAllChildren();
  }
  report();
  const missed = results.filter((r) => r.transitionsPerSec < r.aimTransitionsPerSec || r.failed > 0);
  if (missed.length > 0) console.log(`aim missed: ${missed.map((r) => r.id).join(", ")}`);
}

runBench(main);
