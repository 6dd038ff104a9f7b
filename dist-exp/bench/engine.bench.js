"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Workflow engine throughput: `npm run bench:engine` (docs/engine.md).
 *
 * Jobs of a 10-task automatic workflow (each task calls `benchtask.noop`, a no-op action) started
 * over HTTP, BENCH_CONCURRENCY at a time, each awaited until its `engine.jobChanges` event says
 * complete; then finishTask over HTTP on jobs waiting at a manual task. Two shapes:
 *   in-process  every service on one broker, embedded store (the default deployment)
 *   nats        store in one process, two engine replicas in two more, gateway + accounts + the
 *               no-op service + the load in this one, all over NATS
 * Reports task transitions/s (tasks run to completion per second), jobs/s, start-to-complete
 * p50/p99 and finishTask p50/p99, with the CPU share other processes on the machine used meanwhile.
 * Table on stdout, JSON in bench/results/engine.json.
 *
 * Then, open loop, BENCH_PACED_JOBS jobs started at half the peak jobs/s just measured: the
 * start-to-complete p99 at that load (the issue's aim: under 100 ms).
 * The load's HTTP client runs in its own process (./engine/load-child.ts) unless BENCH_CLIENT=same.
 * Env: BENCH_JOBS (1500), BENCH_NATS_JOBS (800), BENCH_CONCURRENCY (32), BENCH_FINISH (400), BENCH_PACED_JOBS (500),
 * BENCH_WARMUP_JOBS (100), BENCH_MAX_S (per measured run, 120), BENCH_QUIET_WAIT (s, 20),
 * BENCH_ONLY (in-process,nats), BENCH_PROFILE_DIR (children write CPU profiles there), NATS_URL.
 */
const node_fs_1 = __importDefault(require("node:fs"));
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const children_1 = require("./support/children");
const cpu_1 = require("./support/cpu");
const platform_1 = require("./support/platform");
const stats_1 = require("./engine/stats");
const workload_1 = require("./engine/workload");
const env_1 = require("./support/env");
const JOBS = (0, env_1.intEnv)("BENCH_JOBS", 1500, 10);
const NATS_JOBS = (0, env_1.intEnv)("BENCH_NATS_JOBS", 800, 10);
const CONCURRENCY = (0, env_1.intEnv)("BENCH_CONCURRENCY", 32, 1);
const FINISH = (0, env_1.intEnv)("BENCH_FINISH", 400, 10);
const WARMUP = (0, env_1.intEnv)("BENCH_WARMUP_JOBS", 100, 1);
const MAX_MS = (0, env_1.intEnv)("BENCH_MAX_S", 120, 5) * 1000;
const QUIET_WAIT_S = (0, env_1.intEnv)("BENCH_QUIET_WAIT", 20, 0);
const NATS_URL = process.env.NATS_URL || "nats://127.0.0.1:4222";
const ONLY = process.env.BENCH_ONLY?.split(",").map((s) => s.trim());
const RUN_ID = `engine-bench-${process.pid}-${Date.now().toString(36)}`;
/** The aims of the engine issue, in task transitions per second. */
const AIMS = { "in-process": 5000, nats: 2000 };
/** The performance issue's latency aim: p99 start-to-complete at half the peak rate. */
const AIM_HALF_PEAK_P99_MS = 100;
/** Jobs of the paced run at half the peak rate (0 skips it). */
const PACED_JOBS = (0, env_1.intEnv)("BENCH_PACED_JOBS", 500, 0);
/**
 * Where the load's HTTP client runs: `child` (default), its own process, as bench:gateway runs
 * autocannon; `same`, on the platform's event loop in this process (the bench's earlier way).
 */
const CLIENT = process.env.BENCH_CLIENT === "same" ? "same" : "child";
/** A load loop in ./engine/load-child.ts; job ends go to it from this process's listener. */
async function inChild(base, completions, spec) {
    const child = (0, children_1.spawnTracked)(process.execPath, [
        node_path_1.default.join(__dirname, "engine/load-child.js"),
        JSON.stringify({ ...spec, base, password: platform_1.ADMIN_PASSWORD }),
    ], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    completions.forward = (jobId, status, wallMs) => {
        if (child.connected)
            child.send({ jobId, status, wallMs });
    };
    try {
        return await new Promise((resolve, reject) => {
            child.once("message", (m) => resolve(m.result));
            child.once("exit", (code) => reject(new Error(`load child exited ${code} without a result`)));
        });
    }
    finally {
        completions.forward = undefined;
        await (0, children_1.stopChild)(child);
    }
}
const results = [];
const dataDir = (0, children_1.scratchSpace)("engine-bench-");
/** The measured part, the same for both shapes. */
async function measure(id, label, broker, replicas) {
    const callers = new Map();
    const completions = new workload_1.Completions();
    broker.createService((0, workload_1.taskService)(callers));
    broker.createService(completions.service());
    await broker.waitForServices(["benchtask", "benchlistener", "engine"], 30_000);
    const http = new workload_1.Http((0, platform_1.httpUrl)(broker));
    await http.login(platform_1.ADMIN_PASSWORD);
    await (0, workload_1.createWorkflows)(http);
    process.stdout.write(`- ${label}: warming up ... `);
    await (0, workload_1.warmUp)(http, completions, callers, replicas, WARMUP);
    if (QUIET_WAIT_S > 0)
        await (0, cpu_1.waitQuiet)(QUIET_WAIT_S * 1000);
    const jobs = id === "nats" ? NATS_JOBS : JOBS;
    const cpu = (0, cpu_1.watchCpu)(children_1.childPids);
    const base = (0, platform_1.httpUrl)(broker);
    const run = CLIENT === "child"
        ? await inChild(base, completions, {
            mode: "closed",
            jobs,
            concurrency: CONCURRENCY,
            perSecond: 0,
            maxMs: MAX_MS,
        })
        : await (0, workload_1.runJobs)(http, completions, jobs, CONCURRENCY, performance.now() + MAX_MS);
    const shares = cpu.stop();
    const finish = await (0, workload_1.runFinishTasks)(http, FINISH, CONCURRENCY);
    const peakJobsPerSec = run.completed / (run.wallMs / 1000);
    const paced = PACED_JOBS > 0 && peakJobsPerSec > 0
        ? CLIENT === "child"
            ? await inChild(base, completions, {
                mode: "paced",
                jobs: PACED_JOBS,
                concurrency: 0,
                perSecond: peakJobsPerSec / 2,
                maxMs: MAX_MS,
            })
            : await (0, workload_1.runPacedJobs)(http, completions, PACED_JOBS, peakJobsPerSec / 2)
        : null;
    const transitions = run.completed * workload_1.TASKS_PER_JOB;
    const result = {
        id,
        label,
        jobs: run.jobs,
        completed: run.completed,
        failed: run.failed,
        wallMs: Math.round(run.wallMs),
        transitionsPerSec: Math.round(transitions / (run.wallMs / 1000)),
        jobsPerSec: Math.round((run.completed / (run.wallMs / 1000)) * 10) / 10,
        startToComplete: (0, stats_1.latency)(run.latencies),
        startJob: (0, stats_1.latency)(run.startLatencies),
        finishTask: {
            ...(0, stats_1.latency)(finish.latencies),
            perSec: Math.round(finish.count / (finish.wallMs / 1000)),
            failed: finish.failed,
        },
        aimTransitionsPerSec: AIMS[id],
        cpu: shares,
        halfPeak: paced
            ? {
                ...(0, stats_1.latency)(paced.latencies),
                jobsPerSec: Math.round((peakJobsPerSec / 2) * 10) / 10,
                failed: paced.failed,
            }
            : null,
    };
    results.push(result);
    const noisy = (shares.others ?? 0) > 0.1
        ? ` (other processes used ${Math.round(shares.others * 100)}% CPU: noisy)`
        : "";
    console.log(`${result.transitionsPerSec} transitions/s, ${result.jobsPerSec} jobs/s, ` +
        `p99 ${result.startToComplete.p99Ms} ms (startJob p99 ${result.startJob.p99Ms} ms); ` +
        `finishTask p99 ${result.finishTask.p99Ms} ms${noisy}` +
        (result.halfPeak
            ? `; at half the peak (${result.halfPeak.jobsPerSec} jobs/s) start-to-complete p99 ${result.halfPeak.p99Ms} ms (aim < ${AIM_HALF_PEAK_P99_MS})`
            : ""));
    if (run.failed > 0 || finish.failed > 0)
        console.log(`  ! ${run.failed} jobs and ${finish.failed} finishTask calls failed`);
}
async function inProcess() {
    const DATA_DIR = dataDir();
    // store.service reads DATA_DIR from process.env rather than its broker's config: keep both equal.
    const saved = process.env.DATA_DIR;
    process.env.DATA_DIR = DATA_DIR;
    const broker = await (0, platform_1.startPlatform)((0, platform_1.platformEnv)({ DATA_DIR }));
    try {
        await measure("in-process", "in-process (one broker, embedded store)", broker, 1);
    }
    finally {
        await broker.stop();
        if (saved === undefined)
            delete process.env.DATA_DIR;
        else
            process.env.DATA_DIR = saved;
    }
}
async function overNats() {
    const NAMESPACE = `${RUN_ID}-nats`;
    const common = { TRANSPORTER: NATS_URL, NAMESPACE };
    const store = (0, platform_1.spawnPlatformNode)((0, platform_1.platformEnv)({ ...common, SERVICES: "store", DATA_DIR: dataDir() }));
    const engines = [1, 2].map((i) => (0, platform_1.spawnPlatformNode)((0, platform_1.platformEnv)({
        ...common,
        SERVICES: "engine",
        NODE_ID: `${NAMESPACE}-engine-${i}`,
        DATA_DIR: dataDir(),
    })));
    const broker = await (0, platform_1.startPlatform)((0, platform_1.platformEnv)({ ...common, SERVICES: "gateway,accounts", DATA_DIR: dataDir() }));
    try {
        const until = Date.now() + 30_000;
        while ((broker.registry.getActionEndpoints("engine.startJob")?.count() ?? 0) < 2) {
            if (Date.now() > until)
                throw new Error("two engine replicas did not join the bus within 30 s");
            await new Promise((r) => setTimeout(r, 100));
        }
        await measure("nats", "over NATS (store + 2 engine replicas in 3 processes)", broker, 2);
    }
    finally {
        await broker.stop();
        // Engines before the store they write to.
        await Promise.all(engines.map((c) => (0, children_1.stopChild)(c)));
        await (0, children_1.stopChild)(store);
    }
}
function report() {
    console.log("\n| shape | transitions/s (aim) | jobs/s | start-to-complete p50 / p99 | at half peak p50 / p99 (aim p99 < 100) | finishTask p50 / p99 | others' CPU |");
    console.log("|---|---|---|---|---|---|---|");
    for (const r of results) {
        const others = r.cpu?.others == null ? "n/a" : `${Math.round(r.cpu.others * 100)}%`;
        console.log(`| ${r.label} | ${r.transitionsPerSec} (${r.aimTransitionsPerSec}) | ${r.jobsPerSec} | ` +
            `${r.startToComplete.p50Ms} / ${r.startToComplete.p99Ms} ms | ` +
            `${r.halfPeak ? `${r.halfPeak.p50Ms} / ${r.halfPeak.p99Ms} ms at ${r.halfPeak.jobsPerSec} jobs/s` : "n/a"} | ` +
            `${r.finishTask.p50Ms} / ${r.finishTask.p99Ms} ms | ${others} |`);
    }
    const out = node_path_1.default.resolve(__dirname, "../../bench/results/engine.json");
    node_fs_1.default.mkdirSync(node_path_1.default.dirname(out), { recursive: true });
    node_fs_1.default.writeFileSync(out, JSON.stringify({
        date: new Date().toISOString(),
        machine: { cpus: node_os_1.default.cpus().length, model: node_os_1.default.cpus()[0]?.model, node: process.version },
        settings: {
            jobs: JOBS,
            natsJobs: NATS_JOBS,
            concurrency: CONCURRENCY,
            finishTasks: FINISH,
            tasksPerJob: workload_1.TASKS_PER_JOB,
            client: CLIENT,
        },
        results,
    }, null, 2) + "\n");
    console.log(`\nwritten: ${node_path_1.default.relative(process.cwd(), out)}`);
}
async function main() {
    const wanted = (id) => !ONLY || ONLY.includes(id);
    try {
        if (wanted("in-process"))
            await inProcess();
        if (wanted("nats"))
            await overNats();
    }
    finally {
        await (0, children_1.stopAllChildren)();
    }
    report();
    const missed = results.filter((r) => r.transitionsPerSec < r.aimTransitionsPerSec || r.failed > 0);
    if (missed.length > 0)
        console.log(`aim missed: ${missed.map((r) => r.id).join(", ")}`);
}
main().then(() => process.exit(0), (err) => {
    console.error(err);
    void (0, children_1.stopAllChildren)().finally(() => process.exit(1));
});
//# sourceMappingURL=engine.bench.js.map