/**
 * bench:engine's load in its own process (the default, BENCH_CLIENT=child), as bench:gateway runs
 * autocannon in its own: the HTTP client then never shares the platform's event loop. It signs in,
 * runs the closed or the paced loop of ./workload.ts, learns of each job's end from the bench
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
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? "{}") as Spec;
  const http = new Http(spec.base);
  await http.login(spec.password);
  const completions = new Completions();
  process.on("message", (m: { jobId: string; status: string; wallMs: number }) =>
    completions.ended(m.jobId, m.status, m.wallMs - performance.timeOrigin),
  );
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
