"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.ROLE_HOLDER_PASSWORD = exports.ADMIN_PASSWORD = void 0;
exports.tempDir = tempDir;
exports.startPlatform = startPlatform;
exports.request = request;
exports.client = client;
exports.login = login;
exports.noteSecret = noteSecret;
exports.runLogEnv = runLogEnv;
exports.expectError = expectError;
exports.tracked = tracked;
exports.clientWithRoles = clientWithRoles;
/**
 * Test harness: a platform on ServiceBrokers, reachable over HTTP on a random port.
 *  - startPlatform(): every service in one broker, no transporter (the embedded default).
 *  - with `transporter`, `services` and a shared `namespace`, several brokers form one cluster
 *    over a real NATS, as separate deployments would.
 *  - TEST_TOPOLOGY=split (the container suite, `npm run test:containers`): startPlatform() for the
 *    whole platform starts every service in a broker of its own over NATS_URL, on MongoDB when
 *    MONGO_URL is set (a database per platform, dropped on stop), else on a `store` broker.
 */
const node_crypto_1 = require("node:crypto");
const node_fs_1 = __importDefault(require("node:fs"));
const node_http_1 = __importDefault(require("node:http"));
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const config_1 = require("../../shared/config");
const broker_1 = require("../../app/broker");
const services_1 = require("../../app/services");
const platform_node_1 = require("../../app/platform-node");
exports.ADMIN_PASSWORD = "admin-test-password";
function tempDir(prefix = "platform-test-") {
    return node_fs_1.default.mkdtempSync(node_path_1.default.join(node_os_1.default.tmpdir(), prefix));
}
async function startPlatform(options = {}) {
    if (process.env.TEST_TOPOLOGY === "split" && !options.services && !options.dataDir)
        return startSplitPlatform(options);
    const dataDir = options.dataDir ?? tempDir();
    const config = (0, config_1.loadConfig)({
        PORT: "0",
        HOST: "127.0.0.1",
        DATA_DIR: dataDir,
        ADMIN_PASSWORD: exports.ADMIN_PASSWORD,
        LOG_LEVEL: "warn",
        RATE_LIMIT: "0",
        // Metrics on, as in production, on a free port (many brokers share one test process).
        METRICS_PORT: "0",
        // Brokers in one process would otherwise share the default hostname-pid node id on the bus.
        NODE_ID: `test-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`,
        ...runLogEnv(),
        ...(options.services && { SERVICES: options.services.join(",") }),
        ...options.env,
    });
    const broker = (0, broker_1.createBroker)(config);
    for (const schema of (0, platform_node_1.nodeSchemas)(config))
        broker.createService(schema);
    await broker.start();
    const gateway = broker.getLocalService("gateway");
    const port = gateway?.server?.address().port;
    return {
        broker,
        config,
        dataDir,
        baseUrl: port ? `http://127.0.0.1:${port}` : "",
        stop: () => broker.stop(),
    };
}
/**
 * The whole platform as separate deployments run it: one broker per service, one namespace on a
 * real NATS, the store shared (MongoDB, or the `store` service over the bus). The Platform returned
 * is the gateway's; its broker reaches every service over the bus. Resolves once /ready answers 200.
 */
