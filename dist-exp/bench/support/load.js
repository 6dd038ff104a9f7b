"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.measure = measure;
/**
 * The load generator: autocannon's CLI in its own child process, so it never shares an event loop
 * with the server under test (it still shares the machine's cores: see docs/performance.md).
 * Every scenario gets the same settings: a warm-up run whose figures are discarded, then the
 * measured run. autocannon keeps its connections alive (HTTP keep-alive), pipelining 1.
 */
const node_path_1 = __importDefault(require("node:path"));
const children_1 = require("./children");
const cpu_1 = require("./cpu");
const WRITE_LOAD = node_path_1.default.join(__dirname, "write-load.js");
const AUTOCANNON = node_path_1.default.join(node_path_1.default.dirname(require.resolve("autocannon/package.json")), "autocannon.js");
async function autocannon(url, headers, connections, durationS, onSpawn = () => undefined, request) {
    const u = new URL(url);
    if (u.hostname !== "127.0.0.1")
        throw new Error(`the bench only targets 127.0.0.1, not ${u.hostname}`);
    const args = [AUTOCANNON, "-c", String(connections), "-d", String(durationS), "-j"];
    for (const [k, v] of Object.entries(headers))
        args.push("-H", `${k}=${v}`);
    if (request)
        args.push("-m", request.method, ...(request.body !== undefined ? ["-b", request.body] : []));
    args.push(url);
    if (request?.idReplacement) {
        // A fresh id per request: ./write-load.ts (the CLI's -I sends nothing in this version).
        args.splice(0, args.length, WRITE_LOAD, JSON.stringify({ url, connections, durationS, headers, ...request }));
    }
    const child = (0, children_1.spawnTracked)(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    if (child.pid)
        onSpawn(child.pid);
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    // Bounded: the run's own duration plus a generous margin for start-up and the last replies.
    const code = await (0, children_1.waitExit)(child, (durationS + 30) * 1000);
    if (code !== 0)
        throw new Error(`autocannon exited ${code}: ${err.trim().slice(-500)}`);
    const r = JSON.parse(out);
    return {
        reqPerSec: r.requests.average,
        p50Ms: r.latency.p50,
        p99Ms: r.latency.p99,
        requests: r.requests.total,
        non2xx: r.non2xx,
        errors: r.errors,
        timeouts: r.timeouts,
    };
}
async function measure(url, headers, settings, request) {
    if (settings.quietWaitS > 0)
        await (0, cpu_1.waitQuiet)(settings.quietWaitS * 1000);
    if (settings.warmupS > 0)
        await autocannon(url, headers, settings.connections, settings.warmupS, undefined, request);
    const watch = (0, cpu_1.watchCpu)(children_1.childPids);
    let generator = 0;
    const run = await autocannon(url, headers, settings.connections, settings.durationS, (pid) => (generator = pid), request);
    const { byPid, natsPids, ...cpu } = watch.stop();
    const cpuMs = { bench: 0, children: 0, natsServer: 0, generator: 0 };
    for (const [pid, ms] of Object.entries(byPid).map(([p, ms]) => [Number(p), ms])) {
        const role = pid === process.pid
            ? "bench"
            : pid === generator
                ? "generator"
                : natsPids.includes(pid)
                    ? "natsServer"
                    : "children";
        cpuMs[role] += Math.round(ms);
    }
    const serverMs = cpuMs.bench + cpuMs.children + cpuMs.natsServer;
    const result = {
        ...run,
        cpu: { ...cpu, ms: cpuMs },
        serverCpuUsPerReq: cpu.others === null || run.requests === 0 ? null : Math.round((serverMs * 1000) / run.requests),
    };
    if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
        // Fast error answers would inflate req/s: such a run is reported, flagged, never silently used.
        console.warn(`  ! ${url}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
    }
    return result;
}
//# sourceMappingURL=load.js.map