"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.spawnServices = spawnServices;
exports.eventually = eventually;
exports.freePort = freePort;
/**
 * Runs platform services as separate OS processes (`node dist/app/main.js`), the way one
 * deployment per service runs them. jest's globalSetup builds dist/ first.
 */
const node_child_process_1 = require("node:child_process");
const node_net_1 = __importDefault(require("node:net"));
const node_path_1 = __importDefault(require("node:path"));
const platform_1 = require("./platform");
const RUNNER = node_path_1.default.resolve(__dirname, "../../dist/app/main.js");
function spawnServices(env) {
    const child = (0, node_child_process_1.spawn)(process.execPath, [RUNNER], {
        env: {
            PATH: process.env.PATH ?? "",
            LOG_LEVEL: "warn",
            RATE_LIMIT: "0",
            METRICS_PORT: "0",
            ...(0, platform_1.runLogEnv)(),
            ...env,
        },
        stdio: ["ignore", "pipe", "pipe"],
    });
    let log = "";
    child.stdout.on("data", (d) => (log += d));
    child.stderr.on("data", (d) => (log += d));
    const exited = new Promise((resolve) => child.once("exit", () => resolve()));
    return {
        child,
        output: () => log,
        async stop(signal = "SIGTERM") {
            if (child.exitCode === null && child.signalCode === null)
                child.kill(signal);
            await exited;
        },
    };
}
/** Polls `check` until it returns true or `timeoutMs` passes. */
async function eventually(check, timeoutMs = 15_000, what = "condition") {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
        if (await check().catch(() => false))
            return;
        await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
/** A TCP port free on 127.0.0.1 right now (for a process that must be told its port). */
function freePort() {
    return new Promise((resolve) => {
        const server = node_net_1.default.createServer();
        server.listen(0, "127.0.0.1", () => {
            const { port } = server.address();
            server.close(() => resolve(port));
        });
    });
}
//# sourceMappingURL=processes.js.map