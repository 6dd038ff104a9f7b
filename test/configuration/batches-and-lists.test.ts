/**
 * A compliance batch checks what it can, over HTTP: a device of the tree without a backup, or whose
 * node is gone, is that device's report with the reason, and the batch completes. Backups and
 * reports listed (`GET /configuration_manager/backups`, `GET /configuration_manager/compliance_reports`):
 * pages of `{results, total, skip, limit}`, newest first, by device, tree, batch and time, with the
 * read roles.
 */
import fs from "node:fs";
import path from "node:path";
import { withStore } from "../support/engine-fixtures";
import { clientWithRoles, expectError, usePlatform, type Client } from "../support/platform";

const FIXTURES = path.join(__dirname, "../fixtures/configuration");
const IOS = fs.readFileSync(path.join(FIXTURES, "ios-edge-rtr1.cfg"), "utf8");
const SPEC = fs.readFileSync(path.join(FIXTURES, "ios-base.spec"), "utf8");
const OID = "0123456789abcdef01234567";
const TREE_DEVICES = ["sw-br-01", "sw-br-02", "sw-br-03"];

const env = usePlatform({ env: { COMPLIANCE_SWEEP_MS: "200" } });
let reader: Client;
let support: Client;
let treeId: string;
/** Backups by name: b1 sw-br-02 (January), b2 sw-br-03 (February), b3 rtr-other (March), b4 sw-br-02 (April). */
const b: Record<string, string> = {};
let batchId: string;
const goneBatchId = "b0000000000000000000000e";

async function ok(reply: Promise<{ status: number; body: any; text: string }>) {
  const r = await reply;
  if (r.status !== 200) throw new Error(`${r.status} ${r.text}`);
  return r.body;
}

async function waitForBatch(id: string) {
  for (let i = 0; i < 200; i++) {
    const batch = await ok(env.admin.get(`/configuration_manager/compliance_reports/batches/${id}`));
    if (batch.state === "complete" || batch.state === "error") return batch;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`batch ${id} did not finish`);
}

const setTimestamp = (collection: string, filter: Record<string, unknown>, timestamp: string) =>
  withStore(env.platform.broker, (store) =>
    store.collection(collection).updateMany(filter, { $set: { timestamp } }),
  );

beforeAll(async () => {
  reader = await clientWithRoles(env.platform, env.admin, ["apiread"]);
  support = await clientWithRoles(env.platform, env.admin, ["support"]);
  treeId = (await ok(env.admin.post("/configuration_manager/configs", { name: "Branch", deviceType: "ios" })))
    ._id;
  await ok(
    env.admin.put(`/configuration_manager/configs/${treeId}/versions/initial/nodes`, {
      nodePath: "base",
      config: SPEC,
      devices: TREE_DEVICES,
    }),
  );
  const backups: [string, string, string][] = [
    ["b1", "sw-br-02", "2026-01-10T00:00:00.000Z"],
    ["b2", "sw-br-03", "2026-02-10T00:00:00.000Z"],
    ["b3", "rtr-other", "2026-03-10T00:00:00.000Z"],
    ["b4", "sw-br-02", "2026-04-10T00:00:00.000Z"],
  ];
  for (const [name, deviceName, timestamp] of backups) {
    b[name] = (await ok(env.admin.post("/configuration_manager/backups", { deviceName, config: IOS })))._id;
    // Times of our choosing, so the order and the ranges do not hang on the clock.
    await setTimestamp("config_backups", { _id: b[name] }, timestamp);
  }
});

