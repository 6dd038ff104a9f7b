/**
 * Job control by `{jobIds}` (pause, resume, cancel), job output and per-workflow job metrics
 * (issue: client compatibility; docs/engine.md#pause-and-resume). A paused job starts no new task;
 * a run already under way finishes and is recorded; the transitions it leads to wait for resume,
 * across a restart of the whole platform.
 */
import {
  auto,
  chain,
  createWorkflow,
  manual,
  readJob,
  taskService,
  taskStatuses,
  waitForJob,
} from "../support/engine-fixtures";
import {
  client,
  expectError,
  login,
  startPlatform,
  tempDir,
  type Client,
  type Platform,
} from "../support/platform";

const PAUSE = "/operations-manager/jobs/pause";
const RESUME = "/operations-manager/jobs/resume";
const CANCEL = "/operations-manager/jobs/cancel";
const START = "/operations-manager/jobs/start";

const dataDir = tempDir("job-control-");
let platform: Platform;
let admin: Client;
let svc = taskService();

async function boot(): Promise<void> {
  svc = taskService();
  platform = await startPlatform({ dataDir });
  platform.broker.createService(svc.schema);
  await platform.broker.waitForServices(["enginetest"], 15_000);
  admin = client(platform.baseUrl, await login(platform.baseUrl));
}

beforeAll(async () => {
  await boot();
  await createWorkflow(
    admin,
    platform.broker,
    chain("two-steps", [
      // `slow` answers {slept, key}: the whole answer becomes job variable `slept`.
      ["first", auto("enginetest", "slow", { ms: 400, key: "$var.job.key" }, { slept: "$var.job.slept" })],
      ["second", auto("enginetest", "echo", { value: "$var.job.slept" }, { result: "$var.job.echoed" })],
    ]),
  );
  await createWorkflow(admin, platform.broker, chain("waits", [["approve", manual("Approve")]]));
});
afterAll(() => platform?.stop());

const start = async (key: string) => {
  const reply = await admin.post(START, { workflow: "two-steps", options: { variables: { key } } });
  expect(reply.status).toBe(200);
  return reply.body._id as string;
};

test("a paused job finishes the run under way, starts nothing new, and goes on when resumed", async () => {
  const id = await start("pause-1");
  const paused = await admin.post(PAUSE, { jobIds: [id] });
  expect(paused.status).toBe(200);
  expect(paused.body).toEqual({
    message: "1 of 1 jobs paused",
    data: [expect.objectContaining({ _id: id, status: "paused" })],
    metadata: { changed: 1, failed: [] },
  });
  expect(paused.body.data[0]).not.toHaveProperty("deferred");

  // The slow first task finishes while paused: recorded, but `second` is not started.
  const settled = await waitForJob(platform.broker, id, (job) => job.tasks.first.status === "complete");
  expect(settled.status).toBe("paused");
  expect(settled.tasks.second.status).toBe("incomplete");
  await new Promise((r) => setTimeout(r, 300));
  expect(svc.calls.filter((c) => c.action === "echo" && c.params.value?.key === "pause-1")).toHaveLength(0);
  expect(taskStatuses(await readJob(platform.broker, id)).second).toBe("incomplete");

  const resumed = await admin.post(RESUME, { jobIds: [id] });
  expect(resumed.body.metadata).toEqual({ changed: 1, failed: [] });
  const done = await waitForJob(platform.broker, id, (job) => job.status === "complete");
  expect(done.variables.echoed.value).toEqual({ slept: 400, key: "pause-1" });
  // The deferred transitions were taken: they leave the stored job too, or a second pause would
  // take them up again (and run `second` twice).
  expect(done).not.toHaveProperty("deferred");
});

test("each job succeeds or fails on its own, with the status its own request would have had", async () => {
  const waiting = await admin.post(START, { workflow: "waits", options: {} });
  const running = waiting.body._id as string;
  const done = await start("mixed-2");
  await waitForJob(platform.broker, done, (job) => job.status === "complete");
  const missing = "0123456789abcdef01234567";
  const reply = await admin.post(PAUSE, { jobIds: [running, done, missing] });
  expect(reply.status).toBe(200);
  expect(reply.body.metadata.changed).toBe(1);
  expect(reply.body.metadata.failed).toEqual([
    { jobId: done, code: 409, message: expect.stringContaining("complete") },
    { jobId: missing, code: 404, message: expect.any(String) },
  ]);
  expect((await admin.post(PAUSE, { jobIds: [running] })).body.metadata.failed[0].code).toBe(409);
  expect((await admin.post(RESUME, { jobIds: [done] })).body.metadata.failed[0].code).toBe(409);

  const canceled = await admin.post(CANCEL, { jobIds: [running] });
  expect(canceled.body.data[0].status).toBe("canceled");
  expect((await readJob(platform.broker, running)).status).toBe("canceled");

  expectError(await admin.post(PAUSE, { jobIds: [] }), 400, "VALIDATION_ERROR");
  expectError(await admin.post(PAUSE, { jobIds: ["nope"] }), 400, "VALIDATION_ERROR");
  expectError(await admin.post(PAUSE, {}), 400, "VALIDATION_ERROR");
  expectError(await client(platform.baseUrl).post(PAUSE, { jobIds: [running] }), 401, "UNAUTHORIZED");
});