async function startSplitPlatform(options) {
    const dataDir = tempDir("platform-split-");
    const namespace = `split-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`;
    const mongoUrl = process.env.MONGO_URL;
    const mongoDb = `test_${namespace.replace(/-/g, "_")}`;
    const env = {
        TRANSPORTER: process.env.NATS_URL || "nats://127.0.0.1:4222",
        NAMESPACE: namespace,
        // Every process must share the key (docs/deployment.md); one generated each would not.
        ENCRYPTION_KEY: (0, node_crypto_1.randomBytes)(32).toString("hex"),
        // A dozen brokers in one process: each its own metrics port, never the fixed default.
        METRICS_PORT: "0",
        ...(mongoUrl ? { MONGO_URL: mongoUrl, MONGO_DB: mongoDb, STORE: "mongo" } : {}),
        ...options.env,
    };
    const start = (service) => startPlatform({ services: [service], dataDir, env });
    const parts = [];
    const stopAll = async () => {
        await Promise.allSettled(parts.reverse().map((p) => p.stop()));
        if (mongoUrl) {
            const { MongoClient } = await import("mongodb");
            const admin = new MongoClient(mongoUrl);
            await admin.db(mongoDb).dropDatabase();
            await admin.close();
        }
    };
    try {
        if (!mongoUrl)
            parts.push(await start("store"));
        const rest = services_1.ALL_SERVICES.filter((s) => s !== "store" && s !== "gateway");
        parts.push(...(await Promise.all(rest.map(start))));
        const gateway = await start("gateway");
        parts.push(gateway);
        const until = Date.now() + 30_000;
        for (;;) {
            const ready = await fetch(`${gateway.baseUrl}/ready`).catch(() => undefined);
            if (ready?.status === 200)
                break;
            if (Date.now() > until)
                throw new Error(`split platform not ready: ${ready && (await ready.text())}`);
            await new Promise((resolve) => setTimeout(resolve, 100));
        }
        return { ...gateway, stop: stopAll };
    }
    catch (err) {
        await stopAll();
        throw err;
    }
}
async function request(baseUrl, method, url, options = {}) {
    const headers = { ...options.headers };
    if (options.token)
        headers.authorization = `Bearer ${options.token}`;
    let payload = options.raw;
    if (options.body !== undefined)
        payload = JSON.stringify(options.body);
    if (payload !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === "content-type"))
        headers["content-type"] = "application/json";
    const { status, headers: replyHeaders, text, } = payload !== undefined && (method === "GET" || method === "DELETE")
        ? await viaHttp(baseUrl + url, method, headers, payload)
        : await viaFetch(baseUrl + url, method, headers, payload);
    let body;
    try {
        body = JSON.parse(text);
    }
    catch {
        body = undefined;
    }
    return { status, headers: replyHeaders, text, body };
}
async function viaFetch(url, method, headers, payload) {
    const res = await fetch(url, { method, headers, body: payload });
    return { status: res.status, headers: res.headers, text: await res.text() };
}
/** fetch refuses a body on GET; docs/platform-rules.md#object-parameters-on-get accepts one, so send it with node:http. */
function viaHttp(url, method, headers, payload) {
    return new Promise((resolve, reject) => {
        const req = node_http_1.default.request(url, { method, headers: { ...headers, "content-length": Buffer.byteLength(payload) } }, (res) => {
            let text = "";
            res.setEncoding("utf8");
            res.on("data", (chunk) => (text += chunk));
            res.on("end", () => {
                const replyHeaders = new Headers();
                for (const [k, v] of Object.entries(res.headers))
                    if (v !== undefined)
                        replyHeaders.set(k, Array.isArray(v) ? v.join(", ") : v);
                resolve({ status: res.statusCode ?? 0, headers: replyHeaders, text });
            });
        });
        req.on("error", reject);
        req.end(payload);
    });
}
/** A client bound to one platform, optionally signed in. */
function client(baseUrl, token) {
    const send = (method, url, options = {}) => request(baseUrl, method, url, { token, ...options });
    return {
        get: (url, options) => send("GET", url, options),
        post: (url, body, options) => send("POST", url, { body, ...options }),
        put: (url, body, options) => send("PUT", url, { body, ...options }),
        patch: (url, body, options) => send("PATCH", url, { body, ...options }),
        delete: (url, options) => send("DELETE", url, options),
        send,
    };
}
async function login(baseUrl, username = "admin", password = exports.ADMIN_PASSWORD) {
    const reply = await request(baseUrl, "POST", "/login", { body: { user: { username, password } } });
    if (reply.status !== 200)
        throw new Error(`login as ${username} failed: ${reply.status} ${reply.text}`);
    noteSecret(reply.text);
    return reply.text;
}
/** Notes a secret the run used: the run's log must never hold it (test/support/global-teardown.js). */
function noteSecret(secret) {
    if (process.env.TEST_SECRETS_FILE)
        node_fs_1.default.appendFileSync(process.env.TEST_SECRETS_FILE, secret + "\n");
}
/** Every platform of the run appends its log lines to the run's log at info (global-setup.js). */
function runLogEnv() {
    return process.env.TEST_LOG_FILE ? { LOG_FILE: process.env.TEST_LOG_FILE, LOG_FILE_LEVEL: "info" } : {};
}
/** Asserts docs/platform-rules.md#errors's error body and returns it. */
function expectError(reply, status, type) {
    expect({ status: reply.status, type: reply.body?.type }).toEqual({ status, type });
    expect(reply.body).toEqual(expect.objectContaining({ name: expect.any(String), message: expect.any(String), code: status, type }));
    expect(reply.text).not.toMatch(/\n\s+at /); // never a stack trace
    return reply.body;
}
/** A client that remembers every reply it got, so a test can search them all for secrets. */
function tracked(api, seen) {
    const wrap = (fn) => async (...args) => {
        const reply = await fn(...args);
        seen.push(reply);
        return reply;
    };
    return {
        get: wrap(api.get),
        post: wrap(api.post),
        put: wrap(api.put),
        patch: wrap(api.patch),
        delete: wrap(api.delete),
        send: wrap(api.send),
    };
}
/** The password of every account `clientWithRoles` makes. */
exports.ROLE_HOLDER_PASSWORD = "role-holder-password";
/** A new account in a new group holding exactly `roles`, signed in. */
async function clientWithRoles(platform, admin, roles) {
    const suffix = (0, node_crypto_1.randomUUID)().slice(0, 8);
    const group = await admin.post("/user-management/groups", { name: `g-${suffix}`, assignedRoles: roles });
    expect(group.status).toBe(200);
    const username = `u-${suffix}`;
    const password = exports.ROLE_HOLDER_PASSWORD;
    const account = await admin.post("/user-management/accounts", {
        username,
        password,
        groups: [`g-${suffix}`],
    });
    expect(account.status).toBe(200);
    return client(platform.baseUrl, await login(platform.baseUrl, username, password));
}
//# sourceMappingURL=platform.js.map