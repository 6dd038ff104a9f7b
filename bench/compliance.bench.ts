/**
 * Compliance throughput: `npm run bench:compliance` (docs/configuration-manager.md#benchmark).
 *
 * BENCH_DEVICES (1,000) device backups of a ~600-line IOS config (test/fixtures/configuration, grown
 * with more interfaces; every 10th device has violations) checked against a ~200-line spec tree
 * (base + dc1 + edge nodes) as one batch, by the real configuration service on the embedded store,
 * all in this process. Reports devices/s (batch created to batch complete, reports stored) and the
 * peak RSS of the process, after a warm-up batch of 20 devices (threads started, code compiled). Table on stdout, JSON in bench/results/compliance.json.
 *
 * Three scenarios, same run: one replica evaluating on its own event loop (`single`,
 * COMPLIANCE_WORKERS=0: the baseline), one replica with its worker pool (`pool`, one thread per
 * core), and two replicas with their pools (`two`: a second configuration process over NATS,
 * sharing the store through the `store` service on the bus). The devices are queued as
 * BENCH_BATCHES batches: a batch is one replica's at a time (its lease), so batches are how
 * replicas share work. Every device must have exactly one report (duplicates and missing are
 * counted). While the batches run, `GET /health` is asked every 20 ms (the gateway runs in the
 * bench's process): its p99 and max say how long the event loop was held.
 *
 * Env: BENCH_DEVICES (1000), BENCH_BATCHES (4), BENCH_ONLY (single,pool,two), COMPLIANCE_CHUNK (100),
 * NATS_URL.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { callAsPlatform } from "../shared/authorization";
import type { ServiceBroker } from "moleculer";
import { ObjectId } from "mongodb";
import { configOf } from "../shared/runtime";
import { intEnv } from "./support/env";
import { withStore } from "./support/store";
import { spawnTracked, stopChild } from "./support/children";
import { runBench } from "./support/main";
import { httpUrl, platformEnv, startPlatform } from "./support/platform";
import { probeHealth } from "./support/health-probe";
import { PLATFORM_NODE_FLAGS } from "../app/node-flags";
import { resultsDir } from "./support/report";

const DEVICES = intEnv("BENCH_DEVICES", 1000, 1);
const AIM_DEVICES_PER_S = 500;
/** The pool against the single loop, same run, on 2 cores. */
const AIM_POOL_RATIO = 1.6;
/** /health p99 while the batches run. */
const AIM_HEALTH_P99_MS = 100;
const FIXTURES = path.resolve(__dirname, "../../test/fixtures/configuration");
const read = (name: string) => fs.readFileSync(path.join(FIXTURES, name), "utf8");

/** The fixture router with 40 more access interfaces: about 600 lines. */
function deviceConfig(i: number): string {
  const extra = Array.from({ length: 40 }, (_, k) =>
    [
      `interface GigabitEthernet1/0/${k}`,
      ` description edge-port-${k}`,
      " switchport mode access",
      " shutdown",
      "!",
    ].join("\n"),
  ).join("\n");
  let config = read("ios-edge-rtr1.cfg").replace("router ospf 1", `${extra}\nrouter ospf 1`);
  config = config.replace("hostname edge-rtr1", `hostname edge-rtr${i}`);
  if (i % 10 === 0)
    config = config.replace("no ip http server", "ip http server").replace("aaa new-model\n", "");
  return config;
}

/** The base spec of the fixtures plus a block per access interface: about 200 lines. */
function baseSpec(): string {
  const ports = Array.from({ length: 44 }, (_, k) =>
    [
      `interface GigabitEthernet0/0/${k + 2}`,
      " switchport mode access",
      " spanning-tree portfast",
      " {d/}ip address {/.*/} {/.*/}",
    ].join("\n"),
  ).join("\n");
  return `${read("ios-base.spec")}\n${ports}`;
}

const BATCHES = intEnv("BENCH_BATCHES", 4, 1);
const NATS_URL = process.env.NATS_URL || "nats://127.0.0.1:4222";

