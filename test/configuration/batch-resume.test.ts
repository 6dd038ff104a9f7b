/**
 * A compliance batch survives its replica: a batch left half-done by a replica that died (its lease
 * in the store, nothing in a process) is resumed by another once the lease runs out, without writing
 * a report twice; and a batch running when the service stops finishes after a restart on the same store.
 */
import fs from "node:fs";
import path from "node:path";
import { withStore } from "../support/engine-fixtures";
import { client, login, startPlatform, tempDir, type Client, type Platform } from "../support/platform";

const IOS = fs.readFileSync(path.join(__dirname, "../fixtures/configuration/ios-edge-rtr1.cfg"), "utf8");
const SPEC = fs.readFileSync(path.join(__dirname, "../fixtures/configuration/ios-base.spec"), "utf8");
const DEVICES = Array.from({ length: 60 }, (_, i) => `rtr${String(i).padStart(2, "0")}`);

async function seed(api: Client): Promise<string> {
  const tree = await api.post("/configuration_manager/configs", { name: "Resume", deviceType: "ios" });
  expect(tree.status).toBe(200);
  const treeId = tree.body._id;
  const node = await api.put(`/configuration_manager/configs/${treeId}/versions/initial/nodes`, {
    nodePath: "base",
    config: SPEC,
    devices: DEVICES,
  });
  expect(node.status).toBe(200);
  for (const deviceName of DEVICES) {
    const config = deviceName.endsWith("7") ? IOS.replace("aaa new-model\n", "") : IOS;
    expect((await api.post("/configuration_manager/backups", { deviceName, config })).status).toBe(200);
  }
  return treeId;
}

const reportsOf = (platform: Platform, batchId: string) =>
  withStore(platform.broker, (store) =>
    store.collection("compliance_reports").find({ batchId }, { sort: { deviceName: 1 } }),
  );

async function waitComplete(api: Client, batchId: string) {
  for (let i = 0; i < 300; i++) {
    const reply = await api.get(`/configuration_manager/compliance_reports/batches/${batchId}`);
    if (reply.body.state === "complete") return reply.body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("batch did not complete");
}

test("a dead replica's half-done batch is resumed after its lease, each report written once", async () => {
  const platform = await startPlatform({ env: { COMPLIANCE_SWEEP_MS: "3600000", COMPLIANCE_CHUNK: "7" } });
  try {
    const api = client(platform.baseUrl, await login(platform.baseUrl));
    const treeId = await seed(api);
    const service = platform.broker.getLocalService("configuration") as unknown as { clock: () => number };
    // The batch as a replica that died after 2 devices left it: claimed, lease still running, 2 reports written.
    const batchId = "b0000000000000000000000d";
    const targets = await withStore(platform.broker, async (store) => {
      const backups = await store.collection("config_backups").find({}, { sort: { deviceName: 1 } });
      return backups.map((b) => ({ deviceName: b.deviceName, nodePath: "base", backupId: b._id }));
    });
    await withStore(platform.broker, async (store) => {
      await store.collection("compliance_batches").insertOne({
        _id: batchId,
        treeId,
        version: "initial",
        nodePath: "base",
        state: "running",
        targets,
        done: 2,
        totals: { errors: 0, warnings: 0, infos: 0, passes: 0 },
        claimedBy: "dead-node",
        leaseUntil: Date.now() + 60_000,
        created: new Date().toISOString(),
        finished: null,
        error: null,
      });
      for (const t of targets.slice(0, 3))
        await store.collection("compliance_reports").insertOne({
          batchId,
          deviceName: t.deviceName,
          marker: "written by the dead replica",
          totals: { errors: 0, warnings: 0, infos: 0, passes: 1 },
        });
    });
    expect(await platform.broker.call("configuration.sweep", {})).toEqual({ batches: 0 }); // lease still held
    service.clock = () => Date.now() + 120_000;
    expect(await platform.broker.call("configuration.sweep", {})).toEqual({ batches: 1 });
    const batch = await waitComplete(api, batchId);
    expect(batch).toMatchObject({ state: "complete", done: DEVICES.length });
    const reports = await reportsOf(platform, batchId);
    expect(reports.map((r) => r.deviceName)).toEqual(DEVICES);
    // The third report was written before the crash but not counted: kept as it was, not written twice.
    expect(reports.slice(0, 3).every((r) => r.marker === "written by the dead replica")).toBe(true);
    expect(reports.filter((r) => r.deviceName.endsWith("7") && r.compliant === false)).toHaveLength(6);
  } finally {
    await platform.stop();
  }
});

test("a batch running when the service stops completes after a restart on the same store", async () => {
  const dataDir = tempDir();
  const env = { COMPLIANCE_SWEEP_MS: "100", COMPLIANCE_CHUNK: "1" };
  const first = await startPlatform({ dataDir, env });
  const api1 = client(first.baseUrl, await login(first.baseUrl));
  const treeId = await seed(api1);
  const run = await api1.post("/configuration_manager/compliance_reports", { treeId, version: "initial" });
  expect(run.status).toBe(200);
  await first.stop();
  const atStop = await (async () => {
    // Read with a broker that runs no configuration service, so nothing claims the batch meanwhile.
    const again = await startPlatform({ dataDir, services: ["store"] });
    try {
      return await withStore(again.broker, (store) =>
        store.collection("compliance_batches").findOne({ _id: run.body.batchId }),
      );
    } finally {
      await again.stop();
    }
  })();
  // Stopping hands a running batch back at once (lease 0); a queued one was never claimed.
  expect(atStop!.state).not.toBe("complete");
  expect(atStop!.leaseUntil).toBe(0);

  const second = await startPlatform({ dataDir, env });
  try {
    const api2 = client(second.baseUrl, await login(second.baseUrl));
    const batch = await waitComplete(api2, run.body.batchId);
    expect(batch).toMatchObject({ state: "complete", done: DEVICES.length, devices: DEVICES.length });
    expect(batch.totals.warnings).toBe(DEVICES.filter((d) => d.endsWith("7")).length);
    const reports = await reportsOf(second, run.body.batchId);
    expect(new Set(reports.map((r) => r.deviceName)).size).toBe(DEVICES.length);
    expect(reports).toHaveLength(DEVICES.length);
  } finally {
    await second.stop();
  }
});
