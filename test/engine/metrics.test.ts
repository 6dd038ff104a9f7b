/**
 * Task metrics (operation 8): daily buckets per workflow over completed jobs, with SLA misses,
 * and the queryOptions rules — over HTTP in both shapes and through the broker. Jobs are seeded
 * straight into the store, shaped like model.ts JobDoc (the fields the metrics read are real).
 */
import { randomBytes } from "node:crypto";
import { call } from "../../shared/contracts";
import { acquireStore } from "../../shared/runtime";
import type { Store } from "../../shared/store/types";
import type { JobDoc, JobStatus } from "../../shared/contracts/engine-documents";
import { client, expectError, login, startPlatform, type Platform } from "../support/platform";
import { describeInBothShapes } from "../support/shapes";

const objectId = () => randomBytes(12).toString("hex");
const D1 = Date.UTC(2026, 1, 1); // 2026-02-01T00:00:00Z
const D2 = D1 + 86_400_000;
const D3 = Date.UTC(2026, 1, 5);
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

const PROVISION = { _id: objectId(), name: "provision" };
const AUDIT = { _id: objectId(), name: "audit" };

function job(
  workflow: { _id: string; name: string },
  status: JobStatus,
  start: number,
  runMs: number | null,
  extra: { sla?: number; manual?: number; preAutomationTime?: number } = {},
): JobDoc {
  return {
    _id: objectId(),
    type: "automation",
    name: `${workflow.name} job`,
    description: "",
    workflow,
    status,
    tasks: {},
    transitions: {},
    variables: {},
    error: [],
    errorHandler: null,
    decorators: [],
    groups: [],
    watchers: [],
    ancestors: [],
    ...(extra.sla !== undefined && { sla: extra.sla }),
    ...(extra.preAutomationTime !== undefined && { preAutomationTime: extra.preAutomationTime }),
    metrics: {
      start_time: start,
      end_time: runMs === null ? null : start + runMs,
      progress: status === "complete" ? 100 : 40,
      user: "admin",
      owner: "admin",
      manual_time: extra.manual ?? 0,
    },
    created: iso(start),
    created_by: "admin",
    last_updated: iso(start),
    last_updated_by: "admin",
    lastUpdatedVersion: "1",
    canvasVersion: 3,
    font_size: 12,
    version: 3,
  };
}

const provision = { sla: 60, preAutomationTime: 300 };
/** The seeded history: what counts, and what must not. */
const seed = (): JobDoc[] => [
  job(PROVISION, "complete", D1 + HOUR, 30_000, provision),
  // Over its 60 s SLA, with 40 s spent waiting on a manual task.
  job(PROVISION, "complete", D1 + 2 * HOUR, 90_000, { ...provision, manual: 40_000 }),
  // Started on D1, completed on D2 after exactly 60 s: counts on D2, and did not exceed the SLA.
  job(PROVISION, "complete", D2 - 30_000, 60_000, provision),
  job(PROVISION, "running", D1 + 3 * HOUR, null, provision),
  job(PROVISION, "error", D1 + 4 * HOUR, 5_000, provision),
  job(AUDIT, "complete", D3 + HOUR, 10_000),
  // sla 0: no target, however long it ran.
  job(AUDIT, "complete", D3 + 2 * HOUR, 500_000, { sla: 0 }),
  job(AUDIT, "canceled", D3 + 3 * HOUR, 1_000),
];

const auditEntry = {
  _id: AUDIT._id,
  workflow: { name: "audit", _id: AUDIT._id },
  metrics: [
    { jobsComplete: 2, totalRunTime: 510_000, totalManualTime: 0, slaTargetsMissed: 0, startDate: iso(D3) },
  ],
  preAutomationTime: 0,
};
const provisionEntry = {
  _id: PROVISION._id,
  workflow: { name: "provision", _id: PROVISION._id },
  metrics: [
    {
      jobsComplete: 2,
      totalRunTime: 120_000,
      totalManualTime: 40_000,
      slaTargetsMissed: 1,
      startDate: iso(D1),
    },
    { jobsComplete: 1, totalRunTime: 60_000, totalManualTime: 0, slaTargetsMissed: 0, startDate: iso(D2) },
  ],
  preAutomationTime: 300,
};

