"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Scheduler firing lag: `npm run bench:scheduler` (docs/scheduler.md).
 *
 * BENCH_SCHEDULES automations (10,000) whose due times are spread evenly over BENCH_SPREAD_S (60 s),
 * each running a one-task workflow (a zero delay), fired by one and then by two scheduler replicas.
 * Each shape runs over NATS: the store, the engine and the scheduler replicas in processes of their
 * own; this process seeds the automations and reads the jobs. Reports, per shape, the firing lag
 * (job created minus due time) p50 / p99 / max, duplicate fires (an automation with more than one
 * job) and missed fires (none) — both must be 0 —, and the two-replica p99 as a ratio of the
 * one-replica p99 of the same run. Table on stdout, JSON in bench/results/scheduler.json.
 *
 * Env: BENCH_SCHEDULES (10000), BENCH_SPREAD_S (60), BENCH_LEAD_S (first due time after seeding, 5),
 * BENCH_ONLY (one,two), NATS_URL.
 */
const node_fs_1 = __importDefault(require("node:fs"));
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const mongodb_1 = require("mongodb");
const children_1 = require("./support/children");
const platform_1 = require("./support/platform");
const stats_1 = require("./engine/stats");
const env_1 = require("./support/env");
const store_1 = require("./support/store");
const SCHEDULES = (0, env_1.intEnv)("BENCH_SCHEDULES", 10_000, 10);
const SPREAD_MS = (0, env_1.intEnv)("BENCH_SPREAD_S", 60, 1) * 1000;
const LEAD_MS = (0, env_1.intEnv)("BENCH_LEAD_S", 5, 1) * 1000;
const NATS_URL = process.env.NATS_URL || "nats://127.0.0.1:4222";
const ONLY = process.env.BENCH_ONLY?.split(",").map((s) => s.trim());
const RUN_ID = `sched-bench-${process.pid}-${Date.now().toString(36)}`;
/** The aim: p99 firing lag under one second. */
const AIM_P99_MS = 1000;
const results = [];
const dataDir = (0, children_1.scratchSpace)("scheduler-bench-");
async function createWorkflow(broker) {
    const base = (0, platform_1.httpUrl)(broker);
    const login = await fetch(`${base}/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ user: { username: "admin", password: platform_1.ADMIN_PASSWORD } }),
    });
    const token = await login.text();
    const workflow = {
        name: "Bench tick",
        tasks: {
            workflow_start: { name: "workflow_start", summary: "Start" },
            wait: {
                type: "operation",
                name: "delay",
                summary: "delay",
                variables: { incoming: { time: 0 }, outgoing: {} },
            },
            workflow_end: { name: "workflow_end", summary: "End" },
        },
        transitions: {
            workflow_start: { wait: { state: "success", type: "standard" } },
            wait: { workflow_end: { state: "success", type: "standard" } },
            workflow_end: {},
        },
    };
    const reply = await fetch(`${base}/workflow_builder/workflows`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ workflow }),
    });
    if (reply.status !== 200)
        throw new Error(`workflow: ${reply.status} ${await reply.text()}`);
}
/** Automations straight into the store (seeding 10,000 over HTTP would measure HTTP, not firing). */
async function seed(broker, firstDue) {
    const due = new Map();
    const now = new Date().toISOString();
    const docs = Array.from({ length: SCHEDULES }, (_, i) => {
        const _id = new mongodb_1.ObjectId().toHexString();
        const dueAt = firstDue + Math.floor((i * SPREAD_MS) / SCHEDULES);
        due.set(_id, dueAt);
        return {
            _id,
            name: `bench-${i}`,
            description: "",
            workflow: "Bench tick",
            variables: {},
            groups: [],
            nextRunAt: new Date(dueAt).toISOString(),
            repeatInterval: null,
            disabled: false,
            missedRuns: "once",
            catchUpWindow: null,
            overlap: "allow",
            lastRunAt: null,
            lastJobId: null,
            lastError: null,
            created: now,
            created_by: "bench",
            last_updated: now,
            last_updated_by: "bench",
        };
    });
    await (0, store_1.withStore)(broker, async (store) => {
        for (let i = 0; i < docs.length; i += 1000)
            await store.collection("automations").insertMany(docs.slice(i, i + 1000));
    });
    return due;
}
async function measure(id, replicas) {
    const NAMESPACE = `${RUN_ID}-${id}`;
    const common = { TRANSPORTER: NATS_URL, NAMESPACE };
    const store = (0, platform_1.spawnPlatformNode)((0, platform_1.platformEnv)({ ...common, SERVICES: "store", DATA_DIR: dataDir() }));
    const engine = (0, platform_1.spawnPlatformNode)((0, platform_1.platformEnv)({ ...common, SERVICES: "engine", DATA_DIR: dataDir() }));
    const schedulers = Array.from({ length: replicas }, (_, i) => (0, platform_1.spawnPlatformNode)((0, platform_1.platformEnv)({
        ...common,
        SERVICES: "scheduler",
        NODE_ID: `${NAMESPACE}-sched-${i}`,
        DATA_DIR: dataDir(),
    })));
    const broker = await (0, platform_1.startPlatform)((0, platform_1.platformEnv)({ ...common, SERVICES: "gateway,accounts", DATA_DIR: dataDir() }));
    try {
        const until = Date.now() + 30_000;
        while ((broker.registry.getActionEndpoints("scheduler.tick")?.count() ?? 0) < replicas) {
            if (Date.now() > until)
                throw new Error(`${replicas} scheduler replicas did not join within 30 s`);
            await new Promise((r) => setTimeout(r, 100));
        }
        await broker.waitForServices(["engine", "store"], 30_000);
        await createWorkflow(broker);
        process.stdout.write(`- ${replicas} scheduler replica(s): seeding ${SCHEDULES} ... `);
        const due = await seed(broker, Date.now() + LEAD_MS);
        process.stdout.write("firing ... ");
        const last = Math.max(...due.values());
        const deadline = last + 60_000;
        let count = 0;
        while (Date.now() < deadline) {
            count = await (0, store_1.withStore)(broker, (s) => s.collection("jobs").count({ type: "automation" }));
            if (count >= SCHEDULES && Date.now() > last)
                break;
            await new Promise((r) => setTimeout(r, 500));
        }
        await new Promise((r) => setTimeout(r, 2000)); // a late duplicate would show up here
        // Paged: one answer over the bus must stay under NATS's payload limit (1 MiB by default).
        const jobs = [];
        await (0, store_1.withStore)(broker, async (s) => {
            for (let skip = 0;; skip += 1000) {
                const page = await s
                    .collection("jobs")
                    .find({ type: "automation" }, { sort: { _id: 1 }, skip, limit: 1000, projection: { automation: 1, created: 1 } });
                jobs.push(...page);
                if (page.length < 1000)
                    break;
            }
        });
        const perAutomation = new Map();
        const lags = [];
        for (const job of jobs) {
            const a = job.automation._id;
            perAutomation.set(a, (perAutomation.get(a) ?? 0) + 1);
            lags.push(Date.parse(job.created) - due.get(a));
        }
        const result = {
            id,
            replicas,
            schedules: SCHEDULES,
            fired: jobs.length,
            duplicates: [...perAutomation.values()].filter((n) => n > 1).length,
            missed: [...due.keys()].filter((a) => !perAutomation.has(a)).length,
            lag: { ...(0, stats_1.latency)(lags), maxMs: Math.max(...lags) },
        };
        results.push(result);
        console.log(`lag p50 ${result.lag.p50Ms} ms, p99 ${result.lag.p99Ms} ms, max ${result.lag.maxMs} ms; ` +
            `${result.duplicates} duplicate, ${result.missed} missed`);
    }
    finally {
        await broker.stop();
        await Promise.all(schedulers.map((c) => (0, children_1.stopChild)(c)));
        await (0, children_1.stopChild)(engine);
        await (0, children_1.stopChild)(store);
    }
}
function report() {
    console.log("\n| scheduler replicas | schedules | fired | lag p50 / p99 / max | duplicates | missed |");
    console.log("|---|---|---|---|---|---|");
    for (const r of results)
        console.log(`| ${r.replicas} | ${r.schedules} | ${r.fired} | ${r.lag.p50Ms} / ${r.lag.p99Ms} / ${r.lag.maxMs} ms | ${r.duplicates} | ${r.missed} |`);
    const [one, two] = [results.find((r) => r.replicas === 1), results.find((r) => r.replicas === 2)];
    if (one && two)
        console.log(`\np99 lag, two replicas / one: ${(two.lag.p99Ms / Math.max(one.lag.p99Ms, 1)).toFixed(2)}x`);
    const out = node_path_1.default.resolve(__dirname, "../../bench/results/scheduler.json");
    node_fs_1.default.mkdirSync(node_path_1.default.dirname(out), { recursive: true });
    node_fs_1.default.writeFileSync(out, JSON.stringify({
        date: new Date().toISOString(),
        machine: { cpus: node_os_1.default.cpus().length, model: node_os_1.default.cpus()[0]?.model, node: process.version },
        settings: { schedules: SCHEDULES, spreadMs: SPREAD_MS },
        results,
    }, null, 2) + "\n");
    console.log(`written: ${node_path_1.default.relative(process.cwd(), out)}`);
}
async function main() {
    const wanted = (id) => !ONLY || ONLY.includes(id);
    try {
        if (wanted("one"))
            await measure("one", 1);
        if (wanted("two"))
            await measure("two", 2);
    }
    finally {
        await (0, children_1.stopAllChildren)();
    }
    report();
    const bad = results.filter((r) => r.duplicates > 0 || r.missed > 0 || r.lag.p99Ms >= AIM_P99_MS);
    if (bad.length > 0)
        console.log(`aim missed (p99 < ${AIM_P99_MS} ms, 0 duplicate, 0 missed): ${bad.map((r) => r.id).join(", ")}`);
}
main().then(() => process.exit(0), (err) => {
    console.error(err);
    void (0, children_1.stopAllChildren)().finally(() => process.exit(1));
});
//# sourceMappingURL=scheduler.bench.js.map