"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Compliance throughput: `npm run bench:compliance` (docs/configuration-manager.md#benchmark).
 *
 * BENCH_DEVICES (1,000) device backups of a ~600-line IOS config (test/fixtures/configuration, grown
 * with more interfaces; every 10th device has violations) checked against a ~200-line spec tree
 * (base + dc1 + edge nodes) as one batch, by the real configuration service on the embedded store,
 * all in this process. Reports devices/s (batch created to batch complete, reports stored) and the
 * peak RSS of the process. Table on stdout, JSON in bench/results/compliance.json.
 *
 * Two scenarios: one replica (the service in this process), and two (a second configuration
 * process over NATS, sharing the store through the `store` service on the bus). The devices are
 * queued as BENCH_BATCHES batches: a batch is one replica's at a time (its lease), so batches are
 * how replicas share work. Every device must have exactly one report (duplicates and missing are
 * counted).
 *
 * Env: BENCH_DEVICES (1000), BENCH_BATCHES (4), BENCH_ONLY (one,two), COMPLIANCE_CHUNK (100), NATS_URL.
 */
const node_fs_1 = __importDefault(require("node:fs"));
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const mongodb_1 = require("mongodb");
const env_1 = require("./support/env");
const store_1 = require("./support/store");
const children_1 = require("./support/children");
const platform_1 = require("./support/platform");
const DEVICES = (0, env_1.intEnv)("BENCH_DEVICES", 1000, 1);
const AIM_DEVICES_PER_S = 500;
const FIXTURES = node_path_1.default.resolve(__dirname, "../../test/fixtures/configuration");
const read = (name) => node_fs_1.default.readFileSync(node_path_1.default.join(FIXTURES, name), "utf8");
/** The fixture router with 40 more access interfaces: about 600 lines. */
function deviceConfig(i) {
    const extra = Array.from({ length: 40 }, (_, k) => [
        `interface GigabitEthernet1/0/${k}`,
        ` description edge-port-${k}`,
        " switchport mode access",
        " shutdown",
        "!",
    ].join("\n")).join("\n");
    let config = read("ios-edge-rtr1.cfg").replace("router ospf 1", `${extra}\nrouter ospf 1`);
    config = config.replace("hostname edge-rtr1", `hostname edge-rtr${i}`);
    if (i % 10 === 0)
        config = config.replace("no ip http server", "ip http server").replace("aaa new-model\n", "");
    return config;
}
/** The base spec of the fixtures plus a block per access interface: about 200 lines. */
function baseSpec() {
    const ports = Array.from({ length: 44 }, (_, k) => [
        `interface GigabitEthernet0/0/${k + 2}`,
        " switchport mode access",
        " spanning-tree portfast",
        " {d/}ip address {/.*/} {/.*/}",
    ].join("\n")).join("\n");
    return `${read("ios-base.spec")}\n${ports}`;
}
const BATCHES = (0, env_1.intEnv)("BENCH_BATCHES", 4, 1);
const NATS_URL = process.env.NATS_URL || "nats://127.0.0.1:4222";
/** Peak RSS of a child process (VmHWM from /proc: Linux only; null elsewhere). */
function childPeakRssMiB(pid) {
    try {
        const status = node_fs_1.default.readFileSync(`/proc/${pid}/status`, "utf8");
        const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]);
        return Number.isFinite(kb) ? Math.round(kb / 1024) : null;
    }
    catch {
        return null;
    }
}
/** The tree, its three nodes and one backup per device, written through the service and the store. */
async function seedTree(broker, devices) {
    const tree = await broker.call("configuration.createTree", { name: "Bench", deviceType: "cisco-ios" });
    const spec = baseSpec();
    await broker.call("configuration.setNode", {
        treeId: tree._id,
        version: "initial",
        nodePath: "base",
        config: spec,
    });
    await broker.call("configuration.setNode", {
        treeId: tree._id,
        version: "initial",
        nodePath: "base/dc1",
        config: read("ios-dc1.spec"),
        variables: { site: "dc1", ntp1: "10.10.1.10", ntp2: "10.10.1.11" },
    });
    await broker.call("configuration.setNode", {
        treeId: tree._id,
        version: "initial",
        nodePath: "base/dc1/edge",
        config: read("ios-dc1-edge.spec"),
        variables: { asn: "65000" },
        devices,
    });
    await (0, store_1.withStore)(broker, async (store) => {
        const docs = devices.map((deviceName, i) => ({
            _id: new mongodb_1.ObjectId().toHexString(),
            deviceName,
            description: "",
            config: deviceConfig(i),
            timestamp: new Date().toISOString(),
        }));
        for (let i = 0; i < docs.length; i += 200)
            await store.collection("config_backups").insertMany(docs.slice(i, i + 200));
    });
    const specLines = [spec, read("ios-dc1.spec"), read("ios-dc1-edge.spec")].reduce((n, text) => n + text.split("\n").length, 0);
    return { treeId: tree._id, specLines };
}
/**
 * One scenario: the devices checked as BATCHES batches (a batch is one replica's at a time, so
 * batches are how replicas share the work). `replicas` 2 adds the configuration service in a second
 * process over NATS, sharing the store through the `store` service on the bus.
 */
