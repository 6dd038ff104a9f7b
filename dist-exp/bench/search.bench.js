"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Search latency: `npm run bench:search` (docs/search.md).
 *
 * The whole platform on one broker with the embedded store, seeded with BENCH_OBJECTS (100,000)
 * objects spread over every searchable collection (bench/search/data.ts), then POST /search/find
 * through the gateway, one request at a time, for each query of the mix, BENCH_ROUNDS times. The
 * same searches run as a plain in-memory filter over the same objects (bench/search/baseline.ts) in
 * the same run, and every answer's counts and first page are checked against it. Table on stdout,
 * JSON in bench/results/search.json.
 *
 * The machine may be shared: the run first waits (up to BENCH_QUIET_WAIT s) for a quiet second, and
 * records the share of CPU other processes used while it measured.
 *
 * Env: BENCH_OBJECTS (100000), BENCH_ROUNDS (15), BENCH_WARMUP (2 rounds), BENCH_QUIET_WAIT (20),
 * BENCH_MAX_S (600: the run aborts past it), BENCH_SEED (42).
 */
const node_fs_1 = __importDefault(require("node:fs"));
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const config_1 = require("../shared/config");
const broker_1 = require("../app/broker");
const runtime_1 = require("../shared/runtime");
const services_1 = require("../app/services");
const baseline_1 = require("./search/baseline");
const cpu_1 = require("./support/cpu");
const data_1 = require("./search/data");
const env_1 = require("./support/env");
const OBJECTS = (0, env_1.intEnv)("BENCH_OBJECTS", 100_000, 100);
const ROUNDS = (0, env_1.intEnv)("BENCH_ROUNDS", 15, 1);
const WARMUP = (0, env_1.intEnv)("BENCH_WARMUP", 2, 0);
const MAX_S = (0, env_1.intEnv)("BENCH_MAX_S", 600, 10);
const SEED = (0, env_1.intEnv)("BENCH_SEED", 42, 0);
const QUIET_WAIT_S = (0, env_1.intEnv)("BENCH_QUIET_WAIT", 20, 0);
const ADMIN_PASSWORD = "bench-admin-password";
const RESULTS = node_path_1.default.resolve(__dirname, "../../bench/results/search.json");
// Bounded: whatever happens, the run ends (and its temp dir goes) within BENCH_MAX_S.
const tmpRoot = node_fs_1.default.mkdtempSync(node_path_1.default.join(node_os_1.default.tmpdir(), "search-bench-"));
process.once("exit", () => node_fs_1.default.rmSync(tmpRoot, { recursive: true, force: true }));
for (const signal of ["SIGINT", "SIGTERM"])
    process.once(signal, () => process.exit(130));
