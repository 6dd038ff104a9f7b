"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * bench:engine's load in its own process (the default, BENCH_CLIENT=child), as bench:gateway runs
 * autocannon in its own: the HTTP client then never shares the platform's event loop. It signs in,
 * runs the closed or the paced loop of ./workload.ts, learns of each job's end from the bench
 * process over IPC (wall-clock stamps), and answers the loop's figures over IPC.
 *   node load-child.js '{"base", "password", "mode": "closed" | "paced", "jobs", "concurrency", "perSecond", "maxMs"}'
 */
const workload_1 = require("./workload");
async function main() {
    const spec = JSON.parse(process.argv[2] ?? "{}");
    const http = new workload_1.Http(spec.base);
    await http.login(spec.password);
    const completions = new workload_1.Completions();
    process.on("message", (m) => completions.ended(m.jobId, m.status, m.wallMs - performance.timeOrigin));
    const run = spec.mode === "paced"
        ? await (0, workload_1.runPacedJobs)(http, completions, spec.jobs, spec.perSecond)
        : await (0, workload_1.runJobs)(http, completions, spec.jobs, spec.concurrency, performance.now() + spec.maxMs);
    process.send({ result: run }, () => process.exit(0));
}
main().catch((err) => {
    console.error(err);
    process.exit(1);
});
//# sourceMappingURL=load-child.js.map