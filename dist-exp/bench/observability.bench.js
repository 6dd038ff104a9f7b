"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * What metrics and tracing cost: `npm run bench:observability` (docs/operations-guide.md#cost).
 *
 * The gateway read of `bench:gateway` (GET /user-management/accounts?limit=10, authenticated, the
 * whole platform on one broker in this process) measured twice per round, interleaved, same load:
 *   off      METRICS_PORT=off, no tracing (bench:gateway's "ours")
 *   metrics  metrics on (scraped once a second), no tracing
 *   sampled  as `on` with TRACE_SAMPLE_RATE=0.1
 *   on       metrics on (Prometheus reporter on a free port, scraped once a second as Prometheus
 *         would) and tracing on, every request sampled, exported over OTLP/HTTP to a local
 *         receiver in another process
 * Each judged by its best round; the figure is the cost: 1 - on/off in req/s and in server CPU per
 * request. Aim: under 10% together. Table on stdout, JSON in bench/results/observability.json.
 *
 * Env: BENCH_DURATION (s, 10), BENCH_WARMUP (s, 2), BENCH_CONNECTIONS (32), BENCH_ROUNDS (3),
 * BENCH_ACCOUNTS (50), BENCH_QUIET_WAIT (s, 20).
 */
const node_fs_1 = __importDefault(require("node:fs"));
const node_path_1 = __importDefault(require("node:path"));
const telemetry_1 = require("../shared/telemetry");
const children_1 = require("./support/children");
const env_1 = require("./support/env");
const load_1 = require("./support/load");
const platform_1 = require("./support/platform");
const settings = {
    connections: (0, env_1.intEnv)("BENCH_CONNECTIONS", 32, 1),
    durationS: (0, env_1.intEnv)("BENCH_DURATION", 10, 1),
    warmupS: (0, env_1.intEnv)("BENCH_WARMUP", 2, 0),
    quietWaitS: (0, env_1.intEnv)("BENCH_QUIET_WAIT", 20, 0),
};
const ROUNDS = (0, env_1.intEnv)("BENCH_ROUNDS", 3, 1);
const ACCOUNTS = (0, env_1.intEnv)("BENCH_ACCOUNTS", 50, 10);
function startSink() {
    const child = (0, children_1.spawnTracked)(process.execPath, [node_path_1.default.join(__dirname, "support/otlp-sink-node.js")], {
        stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    return new Promise((resolve, reject) => {
        child.once("message", (m) => resolve({
            port: m.port,
            stats: () => new Promise((answer) => {
                child.once("message", (s) => answer(s));
                child.send("stats");
            }),
        }));
        child.once("exit", (code) => reject(new Error(`otlp sink exited ${code}`)));
    });
}
async function scenario(env, scrape) {
    const broker = await (0, platform_1.startPlatform)(env);
    let scraper;
    try {
        const base = (0, platform_1.httpUrl)(broker);
        const { token } = await (0, platform_1.seed)(base, ACCOUNTS);
        if (scrape) {
            const port = broker.metrics.reporter[0].server.address().port;
            scraper = setInterval(() => void fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text()), 1000);
        }
        return await (0, load_1.measure)(base + platform_1.PAGE_PATH, { Authorization: `Bearer ${token}` }, settings);
    }
    finally {
        clearInterval(scraper);
        await broker.stop();
    }
}
const best = (runs) => runs.reduce((a, b) => (b.reqPerSec > a.reqPerSec ? b : a));
async function main() {
    const dataDir = (0, children_1.scratchSpace)("bench-observability-");
    const sink = await startSink();
    const endpoint = `http://127.0.0.1:${sink.port}`;
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint;
    const sdk = (0, telemetry_1.startTelemetry)("bench-observability");
    const runs = {
        off: [],
        metrics: [],
        on: [],
        sampled: [],
    };
    try {
        for (let round = 1; round <= ROUNDS; round++) {
            console.log(`round ${round}/${ROUNDS}`);
            runs.off.push(await scenario((0, platform_1.platformEnv)({ DATA_DIR: dataDir() }), false));
            runs.metrics.push(await scenario((0, platform_1.platformEnv)({ DATA_DIR: dataDir(), METRICS_PORT: "0" }), true));
            runs.on.push(await scenario((0, platform_1.platformEnv)({ DATA_DIR: dataDir(), METRICS_PORT: "0", OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }), true));
            runs.sampled.push(await scenario((0, platform_1.platformEnv)({
                DATA_DIR: dataDir(),
                METRICS_PORT: "0",
                OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
                TRACE_SAMPLE_RATE: "0.1",
            }), true));
        }
    }
    finally {
        await sdk.shutdown();
    }
    const stats = await sink.stats();
    const off = best(runs.off);
    const on = best(runs.on);
    const metrics = best(runs.metrics);
    const sampled = best(runs.sampled);
    const pct = (x) => `${(x * 100).toFixed(1)}%`;
    const costReq = 1 - on.reqPerSec / off.reqPerSec;
    const costCpu = off.serverCpuUsPerReq && on.serverCpuUsPerReq ? on.serverCpuUsPerReq / off.serverCpuUsPerReq - 1 : null;
    const row = (name, r) => `${name.padEnd(7)} ${String(Math.round(r.reqPerSec)).padStart(7)} req/s  p50 ${r.p50Ms} ms  p99 ${r.p99Ms} ms  CPU ${r.serverCpuUsPerReq ?? "?"} µs/req`;
    console.log(`\nbest of ${ROUNDS} rounds, ${settings.connections} connections, ${settings.durationS} s each`);
    console.log(row("off", off));
    console.log(row("metrics", metrics));
    console.log(row("on", on));
    console.log(row("sampled", sampled));
    const cpuCost = (r) => off.serverCpuUsPerReq && r.serverCpuUsPerReq ? pct(r.serverCpuUsPerReq / off.serverCpuUsPerReq - 1) : "?";
    console.log(`cost of metrics alone: ${pct(1 - metrics.reqPerSec / off.reqPerSec)} of req/s, ${cpuCost(metrics)} CPU`);
    console.log(`cost of metrics + 10% sampled tracing: ${pct(1 - sampled.reqPerSec / off.reqPerSec)} of req/s, ${cpuCost(sampled)} CPU`);
    console.log(`cost of metrics + tracing: ${pct(costReq)} of req/s, ${costCpu === null ? "?" : pct(costCpu)} more CPU per request (aim < 10%)`);
    console.log(`the receiver got ${stats.exports} OTLP exports, ${stats.bytes} bytes`);
    const out = node_path_1.default.resolve(__dirname, "../../bench/results");
    node_fs_1.default.mkdirSync(out, { recursive: true });
    node_fs_1.default.writeFileSync(node_path_1.default.join(out, "observability.json"), JSON.stringify({ settings, rounds: ROUNDS, off, metrics, on, costReq, costCpu, exports: stats, runs }, null, 2));
    await (0, children_1.stopAllChildren)();
}
main().catch(async (err) => {
    console.error(err);
    await (0, children_1.stopAllChildren)();
    process.exit(1);
});
//# sourceMappingURL=observability.bench.js.map