describeInBothShapes("task metrics over HTTP", (platform) => {
  let store: Store;
  let host: Platform;
  let admin: ReturnType<typeof client>;
  let reader: ReturnType<typeof client>;
  let engineer: ReturnType<typeof client>;

  beforeAll(async () => {
    const { baseUrl } = platform();
    host = (platform() as Platform & { members?: Platform[] }).members?.[0] ?? platform();
    store = await acquireStore(host.broker);
    await store.collection("jobs").insertMany(seed());
    admin = client(baseUrl, await login(baseUrl));
    for (const [group, role, user] of [
      ["metrics-readers", "apiread", "m-reader"],
      ["metrics-engineers", "engineering", "m-eng"],
    ]) {
      await admin.post("/user-management/groups", { name: group, assignedRoles: [role] });
      await admin.post("/user-management/accounts", {
        username: user,
        password: "metrics-password",
        groups: [group],
      });
    }
    reader = client(baseUrl, await login(baseUrl, "m-reader", "metrics-password"));
    engineer = client(baseUrl, await login(baseUrl, "m-eng", "metrics-password"));
  });
  afterAll(async () => {
    await store.close();
  });

  const metrics = (query = "") => reader.get(`/workflow_engine/tasks/metrics${query}`);

  test("daily buckets per workflow: completed jobs only, run and manual time, SLA misses", async () => {
    const reply = await metrics();
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ results: [auditEntry, provisionEntry], skip: 0, limit: 25, total: 2 });
  });

  test("equals (with or without equalsField workflow.name) keeps one workflow", async () => {
    const expected = { results: [provisionEntry], skip: 0, limit: 25, total: 1 };
    expect((await metrics("?equals=provision&equalsField=workflow.name")).body).toEqual(expected);
    expect((await metrics("?equals=provision")).body).toEqual(expected);
    expect((await metrics("?equals=nothing")).body).toEqual({ results: [], skip: 0, limit: 25, total: 0 });
  });

  test("greaterThanEquals (epoch ms, field metrics.startDate) keeps buckets starting at or after it", async () => {
    const fromD2 = await metrics(`?greaterThanEquals=${D2}&greaterThanEqualsField=metrics.startDate`);
    expect(fromD2.body.results).toEqual([
      auditEntry,
      { ...provisionEntry, metrics: [provisionEntry.metrics[1]] },
    ]);
    // One millisecond into D1: the D1 bucket starts before it.
    expect((await metrics(`?greaterThanEquals=${D1 + 1}`)).body.results).toEqual(fromD2.body.results);
    expect((await metrics(`?greaterThanEquals=${D1}`)).body.results).toEqual([auditEntry, provisionEntry]);
    expect((await metrics(`?greaterThanEquals=${D3}`)).body).toEqual({
      results: [auditEntry],
      skip: 0,
      limit: 25,
      total: 1,
    });
  });

  test("filters combine", async () => {
    expect((await metrics(`?greaterThanEquals=${D3}&equals=provision`)).body.results).toEqual([]);
  });

  test("sort, order, skip and limit page the workflow entries", async () => {
    expect((await metrics("?order=-1")).body.results.map((r: any) => r.workflow.name)).toEqual([
      "provision",
      "audit",
    ]);
    // metrics.startDate ascending: by earliest bucket (provision's D1 < audit's D3).
    expect(
      (await metrics("?sort=metrics.startDate&order=1")).body.results.map((r: any) => r.workflow.name),
    ).toEqual(["provision", "audit"]);
    expect(
      (await metrics("?sort=metrics.startDate&order=-1")).body.results.map((r: any) => r.workflow.name),
    ).toEqual(["audit", "provision"]);
    expect((await metrics("?skip=1&limit=1")).body).toEqual({
      results: [provisionEntry],
      skip: 1,
      limit: 1,
      total: 2,
    });
    expect((await metrics("?limit=5000")).body.limit).toBe(1000);
  });

  test("queryOptions in the wrapped and JSON forms", async () => {
    const expected = (await metrics("?equals=audit")).body;
    expect((await metrics("?queryOptions[equals]=audit")).body).toEqual(expected);
    expect(
      (await metrics(`?queryOptions=${encodeURIComponent(JSON.stringify({ equals: "audit" }))}`)).body,
    ).toEqual(expected);
  });

  test("the queryOptions rules: other fields, a field without its value, bad values -> 400", async () => {
    for (const query of [
      "?greaterThanEquals=5&greaterThanEqualsField=metrics.end_time",
      "?equals=audit&equalsField=name",
      "?equalsField=workflow.name",
      "?greaterThanEqualsField=metrics.startDate",
      "?greaterThanEquals=yesterday",
      "?greaterThanEquals=-1",
      "?sort=name",
      "?order=2",
    ])
      expectError(await metrics(query), 400, "VALIDATION_ERROR");
  });

  test("roles: admin and apiread only", async () => {
    expect((await admin.get("/workflow_engine/tasks/metrics")).status).toBe(200);
    expectError(await engineer.get("/workflow_engine/tasks/metrics"), 403, "FORBIDDEN");
  });

  test("another SLA miss and a new day show up at once", async () => {
    await store
      .collection("jobs")
      .insertMany([
        job(PROVISION, "complete", D2 + HOUR, 61_000, { ...provision, manual: 1_000 }),
        job(AUDIT, "complete", D3 + 86_400_000 + HOUR, 2_000, { sla: 1 }),
      ]);
    const reply = await metrics();
    const [audit, prov] = reply.body.results;
    expect(prov.metrics[1]).toEqual({
      jobsComplete: 2,
      totalRunTime: 121_000,
      totalManualTime: 1_000,
      slaTargetsMissed: 1,
      startDate: iso(D2),
    });
    expect(audit.metrics).toEqual([
      auditEntry.metrics[0],
      {
        jobsComplete: 1,
        totalRunTime: 2_000,
        totalManualTime: 0,
        slaTargetsMissed: 1,
        startDate: iso(D3 + 86_400_000),
      },
    ]);
  });
});

describe("task metrics through the broker", () => {
  let platform: Platform;
  beforeAll(async () => {
    platform = await startPlatform();
    const store = await acquireStore(platform.broker);
    await store.collection("jobs").insertMany(seed());
    await store.close();
  });
  afterAll(() => platform.stop());

  test("the same result, and the same rules", async () => {
    expect(await call(platform.broker, "engine.taskMetrics", { queryOptions: { equals: "audit" } })).toEqual({
      results: [auditEntry],
      skip: 0,
      limit: 25,
      total: 1,
    });
    expect(await call(platform.broker, "engine.taskMetrics", {})).toEqual({
      results: [auditEntry, provisionEntry],
      skip: 0,
      limit: 25,
      total: 2,
    });
    await expect(
      call(platform.broker, "engine.taskMetrics", { queryOptions: { equalsField: "workflow.name" } }),
    ).rejects.toMatchObject({ code: 400, type: "VALIDATION_ERROR" });
  });
});