/** Peak RSS of a child process (VmHWM from /proc: Linux only; null elsewhere). */
function childPeakRssMiB(pid: number | undefined): number | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]);
    return Number.isFinite(kb) ? Math.round(kb / 1024) : null;
  } catch {
    return null;
  }
}

/** The tree, its three nodes and one backup per device, written through the service and the store. */
async function seedTree(
  broker: ServiceBroker,
  devices: string[],
): Promise<{ treeId: string; specLines: number }> {
  const tree: any = await callAsPlatform(broker, "configuration.createTree", {
    name: "Bench",
    deviceType: "cisco-ios",
  });
  const spec = baseSpec();
  await callAsPlatform(broker, "configuration.setNode", {
    treeId: tree._id,
    version: "initial",
    nodePath: "base",
    config: spec,
  });
  await callAsPlatform(broker, "configuration.setNode", {
    treeId: tree._id,
    version: "initial",
    nodePath: "base/dc1",
    config: read("ios-dc1.spec"),
    variables: { site: "dc1", ntp1: "10.10.1.10", ntp2: "10.10.1.11" },
  });
  await callAsPlatform(broker, "configuration.setNode", {
    treeId: tree._id,
    version: "initial",
    nodePath: "base/dc1/edge",
    config: read("ios-dc1-edge.spec"),
    variables: { asn: "65000" },
    devices,
  });
  await withStore(broker, async (store) => {
    const docs = devices.map((deviceName, i) => ({
      _id: new ObjectId().toHexString(),
      deviceName,
      description: "",
      config: deviceConfig(i),
      timestamp: new Date().toISOString(),
    }));
    for (let i = 0; i < docs.length; i += 200)
      await store.collection("config_backups").insertMany(docs.slice(i, i + 200));
  });
  const specLines = [spec, read("ios-dc1.spec"), read("ios-dc1-edge.spec")].reduce(
    (n, text) => n + text.split("\n").length,
    0,
  );
  return { treeId: tree._id, specLines };
}

type Scenario = "single" | "pool" | "two";

/**
 * One scenario: the devices checked as BATCHES batches (a batch is one replica's at a time, so
 * batches are how replicas share the work). `two` adds the configuration service in a second
 * process over NATS, sharing the store through the `store` service on the bus; `single` evaluates
 * on the service's event loop (no worker threads).
 */