test("GET /workflow_engine/job/:id/output: the job's variables and each task's outgoing values", async () => {
  const id = await start("output-1");
  await waitForJob(platform.broker, id, (job) => job.status === "complete");
  const reply = await admin.get(`/workflow_engine/job/${id}/output`);
  expect(reply.status).toBe(200);
  expect(reply.body).toEqual({
    _id: id,
    name: "two-steps",
    status: "complete",
    variables: {
      key: "output-1",
      slept: { slept: 400, key: "output-1" },
      echoed: { value: { slept: 400, key: "output-1" }, caller: "admin" },
    },
    tasks: {
      workflow_start: {
        name: "workflow_start",
        summary: "Start",
        status: "complete",
        finish_state: "success",
        outgoing: {},
      },
      first: {
        name: "slow",
        summary: "slow",
        status: "complete",
        finish_state: "success",
        outgoing: { slept: { slept: 400, key: "output-1" } },
      },
      second: {
        name: "echo",
        summary: "echo",
        status: "complete",
        finish_state: "success",
        outgoing: { result: { value: { slept: 400, key: "output-1" }, caller: "admin" } },
      },
      // Not a task that produces anything: null.
      workflow_end: {
        name: "workflow_end",
        summary: "End",
        status: "complete",
        finish_state: "success",
        outgoing: null,
      },
    },
  });
  expectError(await admin.get("/workflow_engine/job/0123456789abcdef01234567/output"), 404, "NOT_FOUND");
  expectError(await admin.get("/workflow_engine/job/nope/output"), 400, "VALIDATION_ERROR");
});

test("GET /workflow_engine/jobs/metrics counts a workflow's jobs by status, with run times", async () => {
  const reply = await admin.get("/workflow_engine/jobs/metrics?equals=two-steps");
  expect(reply.status).toBe(200);
  const waits = await admin.get("/workflow_engine/jobs/metrics?equals=waits");
  expect(waits.body.results[0].metrics).toEqual(
    expect.objectContaining({ total: 1, canceled: 1, complete: 0, averageRunTime: null, totalRunTime: 0 }),
  );
  expect(reply.body.total).toBe(1);
  const [entry] = reply.body.results;
  expect(entry.workflow.name).toBe("two-steps");
  expect(entry.metrics.total).toBe(
    entry.metrics.running +
      entry.metrics.paused +
      entry.metrics.complete +
      entry.metrics.error +
      entry.metrics.canceled,
  );
  expect(entry.metrics.complete).toBeGreaterThanOrEqual(3);
  expect(entry.metrics.averageRunTime).toBeGreaterThanOrEqual(400);
  expect(entry.metrics.totalRunTime).toBeGreaterThanOrEqual(
    entry.metrics.averageRunTime * entry.metrics.complete - entry.metrics.complete,
  );
  expect((await admin.get("/workflow_engine/jobs/metrics?equals=none")).body).toEqual({
    results: [],
    skip: 0,
    limit: 25,
    total: 0,
  });
  expectError(
    await admin.get("/workflow_engine/jobs/metrics?equalsField=workflow.name"),
    400,
    "VALIDATION_ERROR",
  );
});

test("a pause holds across a restart of the platform: the deferred transition is taken on resume", async () => {
  const id = await start("restart-1");
  await admin.post(PAUSE, { jobIds: [id] });
  await waitForJob(platform.broker, id, (job) => job.tasks.first.status === "complete");
  await platform.stop();

  await boot();
  await new Promise((r) => setTimeout(r, 300));
  expect((await readJob(platform.broker, id)).status).toBe("paused");
  expect(svc.calls).toHaveLength(0);
  const resumed = await admin.post(RESUME, { jobIds: [id] });
  expect(resumed.body.metadata.changed).toBe(1);
  const done = await waitForJob(platform.broker, id, (job) => job.status === "complete");
  expect(done.variables.echoed.value).toEqual({ slept: 400, key: "restart-1" });
  expect(svc.calls.map((c) => c.action)).toEqual(["echo"]);
});
