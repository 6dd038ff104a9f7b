/**
 * Compliance throughput: `npm run bench:compliance` (docs/configuration-manager.md#benchmark).
 *
 * BENCH_DEVICES (1,000) device backups of a ~600-line IOS config (test/fixtures/configuration, grown
 * with more interfaces; every 10th device has violations) checked against a ~200-line spec tree
 * (base + dc1 + edge nodes) as one batch, by the real configuration service on the embedded store,
 * all in this process. Reports devices/s (batch created to batch complete, reports stored) and the
 * peak RSS of the process. Table on stdout, JSON in bench/results/compliance.json.
 *
 * Env: BENCH_DEVICES (1000), COMPLIANCE_CHUNK (100).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ServiceBroker } from "moleculer";
import { ObjectId } from "mongodb";
import { acquireStore, releaseStore } from "../shared/runtime";
import { intEnv } from "./support/env";
import { platformEnv, startPlatform } from "./support/platform";

const DEVICES = intEnv("BENCH_DEVICES", 1000, 1);
const AIM_DEVICES_PER_S = 500;
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

async function withStore<T>(
  broker: ServiceBroker,
  fn: (store: Awaited<ReturnType<typeof acquireStore>>) => Promise<T>,
) {
  const store = await acquireStore(broker);
  try {
    return await fn(store);
  } finally {
    await releaseStore(broker);
  }
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "compliance-bench-"));
  const broker = await startPlatform(
    platformEnv({ DATA_DIR: dataDir, SERVICES: "store,accounts,configuration" }),
  );
  try {
    const tree: any = await broker.call("configuration.createTree", {
      name: "Bench",
      deviceType: "cisco-ios",
    });
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
    const devices = Array.from({ length: DEVICES }, (_, i) => `edge-rtr${i}`);
    await broker.call("configuration.setNode", {
      treeId: tree._id,
      version: "initial",
      nodePath: "base/dc1/edge",
      config: read("ios-dc1-edge.spec"),
      variables: { asn: "65000" },
      devices,
    });
    const specLines =
      spec.split("\n").length +
      read("ios-dc1.spec").split("\n").length +
      read("ios-dc1-edge.spec").split("\n").length;
    const configLines = deviceConfig(1).split("\n").length;
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

    let peakRss = process.memoryUsage().rss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
    const started = performance.now();
    const run: any = await broker.call("configuration.runCompliance", {
      treeId: tree._id,
      version: "initial",
      nodePath: "base",
    });
    let batch: any;
    for (;;) {
      batch = await withStore(broker, (store) =>
        store.collection("compliance_batches").findOne({ _id: run.batchId }),
      );
      if (batch.state === "complete" || batch.state === "error") break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const reports = await withStore(broker, (store) =>
      store.collection("compliance_reports").count({ batchId: run.batchId }),
    );
    const result = {
      devices: DEVICES,
      configLines,
      specLines,
      replicas: 1,
      state: batch.state,
      reports,
      seconds: Number(seconds.toFixed(3)),
      devicesPerSecond: Math.round(DEVICES / seconds),
      peakRssMiB: Math.round(peakRss / 2 ** 20),
      totals: batch.totals,
      aim: AIM_DEVICES_PER_S,
    };
    console.table([result]);
    console.log(
      `${result.devicesPerSecond} devices/s (aim >= ${AIM_DEVICES_PER_S}): ${result.devicesPerSecond >= AIM_DEVICES_PER_S ? "met" : "NOT met"}`,
    );
    const out = path.resolve(__dirname, "../../bench/results");
    fs.mkdirSync(out, { recursive: true });
    fs.writeFileSync(path.join(out, "compliance.json"), JSON.stringify(result, null, 2));
  } finally {
    await broker.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