describe("a batch checks what it can", () => {
  test("a device of the tree without a backup is reported with its reason; the others are checked", async () => {
    const run = await ok(
      env.admin.post("/configuration_manager/compliance_reports", { treeId, version: "initial" }),
    );
    expect(run).toMatchObject({ devices: 3, withoutBackup: 1 });
    batchId = run.batchId;
    const batch = await waitForBatch(batchId);
    expect(batch).toMatchObject({ state: "complete", done: 3, devices: 3, error: null });

    const reports = (
      await ok(env.admin.get(`/configuration_manager/compliance_reports/batches/${batchId}/reports`))
    ).results;
    expect(reports.map((r: any) => r.deviceName)).toEqual(TREE_DEVICES);
    const [missing, ...checked] = reports;
    expect(missing).toMatchObject({ backupId: null, compliant: false, score: 0, remediation: "" });
    expect(missing.totals).toEqual({ errors: 1, warnings: 0, infos: 0, passes: 0 });
    expect(missing.issues).toEqual([
      {
        kind: "unreadable",
        severity: "error",
        specLine: "(config)",
        path: [],
        found: "device 'sw-br-01' has no backup",
      },
    ]);
    // The latest backup of each other device was checked for real.
    expect(checked.map((r: any) => r.backupId)).toEqual([b.b4, b.b2]);
    for (const report of checked) {
      expect(report.totals.passes).toBeGreaterThan(0);
      expect(report.issues.every((i: any) => i.kind !== "unreadable")).toBe(true);
    }
    // The batch's totals count the unchecked device's error with the others' results.
    expect(batch.totals.errors).toBe(reports.reduce((n: number, r: any) => n + r.totals.errors, 0));
    expect(
      (await ok(reader.get(`/configuration_manager/compliance_reports/${missing.id}`))).backupId,
    ).toBeNull();
  });

  test("a device whose node is gone when the batch runs is reported; the batch completes", async () => {
    // A batch queued before its node was deleted (as a replica would have stored it).
    await withStore(env.platform.broker, (store) =>
      store.collection("compliance_batches").insertOne({
        _id: goneBatchId,
        treeId,
        version: "initial",
        nodePath: "base",
        state: "queued",
        targets: [
          { deviceName: "sw-br-02", nodePath: "base", backupId: b.b4 },
          { deviceName: "sw-br-03", nodePath: "base/gone", backupId: b.b2 },
        ],
        done: 0,
        totals: { errors: 0, warnings: 0, infos: 0, passes: 0 },
        claimedBy: null,
        leaseUntil: 0,
        created: new Date().toISOString(),
        finished: null,
        error: null,
      }),
    );
    expect(await waitForBatch(goneBatchId)).toMatchObject({ state: "complete", done: 2 });
    const reports = (
      await ok(env.admin.get(`/configuration_manager/compliance_reports/batches/${goneBatchId}/reports`))
    ).results;
    expect(reports[0]).toMatchObject({ deviceName: "sw-br-02", backupId: b.b4 });
    expect(reports[0].totals.passes).toBeGreaterThan(0);
    expect(reports[1]).toMatchObject({ deviceName: "sw-br-03", compliant: false });
    expect(reports[1].issues).toEqual([
      expect.objectContaining({ kind: "unreadable", found: "node 'base/gone' was deleted" }),
    ]);
  });

  test("a request in which no device has a backup is refused, naming the devices; nothing is stored", async () => {
    const stored = () =>
      withStore(env.platform.broker, async (store) => ({
        batches: await store.collection("compliance_batches").count(),
        reports: await store.collection("compliance_reports").count(),
      }));
    const before = await stored();
    const refused = expectError(
      await env.admin.post("/configuration_manager/compliance_reports", {
        treeId,
        version: "initial",
        devices: ["sw-br-01", "ghost"],
      }),
      400,
      "VALIDATION_ERROR",
    );
    expect(refused.data[0]).toMatchObject({ field: "devices", type: "noBackup" });
    expect(refused.message).toBe("No device to check has a backup: sw-br-01, ghost.");
    expect(await stored()).toEqual(before);
    // Named devices, one with a backup: the batch runs.
    const run = await ok(
      env.admin.post("/configuration_manager/compliance_reports", {
        treeId,
        version: "initial",
        devices: ["sw-br-02", "ghost"],
      }),
    );
    expect(run).toMatchObject({ devices: 2, withoutBackup: 1 });
    expect(await waitForBatch(run.batchId)).toMatchObject({ state: "complete", done: 2 });
    expect(await stored()).toEqual({ batches: before.batches + 1, reports: before.reports + 2 });
    await withStore(env.platform.broker, async (store) => {
      await store.collection("compliance_reports").deleteMany({ batchId: run.batchId });
      await store.collection("compliance_batches").deleteOne({ _id: run.batchId });
    });
  });
});

