"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.PAGE_PATH = exports.ADMIN_PASSWORD = void 0;
exports.httpUrl = httpUrl;
exports.platformEnv = platformEnv;
exports.startPlatform = startPlatform;
exports.spawnPlatformNode = spawnPlatformNode;
exports.profileArgs = profileArgs;
exports.seed = seed;
/**
 * "Ours": the real platform, started the way production starts it (createBroker + serviceSchemas,
 * or `node dist/app/main.js` for the remote half), seeded over its own HTTP API.
 */
const node_path_1 = __importDefault(require("node:path"));
const moleculer_1 = require("moleculer");
const broker_options_1 = require("../../app/broker-options");
const config_1 = require("../../shared/config");
const broker_1 = require("../../app/broker");
const services_1 = require("../../app/services");
const children_1 = require("./children");
exports.ADMIN_PASSWORD = "bench-admin-password";
exports.PAGE_PATH = "/user-management/accounts?limit=10";
/** The port the broker's moleculer-web service listens on (PORT=0 picks a free one). */
function httpUrl(broker) {
    const gw = broker.services.find((s) => s.server?.address?.());
    if (!gw)
        throw new Error("no HTTP gateway on this broker");
    return `http://127.0.0.1:${gw.server.address().port}`;
}
/** Env of a platform process in the bench: quiet, no rate limit, loopback only. */
function platformEnv(extra) {
    return {
        PORT: "0",
        HOST: "127.0.0.1",
        ADMIN_PASSWORD: exports.ADMIN_PASSWORD,
        RATE_LIMIT: "0",
        LOG_LEVEL: "warn",
        // Off unless a scenario turns them on (bench:gateway measures their cost on against off).
        METRICS_PORT: "off",
        ...extra,
    };
}
/**
 * One broker in this process with the given env. Bus tuning beyond SERIALIZER (which the config
 * reads) is applied on top of app/broker-options.ts's options, to try a setting before it is adopted.
 */
async function startPlatform(env, tuning) {
    const config = (0, config_1.loadConfig)(env);
    const broker = tuning?.disableBalancer !== undefined
        ? new moleculer_1.ServiceBroker({ ...(0, broker_options_1.brokerOptions)(config), disableBalancer: tuning.disableBalancer })
        : (0, broker_1.createBroker)(config);
    for (const schema of (0, services_1.serviceSchemas)(config))
        broker.createService(schema);
    await broker.start();
    return broker;
}
/**
 * The store and accounts in another process, over the bus. With no tuning this is exactly
 * `node dist/app/main.js`; watchdog.js is preloaded so the child dies with the bench.
 * disableBalancer (not an env setting yet) needs platform-node.js, main.js plus that option.
 */
function spawnPlatformNode(env, tuning) {
    const dist = node_path_1.default.resolve(__dirname, "../..");
    const script = tuning?.disableBalancer !== undefined
        ? node_path_1.default.join(dist, "bench/support/platform-node.js")
        : node_path_1.default.join(dist, "app/main.js");
    return (0, children_1.spawnTracked)(process.execPath, [...profileArgs(), "--require", node_path_1.default.join(__dirname, "watchdog.js"), script], {
        stdio: ["ignore", "inherit", "inherit", "ipc"],
        env: {
            ...process.env,
            ...env,
            BENCH_DISABLE_BALANCER: String(tuning?.disableBalancer ?? ""),
        },
    });
}
/** BENCH_PROFILE_DIR=dir: children write V8 CPU profiles there (run the bench itself with --cpu-prof). */
function profileArgs() {
    const dir = process.env.BENCH_PROFILE_DIR;
    return dir ? ["--cpu-prof", `--cpu-prof-dir=${node_path_1.default.resolve(dir)}`] : [];
}
async function http(url, init = {}) {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
    const body = Buffer.from(await res.arrayBuffer());
    if (init.expect && !init.expect.includes(res.status))
        throw new Error(`${init.method ?? "GET"} ${url} -> ${res.status}: ${body.toString().slice(0, 300)}`);
    return { status: res.status, body, type: res.headers.get("content-type") ?? "" };
}
/**
 * Logs in as admin and makes sure `accounts` accounts exist besides admin (a 409 means it already
 * does). Returns the token and one real answer of the measured page.
 */
async function seed(baseUrl, accounts) {
    const login = await http(`${baseUrl}/login`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ user: { username: "admin", password: exports.ADMIN_PASSWORD } }),
        expect: [200],
    });
    const token = login.body.toString();
    const auth = { Authorization: `Bearer ${token}` };
    // A few at a time: each create hashes a password with scrypt on the thread pool.
    const names = Array.from({ length: accounts }, (_, i) => `bench-user-${String(i).padStart(3, "0")}`);
    for (let i = 0; i < names.length; i += 4) {
        await Promise.all(names.slice(i, i + 4).map((username) => http(`${baseUrl}/user-management/accounts`, {
            method: "POST",
            headers: { ...auth, "Content-Type": "application/json" },
            body: JSON.stringify({ username, password: `${username}-password` }),
            expect: [200, 201, 409],
        })));
    }
    const page = await http(`${baseUrl}${exports.PAGE_PATH}`, { headers: auth, expect: [200] });
    const parsed = JSON.parse(page.body.toString());
    if (!Array.isArray(parsed.results) || parsed.results.length !== 10)
        throw new Error(`the accounts page should hold 10 results: ${page.body.toString().slice(0, 300)}`);
    return { token, page };
}
//# sourceMappingURL=platform.js.map