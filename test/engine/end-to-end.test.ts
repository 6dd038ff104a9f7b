/**
 * Jobs end to end over HTTP: real jobs with a manual step run to completion (one misses its
 * workflow's SLA), their changes stream to GET /events, and GET /workflow_engine/tasks/metrics
 * counts them in today's bucket.
 */
import { chain, manual } from "../support/engine-fixtures";
import { client, login, startPlatform, type Platform } from "../support/platform";
import { eventually } from "../support/processes";
import { openStream } from "../support/sse";

let platform: Platform;
let admin: ReturnType<typeof client>;
let token: string;

beforeAll(async () => {
  platform = await startPlatform();
  token = await login(platform.baseUrl);
  admin = client(platform.baseUrl, token);
  // One workflow with a 50 ms SLA that a manual approval will overrun, one without an SLA.
  for (const [name, sla] of [
    ["approve-fast", 0.05],
    ["approve-any", undefined],
  ] as const) {
    const workflow = { ...chain(name, [["approve", manual("Approve")]]), ...(sla !== undefined && { sla }) };
    expect((await admin.post("/workflow_builder/workflows", { workflow })).status).toBe(200);
  }
});
afterAll(() => platform.stop());

async function runToCompletion(workflow: string): Promise<string> {
  const started = await admin.post("/operations-manager/jobs/start", { workflow, options: {} });
  expect(started.status).toBe(200);
  const jobId = started.body._id;
  await eventually(
    async () =>
      (await admin.get(`/operations-manager/jobs/${jobId}`)).body.data.tasks.approve.status === "waiting",
    5000,
    "the manual task to wait",
  );
  await new Promise((r) => setTimeout(r, 150)); // a person taking their time
  const finished = await admin.post("/workflow_engine/finishTask", {
    job_id: jobId,
    task_id: "approve",
    task_data: { ok: true },
  });
  expect(finished.status).toBe(200);
  await eventually(
    async () => (await admin.get(`/operations-manager/jobs/${jobId}`)).body.data.status === "complete",
    5000,
    "the job to complete",
  );
  return jobId;
}

test("a job's changes stream to GET /events as it runs", async () => {
  const stream = await openStream(platform.baseUrl, token);
  try {
    await new Promise((r) => setTimeout(r, 100));
    const jobId = await runToCompletion("approve-any");
    await eventually(
      async () =>
        stream.events.some(
          (e) => e.event === "job" && e.data.jobId === jobId && e.data.status === "complete",
        ),
      5000,
      "the complete event",
    );
    const mine = stream.events.filter((e) => e.data.jobId === jobId);
    expect(
      mine.some((e) => e.event === "task" && e.data.taskId === "approve" && e.data.taskStatus === "waiting"),
    ).toBe(true);
    expect(
      mine.some((e) => e.event === "task" && e.data.taskId === "approve" && e.data.taskStatus === "complete"),
    ).toBe(true);
    expect(mine.at(-1)!.data).toEqual(
      expect.objectContaining({ workflow: "approve-any", status: "complete" }),
    );
  } finally {
    await stream.close();
  }
});

test("metrics count completed jobs, their manual time and the SLA misses, in today's bucket", async () => {
  await runToCompletion("approve-fast");
  await runToCompletion("approve-fast");
  const reply = await admin.get(
    "/workflow_engine/tasks/metrics?equals=approve-fast&equalsField=workflow.name",
  );
  expect(reply.status).toBe(200);
  const [entry] = reply.body.results;
  expect(reply.body.total).toBe(1);
  expect(entry.workflow.name).toBe("approve-fast");
  const today = new Date().toISOString().slice(0, 10);
  expect(entry.metrics).toEqual([
    expect.objectContaining({ startDate: `${today}T00:00:00.000Z`, jobsComplete: 2, slaTargetsMissed: 2 }),
  ]);
  expect(entry.metrics[0].totalManualTime).toBeGreaterThanOrEqual(2 * 150);
  expect(entry.metrics[0].totalRunTime).toBeGreaterThanOrEqual(entry.metrics[0].totalManualTime);
  // A workflow without an SLA never misses it.
  const other = await admin.get(
    "/workflow_engine/tasks/metrics?equals=approve-any&equalsField=workflow.name",
  );
  expect(other.body.results[0].metrics[0]).toEqual(
    expect.objectContaining({ jobsComplete: 1, slaTargetsMissed: 0 }),
  );
});