describe("GET /configuration_manager/backups", () => {
  const ids = async (query = "", api = reader) => {
    const page = await ok(api.get(`/configuration_manager/backups${query}`));
    return page.results.map((r: any) => r._id);
  };

  test("newest first, paged, without the config text", async () => {
    const page = await ok(reader.get("/configuration_manager/backups"));
    expect(page).toMatchObject({ total: 4, skip: 0, limit: 25 });
    expect(page.results.map((r: any) => r._id)).toEqual([b.b4, b.b3, b.b2, b.b1]);
    expect(Object.keys(page.results[0]).sort()).toEqual([
      "_id",
      "description",
      "deviceName",
      "id",
      "timestamp",
    ]);
    expect(await ok(reader.get("/configuration_manager/backups?limit=2"))).toMatchObject({
      total: 4,
      skip: 0,
      limit: 2,
      results: [expect.objectContaining({ _id: b.b4 }), expect.objectContaining({ _id: b.b3 })],
    });
    expect(await ids("?skip=2&limit=2")).toEqual([b.b2, b.b1]);
    expect((await ok(reader.get("/configuration_manager/backups?limit=5000"))).limit).toBe(1000);
  });

  test("by device, tree, batch and time range; filters meet", async () => {
    expect(await ids("?deviceName=sw-br-02")).toEqual([b.b4, b.b1]);
    expect(await ids(`?treeId=${treeId}`)).toEqual([b.b4, b.b2, b.b1]);
    expect(await ids(`?treeId=${treeId}&version=initial&deviceName=sw-br-03`)).toEqual([b.b2]);
    expect(await ids(`?treeId=${treeId}&version=nope`)).toEqual([]);
    expect(await ids(`?treeId=${OID}`)).toEqual([]);
    expect(await ids(`?batchId=${batchId}`)).toEqual([b.b4, b.b2]);
    expect(await ids(`?batchId=${OID}`)).toEqual([]);
    // `from` included, `to` excluded; a date alone is midnight UTC; an offset is honoured.
    expect(await ids("?from=2026-02-10&to=2026-04-10")).toEqual([b.b3, b.b2]);
    expect(await ids(`?from=${encodeURIComponent("2026-02-10T00:00:00+01:00")}`)).toEqual([b.b4, b.b3, b.b2]);
    expect(await ids("?to=2026-02-10T00:00:00.001Z&deviceName=sw-br-03")).toEqual([b.b2]);
    const page = await ok(reader.get("/configuration_manager/backups?from=2026-02-01&limit=1"));
    expect(page).toMatchObject({ total: 3, limit: 1, results: [expect.objectContaining({ _id: b.b4 })] });
  });

  test("bad input names its field; a caller without a read role is refused", async () => {
    for (const [query, field] of [
      ["from=2026-02-30", "from"],
      ["to=yesterday", "to"],
      ["treeId=nope", "treeId"],
      ["batchId=123", "batchId"],
      ["limit=0", "limit"],
      ["skip=-1", "skip"],
    ]) {
      const refused = expectError(
        await reader.get(`/configuration_manager/backups?${query}`),
        400,
        "VALIDATION_ERROR",
      );
      expect(refused.data[0].field).toBe(field);
    }
    expectError(await support.get("/configuration_manager/backups"), 403, "FORBIDDEN");
    // The real product's list body posted to our create (docs/compatibility.md): a 400, nothing stored.
    const posted = expectError(
      await env.admin.post("/configuration_manager/backups", { options: { start: 0, limit: 10 } }),
      400,
      "VALIDATION_ERROR",
    );
    expect(posted.data.map((e: any) => e.field)).toEqual(expect.arrayContaining(["deviceName", "config"]));
    expect((await ok(reader.get("/configuration_manager/backups"))).total).toBe(4);
  });
});

describe("GET /configuration_manager/compliance_reports", () => {
  beforeAll(async () => {
    await setTimestamp("compliance_reports", { batchId }, "2026-05-01T00:00:00.000Z");
    await setTimestamp("compliance_reports", { batchId: goneBatchId }, "2026-06-01T00:00:00.000Z");
  });
  const rows = async (query = "") =>
    (await ok(reader.get(`/configuration_manager/compliance_reports${query}`))).results.map(
      (r: any) => `${r.batchId === batchId ? "first" : "gone"}:${r.deviceName}`,
    );

  test("newest first, paged, without issues and remediation", async () => {
    const page = await ok(reader.get("/configuration_manager/compliance_reports"));
    expect(page).toMatchObject({ total: 5, skip: 0, limit: 25 });
    expect(page.results.slice(0, 2).map((r: any) => r.batchId)).toEqual([goneBatchId, goneBatchId]);
    expect(Object.keys(page.results[0]).sort()).toEqual(
      [
        "id",
        "batchId",
        "treeId",
        "version",
        "nodePath",
        "deviceName",
        "backupId",
        "timestamp",
        "totals",
        "score",
        "compliant",
      ].sort(),
    );
    const last = await ok(reader.get("/configuration_manager/compliance_reports?skip=4&limit=2"));
    expect(last).toMatchObject({ total: 5, skip: 4, limit: 2 });
    expect(last.results).toHaveLength(1);
  });

  test("by device, tree, version, node, batch and time range", async () => {
    expect(await rows("?deviceName=sw-br-02")).toEqual(["gone:sw-br-02", "first:sw-br-02"]);
    expect(await rows("?deviceName=sw-br-01")).toEqual(["first:sw-br-01"]);
    expect((await rows(`?treeId=${treeId}&version=initial`)).length).toBe(5);
    expect(await rows(`?treeId=${OID}`)).toEqual([]);
    expect(await rows("?nodePath=base/gone")).toEqual(["gone:sw-br-03"]);
    expect((await rows(`?batchId=${batchId}`)).sort()).toEqual([
      "first:sw-br-01",
      "first:sw-br-02",
      "first:sw-br-03",
    ]);
    expect((await rows("?from=2026-05-15")).sort()).toEqual(["gone:sw-br-02", "gone:sw-br-03"]);
    expect(await rows("?to=2026-05-15&deviceName=sw-br-03")).toEqual(["first:sw-br-03"]);
  });

  test("bad input names its field; a caller without a read role is refused", async () => {
    const refused = expectError(
      await reader.get("/configuration_manager/compliance_reports?to=2026-13-01"),
      400,
      "VALIDATION_ERROR",
    );
    expect(refused.data[0].field).toBe("to");
    expect(
      expectError(
        await reader.get("/configuration_manager/compliance_reports?nodePath=dc1"),
        400,
        "VALIDATION_ERROR",
      ).data[0].field,
    ).toBe("nodePath");
    expectError(await support.get("/configuration_manager/compliance_reports"), 403, "FORBIDDEN");
  });
});