async function scenario(name: Scenario) {
  const replicas = name === "two" ? 2 : 1;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "compliance-bench-"));
  const namespace = `bench-compliance-${process.pid}-${replicas}`;
  // Every replica sweeps often: queued batches are picked up by whichever replica is free.
  const bus: Record<string, string> = {
    COMPLIANCE_SWEEP_MS: "50",
    ...(name === "single" && { COMPLIANCE_WORKERS: "0" }),
    ...(replicas === 2 && { TRANSPORTER: NATS_URL, NAMESPACE: namespace }),
  };
  const broker = await startPlatform(
    platformEnv({ DATA_DIR: dataDir, SERVICES: "store,accounts,configuration,gateway", ...bus }),
  );
  let child: ReturnType<typeof spawnTracked> | undefined;
  try {
    const devices = Array.from({ length: DEVICES }, (_, i) => `edge-rtr${i}`);
    const { treeId, specLines } = await seedTree(broker, devices);
    if (replicas === 2) {
      child = spawnTracked(
        process.execPath,
        [...PLATFORM_NODE_FLAGS, path.resolve(__dirname, "../app/main.js")],
        {
          stdio: ["ignore", "inherit", "inherit"],
          env: {
            ...process.env,
            ...platformEnv({ SERVICES: "configuration", ...bus }),
            NODE_ID: `${namespace}-b`,
          },
        },
      );
      // Both replicas on the bus before the batches are queued, so both can claim from the start.
      for (let i = 0; i < 200; i++) {
        const nodes = broker.registry
          .getServiceList({ onlyAvailable: true })
          .filter((s: any) => s.name === "configuration");
        if (nodes.length >= 2) break;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const run = async (lists: string[][]) => {
      const ids: string[] = [];
      for (const list of lists) {
        const queued: any = await callAsPlatform(broker, "configuration.runCompliance", {
          treeId,
          version: "initial",
          nodePath: "base",
          devices: list,
        });
        ids.push(queued.batchId);
      }
      for (;;) {
        const found = await withStore(broker, (store) =>
          store.collection("compliance_batches").find({ _id: { $in: ids } }),
        );
        if (found.every((b) => b.state === "complete" || b.state === "error")) return { ids, batches: found };
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    // Warm-up, not measured: the worker threads started and the code compiled, as in a running replica.
    await run([devices.slice(0, 20)]);
    // process.memoryUsage() walks the heap spaces; rss() alone is a cheap read.
    let peakRss = process.memoryUsage.rss();
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 20);
    const probe = probeHealth(httpUrl(broker));
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const size = Math.ceil(DEVICES / BATCHES);
    const { ids: batchIds, batches } = await run(
      Array.from({ length: BATCHES }, (_, b) => devices.slice(b * size, (b + 1) * size)),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const health = await probe.stop();
    clearInterval(sampler);
    const reports = await withStore(broker, (store) =>
      store
        .collection("compliance_reports")
        .find({ batchId: { $in: batchIds } }, { projection: { batchId: 1, deviceName: 1 } }),
    );
    const distinct = new Set(reports.map((r: any) => `${r.batchId}/${r.deviceName}`)).size;
    const byReplica: Record<string, number> = {};
    for (const b of batches) byReplica[b.claimedBy] = (byReplica[b.claimedBy] ?? 0) + 1;
    return {
      scenario: name,
      replicas,
      workers: name === "single" ? 0 : configOf(broker).compliance.workers,
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
      // CPU time of this process, worker threads included: what the batches cost, whatever the load.
      cpuSeconds: Number(((cpu.user + cpu.system) / 1e6).toFixed(2)),
      devicesPerCpuSecond: Math.round(DEVICES / ((cpu.user + cpu.system) / 1e6)),
      healthP99Ms: health.p99Ms,
      healthMaxMs: health.maxMs,
      healthProbes: health.probes,
      peakRssMiB: Math.round(peakRss / 2 ** 20),
      childPeakRssMiB: child ? childPeakRssMiB(child.pid) : null,
    };
  } finally {
    if (child) await stopChild(child);
    await broker.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const only = process.env.BENCH_ONLY?.split(",");
  const results = [];
  for (const name of ["single", "pool", "two"] as const)
    if (!only || only.includes(name)) results.push(await scenario(name));
  console.table(results);
  for (const r of results)
    console.log(
      `${r.scenario} (${r.replicas} replica(s), ${r.workers} worker(s)): ${r.devicesPerSecond} devices/s (aim >= ${AIM_DEVICES_PER_S}: ${r.devicesPerSecond >= AIM_DEVICES_PER_S ? "met" : "NOT met"}), /health p99 ${r.healthP99Ms} ms (aim < ${AIM_HEALTH_P99_MS}: ${r.healthP99Ms < AIM_HEALTH_P99_MS ? "met" : "NOT met"}), ${r.duplicates} duplicate and ${r.missing} missing reports`,
    );
  const single = results.find((r) => r.scenario === "single");
  const pool = results.find((r) => r.scenario === "pool");
  const ratio = single && pool ? Number((pool.devicesPerSecond / single.devicesPerSecond).toFixed(2)) : null;
  if (ratio !== null)
    console.log(
      `pool / single loop: ${ratio}x (aim >= ${AIM_POOL_RATIO}x on 2 cores: ${ratio >= AIM_POOL_RATIO ? "met" : "NOT met"}; ${os.availableParallelism()} cores here)`,
    );
  const out = resultsDir();
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(
    path.join(out, "compliance.json"),
    JSON.stringify(
      {
        aim: {
          devicesPerSecond: AIM_DEVICES_PER_S,
          poolRatio: AIM_POOL_RATIO,
          healthP99Ms: AIM_HEALTH_P99_MS,
        },
        cores: os.availableParallelism(),
        poolRatio: ratio,
        results,
      },
      null,
      2,
    ),
  );
}

runBench(main);
