"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Orchestrator proxy throughput: `npm run bench:proxy` (docs/orchestrator.md#performance).
 *
 * Two scenarios under the same autocannon load, in BENCH_ROUNDS interleaved rounds, each judged by
 * its best round:
 *   direct   GET of the device list straight from the orchestrator stand-in (a node:http child)
 *   proxy    POST /orchestrator_manager/restQuery/bench through the gateway and the adapter
 *            (the whole platform on one broker in this process) to the same stand-in
 * The proxy pays two HTTP hops (client -> gateway, adapter -> orchestrator) plus authentication,
 * validation and the adapter's limits to the direct client's one; the figure to watch is the
 * ratio proxy/direct (aim >= 0.35x). Table on stdout, JSON in bench/results/proxy.json.
 *
 * Env: BENCH_DURATION (s, 10), BENCH_WARMUP (s, 2), BENCH_CONNECTIONS (32), BENCH_ROUNDS (3),
 * BENCH_DEVICES (devices in the answered list, 10), BENCH_QUIET_WAIT (s, 20).
 */
const node_fs_1 = __importDefault(require("node:fs"));
const node_path_1 = __importDefault(require("node:path"));
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
const rounds = (0, env_1.intEnv)("BENCH_ROUNDS", 3, 1);
const QUERY_PATH = "/restconf/data/tailf-ncs:devices";
function startUpstream() {
    const child = (0, children_1.spawnTracked)(process.execPath, [node_path_1.default.join(__dirname, "support/upstream-node.js")], {
        stdio: ["ignore", "inherit", "inherit", "ipc"],
        env: { ...process.env },
    });
    return new Promise((resolve, reject) => {
        child.once("message", (m) => resolve(m));
        child.once("exit", (code) => reject(new Error(`upstream exited ${code}`)));
    });
}
async function post(url, body, headers = {}) {
    const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 200)
        throw new Error(`${url}: ${res.status} ${text.slice(0, 300)}`);
    return text;
}
const best = (runs) => runs.reduce((a, b) => (b.reqPerSec > a.reqPerSec ? b : a));
async function main() {
    const dataDir = (0, children_1.scratchSpace)("bench-proxy-");
    const upstream = await startUpstream();
    const broker = await (0, platform_1.startPlatform)((0, platform_1.platformEnv)({ DATA_DIR: dataDir(), ADAPTER_HEALTH_TICK_MS: "60000" }));
    try {
        const base = (0, platform_1.httpUrl)(broker);
        const token = await post(`${base}/login`, { user: { username: "admin", password: platform_1.ADMIN_PASSWORD } });
        const auth = { authorization: `Bearer ${token}` };
        await post(`${base}/adapters`, {
            properties: {
                name: "bench",
                type: "Application",
                properties: {
                    id: "bench",
                    type: "NSO",
                    // The limits sized for the load: the bench measures the proxy's cost, not its queue.
                    properties: { host: "127.0.0.1", port: upstream.port, maxInFlight: 64, maxQueue: 1000 },
                },
            },
        }, auth);
        const body = JSON.stringify({ params: { path: QUERY_PATH, accept: "application/yang-data+json" } });
        const proxied = await post(`${base}/orchestrator_manager/restQuery/bench`, JSON.parse(body), auth);
        if (Buffer.byteLength(proxied) < upstream.bytes * 0.9)
            throw new Error("the proxy did not answer the device list");
        const results = { direct: [], proxy: [] };
        for (let round = 1; round <= rounds; round++) {
            console.log(`round ${round}/${rounds}`);
            results.direct.push(await (0, load_1.measure)(`http://127.0.0.1:${upstream.port}${QUERY_PATH}`, {}, settings));
            results.proxy.push(await (0, load_1.measure)(`${base}/orchestrator_manager/restQuery/bench`, { "content-type": "application/json", authorization: auth.authorization }, settings, { method: "POST", body }));
        }
        const direct = best(results.direct);
        const proxy = best(results.proxy);
        const ratio = Math.round((proxy.reqPerSec / direct.reqPerSec) * 100) / 100;
        const row = (name, r) => `${name.padEnd(8)} ${String(Math.round(r.reqPerSec)).padStart(8)} req/s   p50 ${r.p50Ms} ms   p99 ${r.p99Ms} ms   errors ${r.non2xx + r.errors + r.timeouts}`;
        console.log(`\nanswer: ${upstream.bytes} bytes, ${settings.connections} connections, best of ${rounds} rounds`);
        console.log(row("direct", direct));
        console.log(row("proxy", proxy));
        console.log(`proxy/direct ${ratio}x (aim >= 0.35x)`);
        const out = node_path_1.default.resolve(__dirname, "../../bench/results");
        node_fs_1.default.mkdirSync(out, { recursive: true });
        node_fs_1.default.writeFileSync(node_path_1.default.join(out, "proxy.json"), JSON.stringify({ settings, rounds, bytes: upstream.bytes, direct, proxy, ratio, all: results }, null, 2));
    }
    finally {
        await broker.stop();
        await (0, children_1.stopAllChildren)();
    }
}
main().catch(async (err) => {
    console.error(err);
    await (0, children_1.stopAllChildren)();
    process.exit(1);
});
//# sourceMappingURL=proxy.bench.js.map