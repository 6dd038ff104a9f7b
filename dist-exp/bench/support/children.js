"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.spawnTracked = spawnTracked;
exports.childPids = childPids;
exports.waitExit = waitExit;
exports.stopChild = stopChild;
exports.stopAllChildren = stopAllChildren;
exports.scratchSpace = scratchSpace;
/**
 * Child processes of the bench, tracked so they all die with it: on normal end, on a thrown error,
 * on Ctrl-C, and (best effort, SIGKILL) on process exit. Children watch the IPC channel too
 * (watchdog.ts), so even a SIGKILLed bench leaves nothing running for long.
 */
const node_child_process_1 = require("node:child_process");
const node_fs_1 = __importDefault(require("node:fs"));
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const live = new Set();
function spawnTracked(command, args, options) {
    const child = (0, node_child_process_1.spawn)(command, args, options);
    live.add(child);
    child.once("exit", () => live.delete(child));
    return child;
}
/** pids of the children running now (for CPU accounting). */
function childPids() {
    return [...live].flatMap((c) => (c.pid ? [c.pid] : []));
}
/** Resolves with the exit code; rejects when the child does not exit within `ms` (it is killed then). */
function waitExit(child, ms) {
    if (child.exitCode !== null || child.signalCode !== null)
        return Promise.resolve(child.exitCode);
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
            child.kill("SIGKILL");
            reject(new Error(`child ${child.pid} did not finish within ${ms} ms (killed)`));
        }, ms);
        child.once("exit", (code) => {
            clearTimeout(timer);
            resolve(code);
        });
    });
}
/** SIGTERM (graceful broker stop), then SIGKILL after `graceMs`. */
async function stopChild(child, graceMs = 5000) {
    if (child.exitCode !== null || child.signalCode !== null)
        return;
    child.kill("SIGTERM");
    await waitExit(child, graceMs).catch(() => undefined);
}
async function stopAllChildren() {
    await Promise.all([...live].map((c) => stopChild(c)));
}
// Last resort: 'exit' handlers must be synchronous, so only SIGKILL fits here.
process.once("exit", () => {
    for (const child of live)
        child.kill("SIGKILL");
});
/**
 * A bench's scratch space: a temp root removed at exit, and on SIGINT/SIGTERM every child stopped
 * first. Answers a function that makes a fresh data dir under it.
 */
function scratchSpace(prefix) {
    const root = node_fs_1.default.mkdtempSync(node_path_1.default.join(node_os_1.default.tmpdir(), prefix));
    process.once("exit", () => node_fs_1.default.rmSync(root, { recursive: true, force: true }));
    for (const signal of ["SIGINT", "SIGTERM"]) {
        process.once(signal, () => {
            console.error(`\n${signal}: stopping children`);
            void stopAllChildren().finally(() => process.exit(130));
        });
    }
    let dirs = 0;
    return () => node_fs_1.default.mkdtempSync(node_path_1.default.join(root, `data-${dirs++}-`));
}
//# sourceMappingURL=children.js.map