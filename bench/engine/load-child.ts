/**
 * bench:engine's load in its own process (the default, BENCH_CLIENT=child), as bench:gateway runs
 * autocannon in its own: the HTTP client then never shares the platform's event loop. It signs in,
 * warms itself up (a short closed loop: the platform is warm by then, this process is new), runs
 * the closed or the paced loop of ./workload.ts, learns of each job's end from the bench
 * process over IPC (wall-clock stamps), and answers the loop's figures over IPC.
 *   node load-child.js '{"base", "password", "mode": "closed" | "paced", "jobs", "concurrency", "perSecond", "maxMs"}'
 */
import { Completions, Http, runJobs, runPacedJobs } from "./workload";

interface Spec {
  base: string;
  password: string;
  mode: "closed" | "paced";
  jobs: number;
  concurrency: number;
  perSecond: number;
  maxMs: number;
  /** The closed loop run first, unmeasured, so this process's own code is warm (../engine/ours.ts). */
  warmupMs: number;
  warmupConcurrency: number;
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? "{}") as Spec;
  const http = new Http(spec.base);
  await http.login(spec.password);
  const completions = new Completions();
  process.on("message", (m: { jobId?: string; status: string; wallMs: number }) => {
    if (m.jobId) completions.ended(m.jobId, m.status, m.wallMs - performance.timeOrigin);
  });
  if (spec.warmupMs > 0)
    await runJobs(http, completions, Infinity, spec.warmupConcurrency, performance.now() + spec.warmupMs);
  // Warm: the bench starts its measures (CPU shares, stages), then says go.
  const go = new Promise<void>((resolve) =>
    process.on("message", (m: { go?: true }) => {
      if (m.go) resolve();
    }),
  );
  process.send!({ warm: true });
  await go;
  const run =
    spec.mode === "paced"
      ? await runPacedJobs(http, completions, spec.jobs, spec.perSecond)
      : await runJobs(http, completions, spec.jobs, spec.concurrency, performance.now() + spec.maxMs);
  process.send!({ result: run }, () => process.exit(0));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