setTimeout(() => {
    console.error(`search bench: over BENCH_MAX_S=${MAX_S} s, aborting`);
    process.exit(2);
}, MAX_S * 1000).unref();
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
const round = (ms) => Math.round(ms * 100) / 100;
function summary(samples) {
    const sorted = [...samples].sort((a, b) => a - b);
    const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
    return {
        n: sorted.length,
        p50: round(percentile(sorted, 50)),
        p99: round(percentile(sorted, 99)),
        mean: round(mean),
    };
}
async function startPlatform(dataDir) {
    // The store service reads DATA_DIR from the process environment, not its broker's config.
    process.env.DATA_DIR = dataDir;
    const config = (0, config_1.loadConfig)({
        PORT: "0",
        HOST: "127.0.0.1",
        DATA_DIR: dataDir,
        ADMIN_PASSWORD,
        RATE_LIMIT: "0",
        LOG_LEVEL: "warn",
    });
    const broker = (0, broker_1.createBroker)(config);
    for (const schema of (0, services_1.serviceSchemas)(config))
        broker.createService(schema);
    await broker.start();
    const gateway = broker.getLocalService("gateway");
    return { broker, baseUrl: `http://127.0.0.1:${gateway.server.address().port}` };
}
async function post(baseUrl, token, url, body) {
    const res = await fetch(baseUrl + url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    if (res.status !== 200)
        throw new Error(`POST ${url} -> ${res.status}: ${text.slice(0, 300)}`);
    return JSON.parse(text);
}
/** Our answer reduced to what the baseline computes: type, count and the first page's names. */
const reduce = (groups) => groups.map((g) => ({ type: g.type, count: g.count, names: g.results.map((r) => r.name) }));
async function main() {
    const started = Date.now();
    const tags = (0, data_1.makeTags)();
    const catalog = (0, data_1.makeCatalog)(OBJECTS, tags, SEED);
    const queries = [...(0, data_1.makeQueries)(catalog), { kind: "empty (every object)", text: "" }];
    const { broker, baseUrl } = await startPlatform(node_path_1.default.join(tmpRoot, "data"));
    try {
        process.stdout.write(`seeding ${OBJECTS} objects and ${tags.length} tags ... `);
        const store = await (0, runtime_1.acquireStore)(broker);
        try {
            await store.collection("tags").insertMany(tags.map((t) => ({ ...t, nameKey: t.name.toLowerCase() })));
            for (const [collection, docs] of Object.entries(catalog))
                for (let i = 0; i < docs.length; i += 5000)
                    await store.collection(collection).insertMany(docs.slice(i, i + 5000));
        }
        finally {
            await store.close();
        }
        console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
        const login = await fetch(`${baseUrl}/login`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ user: { username: "admin", password: ADMIN_PASSWORD } }),
        });
        const token = await login.text();
        if (login.status !== 200)
            throw new Error(`login failed: ${login.status}`);
        // Same answers first: counts and first pages equal the in-memory filter's, for every query.
        for (const q of queries) {
            const ours = reduce(await post(baseUrl, token, "/search/find", { data: { text: q.text } }));
            const expected = (0, baseline_1.inMemorySearch)(catalog, tags, q.text);
            if (JSON.stringify(ours) !== JSON.stringify(expected))
                throw new Error(`answers differ for "${q.text}":\nours ${JSON.stringify(ours)}\nexpected ${JSON.stringify(expected)}`);
        }
        const ours = new Map(queries.map((q) => [q, []]));
        const base = new Map(queries.map((q) => [q, []]));
        const busyBefore = await (0, cpu_1.waitQuiet)(QUIET_WAIT_S * 1000);
        const cpu = (0, cpu_1.watchCpu)(() => []);
        for (let r = -WARMUP; r < ROUNDS; r++) {
            for (const q of queries) {
                let t = performance.now();
                await post(baseUrl, token, "/search/find", { data: { text: q.text, pageNumber: 0, nPerPage: 10 } });
                const oursMs = performance.now() - t;
                t = performance.now();
                (0, baseline_1.inMemorySearch)(catalog, tags, q.text);
                const baseMs = performance.now() - t;
                if (r >= 0) {
                    ours.get(q).push(oursMs);
                    base.get(q).push(baseMs);
                }
            }
            process.stdout.write(r < 0 ? "w" : ".");
        }
        const { machine, others } = cpu.stop();
        console.log();
        const matches = (q) => (0, baseline_1.inMemorySearch)(catalog, tags, q.text).reduce((n, g) => n + g.count, 0);
        const perQuery = queries.map((q) => {
            const o = summary(ours.get(q));
            const b = summary(base.get(q));
            return {
                kind: q.kind,
                text: q.text,
                matches: matches(q),
                ours: o,
                inMemory: b,
                ratioP50: round(o.p50 / b.p50),
            };
        });
        const all = summary([...ours.values()].flat());
        const allBase = summary([...base.values()].flat());
        const result = {
            date: new Date().toISOString(),
            node: process.version,
            cpus: `${node_os_1.default.cpus().length} x ${node_os_1.default.cpus()[0]?.model ?? "?"}`,
            // Shares of all cores: busy before measuring, and used by other processes while measuring.
            cpu: { busyBeforeStart: busyBefore, machineWhileMeasuring: machine, othersWhileMeasuring: others },
            objects: OBJECTS,
            collections: Object.fromEntries(Object.entries(catalog).map(([c, docs]) => [c, docs.length])),
            mix: data_1.MIX,
            tags: tags.length,
            rounds: ROUNDS,
            requestsMeasured: all.n,
            overall: {
                ours: all,
                inMemory: allBase,
                ratioP50: round(all.p50 / allBase.p50),
                ratioP99: round(all.p99 / allBase.p99),
            },
            perQuery,
        };
        console.log(`\nPOST /search/find over ${OBJECTS} objects (embedded store, in-process gateway), ${ROUNDS} rounds`);
        console.log("kind                   text                          matches   ours p50/p99 ms   in-memory p50/p99 ms   ratio p50");
        for (const q of perQuery)
            console.log(`${q.kind.padEnd(22)} ${JSON.stringify(q.text).padEnd(29)} ${String(q.matches).padStart(7)}   ` +
                `${`${q.ours.p50} / ${q.ours.p99}`.padStart(15)}   ${`${q.inMemory.p50} / ${q.inMemory.p99}`.padStart(20)}   ${String(q.ratioP50).padStart(9)}`);
        console.log(`${"overall".padEnd(22)} ${"".padEnd(29)} ${"".padStart(7)}   ${`${all.p50} / ${all.p99}`.padStart(15)}   ` +
            `${`${allBase.p50} / ${allBase.p99}`.padStart(20)}   ${String(result.overall.ratioP50).padStart(9)}`);
        console.log(`CPU used by other processes while measuring: ${others === null ? "unknown" : `${Math.round(others * 100)}%`}`);
        node_fs_1.default.mkdirSync(node_path_1.default.dirname(RESULTS), { recursive: true });
        node_fs_1.default.writeFileSync(RESULTS, JSON.stringify(result, null, 2) + "\n");
        console.log(`written ${node_path_1.default.relative(process.cwd(), RESULTS)}`);
    }
    finally {
        await broker.stop();
    }
}
main().then(() => process.exit(0), (err) => {
    console.error(err);
    process.exit(1);
});
//# sourceMappingURL=search.bench.js.map