async function scenario(replicas) {
    const dataDir = node_fs_1.default.mkdtempSync(node_path_1.default.join(node_os_1.default.tmpdir(), "compliance-bench-"));
    const namespace = `bench-compliance-${process.pid}-${replicas}`;
    // Every replica sweeps often: queued batches are picked up by whichever replica is free.
    const bus = {
        COMPLIANCE_SWEEP_MS: "50",
        ...(replicas === 2 && { TRANSPORTER: NATS_URL, NAMESPACE: namespace }),
    };
    const broker = await (0, platform_1.startPlatform)((0, platform_1.platformEnv)({ DATA_DIR: dataDir, SERVICES: "store,accounts,configuration", ...bus }));
    let child;
    try {
        const devices = Array.from({ length: DEVICES }, (_, i) => `edge-rtr${i}`);
        const { treeId, specLines } = await seedTree(broker, devices);
        if (replicas === 2) {
            child = (0, children_1.spawnTracked)(process.execPath, [node_path_1.default.resolve(__dirname, "../app/main.js")], {
                stdio: ["ignore", "inherit", "inherit"],
                env: {
                    ...process.env,
                    ...(0, platform_1.platformEnv)({ SERVICES: "configuration", ...bus }),
                    NODE_ID: `${namespace}-b`,
                },
            });
            // Both replicas on the bus before the batches are queued, so both can claim from the start.
            for (let i = 0; i < 200; i++) {
                const nodes = broker.registry
                    .getServiceList({ onlyAvailable: true })
                    .filter((s) => s.name === "configuration");
                if (nodes.length >= 2)
                    break;
                await new Promise((r) => setTimeout(r, 100));
            }
        }
        let peakRss = process.memoryUsage().rss;
        const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
        const started = performance.now();
        const size = Math.ceil(DEVICES / BATCHES);
        const batchIds = [];
        for (let b = 0; b < BATCHES; b++) {
            const run = await broker.call("configuration.runCompliance", {
                treeId,
                version: "initial",
                nodePath: "base",
                devices: devices.slice(b * size, (b + 1) * size),
            });
            batchIds.push(run.batchId);
        }
        let batches = [];
        for (;;) {
            batches = await (0, store_1.withStore)(broker, (store) => store.collection("compliance_batches").find({ _id: { $in: batchIds } }));
            if (batches.every((b) => b.state === "complete" || b.state === "error"))
                break;
            await new Promise((r) => setTimeout(r, 10));
        }
        const seconds = (performance.now() - started) / 1000;
        clearInterval(sampler);
        const reports = await (0, store_1.withStore)(broker, (store) => store
            .collection("compliance_reports")
            .find({ batchId: { $in: batchIds } }, { projection: { batchId: 1, deviceName: 1 } }));
        const distinct = new Set(reports.map((r) => `${r.batchId}/${r.deviceName}`)).size;
        const byReplica = {};
        for (const b of batches)
            byReplica[b.claimedBy] = (byReplica[b.claimedBy] ?? 0) + 1;
        return {
            replicas,
            devices: DEVICES,
            batches: BATCHES,
            configLines: deviceConfig(1).split("\n").length,
            specLines,
            states: [...new Set(batches.map((b) => b.state))].join(","),
            reports: reports.length,
            duplicates: reports.length - distinct,
            missing: DEVICES - distinct,
            batchesPerReplica: Object.values(byReplica).join("+"),
            seconds: Number(seconds.toFixed(3)),
            devicesPerSecond: Math.round(DEVICES / seconds),
            peakRssMiB: Math.round(peakRss / 2 ** 20),
            childPeakRssMiB: child ? childPeakRssMiB(child.pid) : null,
        };
    }
    finally {
        if (child)
            await (0, children_1.stopChild)(child);
        await broker.stop();
        node_fs_1.default.rmSync(dataDir, { recursive: true, force: true });
    }
}
async function main() {
    const only = process.env.BENCH_ONLY?.split(",");
    const results = [];
    for (const replicas of [1, 2])
        if (!only || only.includes(replicas === 1 ? "one" : "two"))
            results.push(await scenario(replicas));
    console.table(results);
    for (const r of results)
        console.log(`${r.replicas} replica(s): ${r.devicesPerSecond} devices/s (aim >= ${AIM_DEVICES_PER_S}: ${r.devicesPerSecond >= AIM_DEVICES_PER_S ? "met" : "NOT met"}), ${r.duplicates} duplicate and ${r.missing} missing reports`);
    const out = node_path_1.default.resolve(__dirname, "../../bench/results");
    node_fs_1.default.mkdirSync(out, { recursive: true });
    node_fs_1.default.writeFileSync(node_path_1.default.join(out, "compliance.json"), JSON.stringify({ aim: AIM_DEVICES_PER_S, results }, null, 2));
    await (0, children_1.stopAllChildren)();
}
main().catch((err) => {
    console.error(err);
    process.exit(1);
});
//# sourceMappingURL=compliance.bench.js.map