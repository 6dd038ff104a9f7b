/**
 * The operations that aggregate over every job do not stall the platform (docs/security.md#stalls):
 * the job counts by workflow (`GET /workflow_engine/jobs/metrics`) and the list of finished manual
 * tasks (`GET /operations-manager/tasks?status=complete`), with 6,000 finished jobs stored. The
 * embedded store feeds an aggregation in slices (shared/store/embedded/aggregate-plan.ts); before,
 * it copied every job in one go, holding the loop 500 and 720 ms with 10,000 jobs. (With 10,000,
 * a major GC's pause on the slow 2-core test machine once reached the bound by itself.) A probe
 * asks `GET /health` every 20 ms meanwhile (test/support/loop-probe.ts): the loop is never held
 * 100 ms.
 *
 * The jobs are an older release's, without the manual-task summary (services/engine/run/
 * manual-summary.ts) the list now reads: the engine's data migration gives them theirs at start,
 * so the list's answer here also proves that migration through HTTP.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EmbeddedBackend } from "../../shared/store/embedded/backend";
import { JobRepository } from "../../services/engine/jobs.repository";
import { expectLoopFree } from "../support/loop-probe";
import { client, login, type Client } from "../support/platform";
import { spawnPlatform, type SpawnedPlatform } from "../support/processes";

const JOBS = 6_000;
const WORKFLOWS = 50;

const hex = (n: number) => n.toString(16).padStart(24, "0");

/** A finished job of ten tasks as the engine stored one before the summary, its third task a manual one. */
function finishedJob(i: number) {
  const tasks: Record<string, unknown> = {};
  for (let t = 1; t <= 10; t++)
    tasks[`t${t}`] = {
      name: t === 3 ? "approve" : "noop",
      summary: `step ${t}`,
      app: t === 3 ? "WorkFlowEngine" : "benchtask",
      type: t === 3 ? "manual" : "automatic",
      status: "complete",
      variables: { incoming: { device: `router-${i % 300}` }, outgoing: { result: "ok" } },
      previous: { incomplete: [], complete: t > 1 ? [`t${t - 1}`] : [], error: [] },
      start_time: new Date(Date.UTC(2026, 10, 1) + i * 60_000 + t * 1000).toISOString(),
      end_time: new Date(Date.UTC(2026, 10, 1) + i * 60_000 + t * 1000 + 500).toISOString(),
      finish_state: "success",
    };
  const start = Date.UTC(2026, 10, 1) + i * 60_000;
  return {
    _id: hex(i + 1),
    type: "automation",
    name: `change ${i % WORKFLOWS}`,
    description: "a finished change",
    workflow: { _id: hex(1_000_000 + (i % WORKFLOWS)), name: `change ${i % WORKFLOWS}` },
    status: "complete",
    tasks,
    waitingTasks: [],
    groups: [],
    created_by: hex(7),
    variables: { device: `router-${i % 300}` },
    metrics: { start_time: start, end_time: start + 12_000, progress: 100, manual_time: 0 },
    version: 11,
  };
}

let platform: SpawnedPlatform;
let admin: Client;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "stall-aggregations-"));

beforeAll(async () => {
  // The jobs are written to the store's files first, with the engine's indexes, as a platform that
  // has run them would have left them; the platform then opens them.
  const store = new EmbeddedBackend({ dataDir });
  await new JobRepository(store).ensureIndexes();
  const jobs = store.collection("jobs");
  for (let i = 0; i < JOBS; i += 1000)
    await jobs.insertMany(Array.from({ length: 1000 }, (_, k) => finishedJob(i + k)));
  await store.close();
  platform = await spawnPlatform({ DATA_DIR: dataDir });
  admin = client(platform.baseUrl, await login(platform.baseUrl));
}, 120_000);
afterAll(async () => {
  await platform?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test(`the job counts by workflow over ${JOBS} jobs`, async () => {
  // Once before, as each row of the stall suite: the first call compiles the code (JIT).
  expect((await admin.get("/workflow_engine/jobs/metrics?queryOptions[limit]=1")).status).toBe(200);
  const reply = await expectLoopFree("job counts by workflow", platform, () =>
    admin.get("/workflow_engine/jobs/metrics?queryOptions[limit]=100"),
  );
  expect(reply.status).toBe(200);
  expect(reply.body.total).toBe(WORKFLOWS);
  const results = reply.body.results as {
    metrics: { total: number; complete: number; totalRunTime: number };
  }[];
  expect(results).toHaveLength(WORKFLOWS);
  expect(results.reduce((n, r) => n + r.metrics.total, 0)).toBe(JOBS);
  expect(results.every((r) => r.metrics.complete === JOBS / WORKFLOWS)).toBe(true);
  expect(results[0].metrics.totalRunTime).toBe((JOBS / WORKFLOWS) * 12_000);
}, 60_000);

test(`the finished manual tasks of ${JOBS} jobs`, async () => {
  expect((await admin.get("/operations-manager/tasks?status=complete&limit=1")).status).toBe(200);
  const reply = await expectLoopFree("finished manual tasks", platform, () =>
    admin.get("/operations-manager/tasks?status=complete&limit=5&skip=10"),
  );
  expect(reply.status).toBe(200);
  expect(reply.body.total).toBe(JOBS);
  expect(reply.body.results).toHaveLength(5);
  // Newest first: the eleventh newest job's manual task.
  expect(reply.body.results[0]).toMatchObject({
    id: "t3",
    job_id: hex(JOBS - 10),
    type: "manual",
    name: "approve",
  });
}, 60_000);
