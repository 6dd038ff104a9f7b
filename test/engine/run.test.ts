/**
 * Jobs run workflows to completion (docs/platform-rules.md#workflows-and-jobs): start, manual tasks and finishTask,
 * automatic tasks calling actions, the built-in operations, error and retry handling, revert,
 * cancel, the manual task list, events. Over HTTP on an in-process platform; the core flows run
 * over NATS too (engine, store and gateway on separate brokers).
 */
import { randomUUID } from "node:crypto";
import type { Context } from "moleculer";
import { ENGINE_EVENTS, type JobChangesEvent } from "../../shared/contracts/events";
import {
  auto,
  chain,
  createWorkflow,
  failure,
  graph,
  manual,
  op,
  pushOrRollbackWorkflow,
  readJob,
  revert,
  sizeCheckWorkflow,
  success,
  taskService,
  taskStatuses,
  visitDevicesWorkflow,
  waitForJob,
  withStore,
} from "../support/engine-fixtures";
import { client, expectError, login, startPlatform, type Platform } from "../support/platform";
import { startShape, SHAPES, type Shape } from "../support/shapes";

const START = "/operations-manager/jobs/start";
const FINISH = "/workflow_engine/finishTask";
const TASKS = "/operations-manager/tasks";

describe("jobs run workflows (in-process)", () => {
  let platform: Platform;
  let admin: ReturnType<typeof client>;
  const svc = taskService();
  const events: { kind: string; payload: any }[] = [];

  beforeAll(async () => {
    platform = await startPlatform();
    platform.broker.createService(svc.schema);
    platform.broker.createService({
      name: "engine-events-probe",
      events: {
        // One event per write; split here as the gateway splits it for GET /events.
        [ENGINE_EVENTS.changes](ctx: Context<JobChangesEvent>) {
          const { jobChanged, tasks, ...job } = ctx.params;
          for (const task of tasks) events.push({ kind: "task", payload: { ...job, ...task } });
          if (jobChanged) events.push({ kind: "job", payload: job });
        },
      },
    });
    await platform.broker.waitForServices(["enginetest", "engine-events-probe"]);
    admin = client(platform.baseUrl, await login(platform.baseUrl));
  }, 60_000);
  afterAll(async () => {
    await platform?.stop();
  });

  const start = (
    workflow: string,
    variables: Record<string, unknown> = {},
    extra: Record<string, unknown> = {},
  ) => admin.post(START, { workflow, options: { variables, ...extra } });

  test("the start answers the job itself, the read the same job in the real product's envelope", async () => {
    // docs/compatibility.md#jobs, "Start versus read".
    await createWorkflow(admin, platform.broker, chain("start-versus-read", [["ok", manual("OK?")]]));
    // Spec operation 17 ("Response: job, a Job document"); itential-mcp's start_job reads its `_id`.
    const started = await admin.post("/operations_manager/jobs/start", {
      workflow: "start-versus-read",
      options: {},
    });
    expect(started.status).toBe(200);
    expect(started.body).toEqual(
      expect.objectContaining({ _id: expect.any(String), name: "start-versus-read", status: "running" }),
    );
    expect(started.body).not.toHaveProperty("data");
    // itential-mcp's describe_job and Itential.py's get_job read `data`.
    const read = await admin.get(`/operations-manager/jobs/${started.body._id}`);
    expect(read.body).toEqual({
      message: expect.any(String),
      data: expect.objectContaining({ _id: started.body._id, name: "start-versus-read" }),
      metadata: {},
    });
  });

  test("manual task: start -> waiting -> finishTask -> complete, task_data as outgoing", async () => {
    await createWorkflow(
      admin,
      platform.broker,
      chain(
        "approve-change",
        [["approve", manual("Approve the change", { approved: "$var.job.approved" })]],
        {
          description: "Needs a person",
        },
      ),
    );
    const started = await start("approve-change", { ticket: "CHG-1" }, { description: "change CHG-1" });
    expect(started.status).toBe(200);
    const job = started.body;
    expect(job).toEqual(
      expect.objectContaining({
        _id: expect.stringMatching(/^[0-9a-f]{24}$/),
        name: "approve-change",
        description: "change CHG-1",
        type: "automation",
        status: "running",
        workflow: { _id: expect.any(String), name: "approve-change" },
        variables: { ticket: "CHG-1" },
        error: [],
        ancestors: [],
        // The account's _id, as the real product's jobs carry it (docs/compatibility.md#jobs).
        created_by: (await admin.get("/whoami")).body.account._id,
      }),
    );
    // The engine's bookkeeping stays in the store (docs/compatibility.md#jobs).
    for (const internal of ["version", "sweepAt", "waitingTasks", "manualTasks", "runAs"])
      expect(job).not.toHaveProperty(internal);
    expect(job.metrics).toEqual(
      expect.objectContaining({
        start_time: expect.any(Number),
        end_time: null,
        user: job.created_by,
        owner: job.created_by,
      }),
    );
    expect(taskStatuses(job)).toEqual({
      workflow_start: "complete",
      approve: "waiting",
      workflow_end: "incomplete",
    });

    const listed = await admin.get(`${TASKS}?job_id=${job._id}`);
    expect(listed.status).toBe(200);
    // The project's page (docs/compatibility.md#list-shapes).
    expect(listed.body).toMatchObject({ total: 1, skip: 0, limit: 25 });
    expect(listed.body.results).toEqual([
      expect.objectContaining({
        id: "approve",
        job_id: job._id,
        name: "Approve the change",
        status: "waiting",
        type: "manual",
      }),
    ]);

    await new Promise((r) => setTimeout(r, 30));
    const finished = await admin.post(FINISH, {
      job_id: job._id,
      task_id: "approve",
      task_data: { approved: true, by: "olga" },
    });
    expect(finished.status).toBe(200);
    const after = finished.body;
    expect(after.status).toBe("complete");
    expect(taskStatuses(after)).toEqual({
      workflow_start: "complete",
      approve: "complete",
      workflow_end: "complete",
    });
    expect(after.tasks.approve).toEqual(
      expect.objectContaining({ finish_state: "success", outgoing: { approved: true, by: "olga" } }),
    );
    expect(after.variables).toEqual({ ticket: "CHG-1", approved: true });
    expect(after.metrics.progress).toBe(100);
    expect(after.metrics.end_time).toBeGreaterThanOrEqual(after.metrics.start_time);
    expect(after.metrics.manual_time).toBeGreaterThanOrEqual(30);
    expect(after).not.toHaveProperty("version");
    // The stored job is what finishTask answered, with the engine's bookkeeping beside it.
    const stored = await readJob(platform.broker, job._id);
    expect(stored.status).toBe("complete");
    expect(stored.version).toBeGreaterThan(0);
    expect(stored.variables).toEqual(after.variables);
    expect((await admin.get(`${TASKS}?job_id=${job._id}`)).body.results).toEqual([]);
    expect((await admin.get(`${TASKS}?job_id=${job._id}&status=complete`)).body.results).toEqual([
      expect.objectContaining({
        id: "approve",
        status: "complete",
        outgoing: { approved: true, by: "olga" },
      }),
    ]);
  });

  test("automatic tasks call their action with resolved incoming variables; outgoing flows on", async () => {
    await createWorkflow(
      admin,
      platform.broker,
      chain("echo-twice", [
        [
          "first",
          auto(
            "enginetest",
            "echo",
            { value: "$var.job.device", fixed: 7 },
            { result: "$var.job.firstResult" },
          ),
        ],
        [
          "second",
          auto("enginetest", "echo", {
            previous: "$var.first.result.value",
            nested: { d: "$var.job.device" },
          }),
        ],
      ]),
    );
    const started = await start("echo-twice", { device: "r1" });
    expect(started.status).toBe(200);
    const done = await waitForJob(platform.broker, started.body._id);
    expect(done.status).toBe("complete");
    expect(done.tasks.first.outgoing).toEqual({ result: { value: "r1", fixed: 7, caller: "admin" } });
    expect(done.variables.firstResult).toEqual({ value: "r1", fixed: 7, caller: "admin" });
    expect(done.tasks.second.outgoing).toEqual({
      result: { previous: "r1", nested: { d: "r1" }, caller: "admin" },
    });
    const mine = svc.calls.filter(
      (c) => c.action === "echo" && (c.params.value === "r1" || c.params.previous === "r1"),
    );
    expect(mine.map((c) => c.params)).toEqual([
      { value: "r1", fixed: 7 },
      { previous: "r1", nested: { d: "r1" } },
    ]);
  });

  test("evaluation takes the failure branch; query and merge compute values", async () => {
    await createWorkflow(admin, platform.broker, sizeCheckWorkflow("size-check"));
    const facts = { interfaces: [{ name: "ge-0/0/0" }, { name: "ge-0/0/1" }] };
    const started = await start("size-check", { count: 3, facts, site: "ams" });
    expect(started.status).toBe(200);
    const done = await waitForJob(platform.broker, started.body._id);
    expect(done.status).toBe("complete");
    expect(done.tasks.check).toEqual(
      expect.objectContaining({
        status: "complete",
        finish_state: "failure",
        outgoing: { return_value: false },
      }),
    );
    expect(done.tasks.small.status).toBe("complete");
    expect(done.tasks.big.status).toBe("incomplete");
    expect(done.tasks.pick.outgoing).toEqual({ return_data: "ge-0/0/1" });
    expect(done.variables.summary).toEqual({ name: "ge-0/0/1", site: "ams" });
    expect(done.error).toEqual([]);
  });

  test("forEach runs its body once per item and collects the results", async () => {
    await createWorkflow(admin, platform.broker, visitDevicesWorkflow("visit-devices"));
    const started = await start("visit-devices", { devices: ["r1", "r2", "r3"] });
    const done = await waitForJob(platform.broker, started.body._id);
    expect(done.status).toBe("complete");
    expect(done.variables.visited).toEqual([
      { result: { device: "r1", n: 0, caller: "admin" } },
      { result: { device: "r2", n: 1, caller: "admin" } },
      { result: { device: "r3", n: 2, caller: "admin" } },
    ]);
    expect(done.tasks.each).toEqual(expect.objectContaining({ status: "complete", finish_state: "success" }));
    expect(done.tasks.visit.iterations).toHaveLength(3);
    const visits = svc.calls.filter(
      (c) => c.action === "echo" && typeof c.params.device === "string" && c.params.n !== undefined,
    );
    expect(visits.slice(-3).map((c) => c.params.device)).toEqual(["r1", "r2", "r3"]);

    const empty = await start("visit-devices", { devices: [] });
    const emptyDone = await waitForJob(platform.broker, empty.body._id);
    expect(emptyDone.status).toBe("complete");
    expect(emptyDone.variables.visited).toEqual([]);
    expect(emptyDone.tasks.visit.status).toBe("incomplete");
  });

  test("a task that throws records the spec's error record and follows its error transition", async () => {
    await createWorkflow(admin, platform.broker, pushOrRollbackWorkflow("push-or-rollback"));
    const started = await start("push-or-rollback", { device: "r9" });
    const done = await waitForJob(platform.broker, started.body._id);
    expect(done.status).toBe("complete");
    expect(done.tasks.push).toEqual(expect.objectContaining({ status: "error", finish_state: "error" }));
    expect(done.tasks.rollback.outgoing).toEqual({ result: { undo: "r9", caller: "admin" } });
    expect(done.error).toEqual([
      {
        task: "push",
        message: {
          code: 422,
          message: {
            apiVersion: expect.any(String),
            method: "enginetest.fail",
            error: {
              code: 422,
              message: "Device rejected the change",
              errors: [{ device: "r9", reason: "locked" }],
            },
          },
        },
        timestamp: expect.any(Number),
      },
    ]);
    expect(done.error[0].timestamp).toBeGreaterThanOrEqual(done.metrics.start_time);
  });

  test("without a transition for its finish state, the job ends in error", async () => {
    await createWorkflow(
      admin,
      platform.broker,
      chain("push-no-handler", [["push", auto("enginetest", "fail", {})]]),
    );
    await createWorkflow(
      admin,
      platform.broker,
      chain("strict-check", [["check", op("evaluation", { operand_1: 1, operator: "==", operand_2: 2 })]]),
    );
    const errored = await waitForJob(platform.broker, (await start("push-no-handler")).body._id);
    expect(errored.status).toBe("error");
    expect(errored.metrics.end_time).toEqual(expect.any(Number));
    expect(errored.error.map((e: any) => [e.task, e.message.code])).toEqual([["push", 422]]);
    expect(errored.tasks.workflow_end.status).toBe("incomplete");

    // An operation runs inside the start's write: the job already ended when start answers.
    const strict = await start("strict-check");
    expect(strict.body.status).toBe("error");
    expect(strict.body.error).toEqual([
      expect.objectContaining({
        task: "check",
        message: expect.objectContaining({
          code: 500,
          message: expect.objectContaining({
            error: expect.objectContaining({ message: expect.stringContaining("no transition for it") }),
          }),
        }),
      }),
    ]);
  });

  test("only actions declared as workflow tasks can be called by a job", async () => {
    await createWorkflow(
      admin,
      platform.broker,
      chain("call-plain", [["p", auto("enginetest", "plain", {})]]),
    );
    const before = svc.calls.filter((c) => c.action === "plain").length;
    const done = await waitForJob(platform.broker, (await start("call-plain")).body._id);
    expect(done.status).toBe("error");
    expect(done.error[0].message).toEqual(
      expect.objectContaining({
        code: 403,
        message: expect.objectContaining({ method: "enginetest.plain" }),
      }),
    );
    expect(done.error[0].message.message.error.message).toContain("not a workflow task");
    expect(svc.calls.filter((c) => c.action === "plain").length).toBe(before);
  });

  test("retrySettings: an erroring task is retried after its delay, up to its limit", async () => {
    const retrying = { retrySettings: { autoRetry: true, limit: 3, delay: 50 } };
    await createWorkflow(
      admin,
      platform.broker,
      chain("retry-flaky", [
        [
          "call",
          auto("enginetest", "flaky", { key: "$var.job.key", failures: "$var.job.failures" }, {}, retrying),
        ],
      ]),
    );
    const key = randomUUID();
    const done = await waitForJob(
      platform.broker,
      (await start("retry-flaky", { key, failures: 2 })).body._id,
    );
    expect(done.status).toBe("complete");
    expect(done.tasks.call.retrySettings).toEqual({
      autoRetry: true,
      limit: 3,
      delay: 50,
      state: ["error"],
      count: 2,
    });
    expect(done.tasks.call.outgoing).toEqual({ result: { attempt: 3 } });
    expect(done.error.map((e: any) => e.message.message.error.message)).toEqual([
      "attempt 1 failed",
      "attempt 2 failed",
    ]);
    const tries = svc.calls.filter((c) => c.action === "flaky" && c.params.key === key);
    expect(tries).toHaveLength(3);
    for (let i = 1; i < tries.length; i++)
      expect(tries[i].start - tries[i - 1].start).toBeGreaterThanOrEqual(45);

    const hopeless = randomUUID();
    const failed = await waitForJob(
      platform.broker,
      (await start("retry-flaky", { key: hopeless, failures: 10 })).body._id,
    );
    expect(failed.status).toBe("error");
    expect(failed.tasks.call.retrySettings.count).toBe(3);
    expect(svc.calls.filter((c) => c.action === "flaky" && c.params.key === hopeless)).toHaveLength(4);
  });

  test("delay waits durably (wakeAt in the job), then the job goes on", async () => {
    await createWorkflow(
      admin,
      platform.broker,
      chain("wait-a-bit", [["wait", op("delay", { time: "$var.job.seconds" })]]),
    );
    const started = await start("wait-a-bit", { seconds: 0.3 });
    expect(started.body.tasks.wait.status).toBe("running");
    expect(started.body.tasks.wait.wakeAt).toBeGreaterThanOrEqual(started.body.metrics.start_time + 300);
    expect(started.body).not.toHaveProperty("sweepAt");
    const stored = await readJob(platform.broker, started.body._id);
    expect(stored.sweepAt).toBe(stored.tasks.wait.wakeAt);
    const done = await waitForJob(platform.broker, started.body._id);
    expect(done.status).toBe("complete");
    expect(done.metrics.end_time - done.metrics.start_time).toBeGreaterThanOrEqual(300);

    const bad = await start("wait-a-bit", { seconds: "soon" });
    expect(bad.body.status).toBe("error");
    expect(bad.body.error[0].message.message.error.message).toContain("'time' must be a number of seconds");
  });

  test("childJob starts a child job and completes with it", async () => {
    await createWorkflow(
      admin,
      platform.broker,
      chain(
        "child-echo",
        [["say", auto("enginetest", "echo", { value: "$var.job.x" }, { result: "$var.job.out" })]],
        {
          inputSchema: { type: "object", required: ["x"] },
        },
      ),
    );
    await createWorkflow(
      admin,
      platform.broker,
      chain("parent-of-echo", [
        ["spawn", op("childJob", { workflow: "$var.job.child", variables: { x: "$var.job.seed" } })],
      ]),
    );
    const parent = await waitForJob(
      platform.broker,
      (await start("parent-of-echo", { seed: "s-1", child: "child-echo" })).body._id,
    );
    expect(parent.status).toBe("complete");
    const details = parent.tasks.spawn.outgoing.job_details;
    expect(details).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      status: "complete",
      variables: { x: "s-1", out: { value: "s-1", caller: "admin" } },
    });
    const child = await readJob(platform.broker, details._id);
    expect(child).toEqual(
      expect.objectContaining({
        name: "child-echo",
        status: "complete",
        ancestors: [parent._id],
        parent: { jobId: parent._id, taskId: "spawn" },
        groups: parent.groups,
      }),
    );

    const missing = await waitForJob(
      platform.broker,
      (await start("parent-of-echo", { seed: "s", child: "no-such-flow" })).body._id,
    );
    expect(missing.status).toBe("error");
    expect(missing.error[0]).toEqual(
      expect.objectContaining({ task: "spawn", message: expect.objectContaining({ code: 404 }) }),
    );
    const invalid = await waitForJob(
      platform.broker,
      (await start("parent-of-echo", { child: "child-echo" })).body._id,
    );
    expect(invalid.status).toBe("error");
    expect(invalid.error[0].message.code).toBe(400);
    expect(invalid.error[0].message.message.error.errors).toEqual([
      expect.objectContaining({ field: "variables.x", type: "required" }),
    ]);
  });

  test("a revert transition goes back to an earlier task, which runs again", async () => {
    await createWorkflow(
      admin,
      platform.broker,
      graph(
        "prepare-approve",
        {
          prep: auto("enginetest", "echo", { prepare: "$var.job.key" }),
          approve: manual("Approve", { decision: null }),
          check: op("evaluation", { operand_1: "$var.approve.decision", operator: "==", operand_2: "yes" }),
        },
        {
          workflow_start: { prep: success },
          prep: { approve: success },
          approve: { check: success },
          check: { workflow_end: success, prep: revert("failure") },
        },
      ),
    );
    const key = randomUUID();
    const id = (await start("prepare-approve", { key })).body._id;
    await waitForJob(platform.broker, id, (job) => job.tasks.approve.status === "waiting");
    const no = await admin.post(FINISH, { job_id: id, task_id: "approve", task_data: { decision: "no" } });
    expect(no.status).toBe(200);
    // The revert resets the section it goes back over: prep runs again, approve and check wait their turn.
    expect(no.body.tasks.check.status).toBe("incomplete");
    expect(no.body.tasks.check.iterations).toHaveLength(1);
    expect(no.body.tasks.approve.status).toBe("incomplete");
    expect(["running", "complete"]).toContain(no.body.tasks.prep.status);
    await waitForJob(platform.broker, id, (job) => job.tasks.approve.status === "waiting");
    const yes = await admin.post(FINISH, { job_id: id, task_id: "approve", task_data: { decision: "yes" } });
    expect(yes.body.status).toBe("complete");
    expect(svc.calls.filter((c) => c.action === "echo" && c.params.prepare === key)).toHaveLength(2);
    expect(yes.body.tasks.prep.iterations).toHaveLength(2);
    expect(yes.body.tasks.check).toEqual(
      expect.objectContaining({
        finish_state: "success",
        iterations: [expect.any(String), expect.any(String)],
      }),
    );
  });

  test("cancel: a running job and its waiting task are canceled; a finished job answers 409", async () => {
    await createWorkflow(admin, platform.broker, chain("wait-for-ok", [["ok", manual("OK?")]]));
    const id = (await start("wait-for-ok")).body._id;
    const canceled = await admin.post(`/operations-manager/jobs/${id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.status).toBe("canceled");
    expect(canceled.body.tasks.ok.status).toBe("canceled");
    expect(canceled.body.metrics.end_time).toEqual(expect.any(Number));
    expect((await readJob(platform.broker, id)).status).toBe("canceled");
    expectError(await admin.post(`/operations-manager/jobs/${id}/cancel`), 409, "CONFLICT");
    expectError(await admin.post(FINISH, { job_id: id, task_id: "ok", task_data: {} }), 409, "CONFLICT");
    expect((await admin.get(`${TASKS}?job_id=${id}`)).body.results).toEqual([]);
    expect((await admin.get(`${TASKS}?job_id=${id}&status=canceled`)).body.results).toEqual([
      expect.objectContaining({ id: "ok", status: "canceled" }),
    ]);
    expectError(
      await admin.post("/operations-manager/jobs/0123456789abcdef01234567/cancel"),
      404,
      "NOT_FOUND",
    );
  });

  test("two concurrent finishTask calls on one task: exactly one succeeds", async () => {
    await createWorkflow(
      admin,
      platform.broker,
      chain("race-approve", [["ok", manual("OK?", { who: "$var.job.who" })]]),
    );
    for (let round = 0; round < 3; round++) {
      const id = (await start("race-approve")).body._id;
      const replies = await Promise.all(
        ["alice", "bob"].map((who) => admin.post(FINISH, { job_id: id, task_id: "ok", task_data: { who } })),
      );
      expect(replies.map((r) => r.status).sort()).toEqual([200, 409]);
      const winner = replies.find((r) => r.status === 200)!;
      expectError(
        replies.find((r) => r.status === 409)!,
        409,
        "CONFLICT",
      );
      const stored = await readJob(platform.broker, id);
      expect(stored.status).toBe("complete");
      expect(stored.variables.who).toBe(winner.body.variables.who);
      expect(stored.tasks.ok.outgoing).toEqual(winner.body.tasks.ok.outgoing);
    }
  });

  test("finishTask: unknown job or task 404, a task that is not waiting 409, a bad id 400", async () => {
    await createWorkflow(
      admin,
      platform.broker,
      chain("two-steps", [
        ["slowpoke", auto("enginetest", "slow", { ms: 300 })],
        ["ok", manual("OK?")],
      ]),
    );
    const id = (await start("two-steps")).body._id;
    expectError(
      await admin.post(FINISH, { job_id: "0123456789abcdef01234567", task_id: "ok", task_data: {} }),
      404,
      "NOT_FOUND",
    );
    expectError(await admin.post(FINISH, { job_id: id, task_id: "nope", task_data: {} }), 404, "NOT_FOUND");
    expectError(await admin.post(FINISH, { job_id: id, task_id: "ok", task_data: {} }), 409, "CONFLICT");
    expectError(
      await admin.post(FINISH, { job_id: id, task_id: "slowpoke", task_data: {} }),
      409,
      "CONFLICT",
    );
    expectError(
      await admin.post(FINISH, { job_id: id, task_id: "workflow_start", task_data: {} }),
      409,
      "CONFLICT",
    );
    expectError(
      await admin.post(FINISH, { job_id: "not-an-id", task_id: "ok", task_data: {} }),
      400,
      "VALIDATION_ERROR",
    );
    const before = await readJob(platform.broker, id);
    expect(before.tasks.ok.status).toBe("incomplete");
    await waitForJob(platform.broker, id, (job) => job.tasks.ok.status === "waiting");
    expect((await admin.post(FINISH, { job_id: id, task_id: "ok", task_data: {} })).status).toBe(200);
  });

  test("startJob: unknown workflow 404; variables checked against inputSchema (400, nothing stored)", async () => {
    expectError(await start("no-such-workflow"), 404, "NOT_FOUND");
    await createWorkflow(
      admin,
      platform.broker,
      chain("vlan-change", [["ok", manual("OK?")]], {
        inputSchema: {
          type: "object",
          required: ["device"],
          properties: {
            device: { type: "string", minLength: 2 },
            vlan: { type: "integer", minimum: 1, maximum: 4094 },
            mode: { enum: ["access", "trunk"] },
          },
        },
      }),
    );
    const count = () =>
      withStore(platform.broker, (s) =>
        s.collection("jobs").count({ name: "vlan-change" }, { scan: "the test's own count" }),
      );
    const bad = await start("vlan-change", { vlan: 5000, mode: "hybrid" });
    const body = expectError(bad, 400, "VALIDATION_ERROR");
    expect(body.data.map((d: any) => [d.field, d.type]).sort()).toEqual([
      ["options.variables.device", "required"],
      ["options.variables.mode", "enum"],
      ["options.variables.vlan", "maximum"],
    ]);
    expectError(
      await start("vlan-change", { device: "r1" }, { groups: ["no-such-group"] }),
      400,
      "VALIDATION_ERROR",
    );
    expect(await count()).toBe(0);
    const good = await start("vlan-change", { device: "r1", vlan: 10, mode: "trunk" });
    expect(good.status).toBe(200);
    expect(await count()).toBe(1);
  });

  test("variables named by the workflow's encryption decorators are stored sealed", async () => {
    // Decorators are declared with the workflow, through the API.
    const decorators = [{ type: "encryption", pointer: "/password" }];
    const created = await admin.post("/workflow_builder/workflows", {
      workflow: { ...chain("with-secret", [["ok", manual("OK?")]]), decorators },
    });
    expect(created.status).toBe(200);
    expect(created.body.decorators).toEqual(decorators);
    const started = await start("with-secret", { device: "r1", password: "hunter2-secret" });
    expect(started.status).toBe(200);
    expect(started.text).not.toContain("hunter2-secret");
    expect(started.body.variables.password).toMatch(/^enc:v1:/);
    expect(started.body.variables.device).toBe("r1");
    const stored = await readJob(platform.broker, started.body._id);
    expect(JSON.stringify(stored)).not.toContain("hunter2-secret");
  });

  test("group-based access: the manual task list and finishTask see only the caller's groups' jobs", async () => {
    const netops = (
      await admin.post("/user-management/groups", { name: "netops", assignedRoles: ["engineering"] })
    ).body._id;
    await admin.post("/user-management/groups", { name: "field", assignedRoles: ["engineering"] });
    await admin.post("/user-management/accounts", {
      username: "nina",
      password: "engine-test-pw",
      groups: ["netops"],
    });
    await admin.post("/user-management/accounts", {
      username: "sam",
      password: "engine-test-pw",
      groups: ["field"],
    });
    const nina = client(platform.baseUrl, await login(platform.baseUrl, "nina", "engine-test-pw"));
    const sam = client(platform.baseUrl, await login(platform.baseUrl, "sam", "engine-test-pw"));
    await createWorkflow(admin, platform.broker, chain("netops-approval", [["ok", manual("OK?")]]));
    const id = (await start("netops-approval", {}, { groups: [netops] })).body._id;

    expect((await nina.get(`${TASKS}?job_id=${id}`)).body.results).toEqual([
      expect.objectContaining({ id: "ok", job_id: id }),
    ]);
    expect((await sam.get(`${TASKS}?job_id=${id}`)).body.results).toEqual([]);
    expect((await sam.get(TASKS)).body.results.map((t: any) => t.job_id)).not.toContain(id);
    expectError(await sam.post(FINISH, { job_id: id, task_id: "ok", task_data: {} }), 404, "NOT_FOUND");
    expectError(await sam.post(`/operations-manager/jobs/${id}/cancel`), 404, "NOT_FOUND");
    const done = await nina.post(FINISH, { job_id: id, task_id: "ok", task_data: { by: "nina" } });
    expect(done.status).toBe(200);
    expect(done.body.status).toBe("complete");

    // A job started by nina without groups gets her groups, so she can see it.
    const own = await nina.post(START, { workflow: "netops-approval", options: {} });
    expect(own.body.groups).toEqual([netops]);
    expect(own.body.created_by).toBe((await nina.get("/whoami")).body.account._id);
  });

  test("parallel branches run side by side; a join waits for every live branch", async () => {
    await createWorkflow(
      admin,
      platform.broker,
      graph(
        "fan-out-in",
        {
          quick: auto("enginetest", "echo", { branch: "quick", key: "$var.job.key" }),
          slowpoke: auto("enginetest", "slow", { ms: 200, key: "$var.job.key" }),
          skipped: auto("enginetest", "echo", { branch: "never" }),
          join: auto("enginetest", "echo", { joined: "$var.job.key" }),
        },
        {
          workflow_start: { quick: success, slowpoke: success },
          quick: { join: success },
          slowpoke: { join: success, skipped: failure },
          skipped: { join: success },
          join: { workflow_end: success },
        },
      ),
    );
    const key = randomUUID();
    const done = await waitForJob(platform.broker, (await start("fan-out-in", { key })).body._id);
    expect(done.status).toBe("complete");
    expect(taskStatuses(done)).toEqual({
      workflow_start: "complete",
      workflow_end: "complete",
      quick: "complete",
      slowpoke: "complete",
      skipped: "incomplete",
      join: "complete",
    });
    expect(done.tasks.join.previous.complete.sort()).toEqual(["quick", "slowpoke"]);
    const joins = svc.calls.filter((c) => c.params.joined === key);
    expect(joins).toHaveLength(1);
    const slowCall = svc.calls.find((c) => c.action === "slow" && c.params.key === key)!;
    expect(joins[0].start).toBeGreaterThanOrEqual(slowCall.end!);
  });

  test("a cycle of operations with no way out is throttled, not spun, and can be canceled", async () => {
    await createWorkflow(
      admin,
      platform.broker,
      graph(
        "spin",
        { check: op("evaluation", { operand_1: 1, operator: "==", operand_2: 2 }) },
        { workflow_start: { check: success }, check: { workflow_end: success, check: revert("failure") } },
      ),
    );
    const started = await start("spin");
    expect(started.status).toBe(200);
    expect(started.body.status).toBe("running");
    expect(started.body.tasks.check.iterations.length).toBeGreaterThan(0);
    expect((await readJob(platform.broker, started.body._id)).sweepAt).toBeGreaterThan(
      started.body.metrics.start_time,
    );
    const canceled = await admin.post(`/operations-manager/jobs/${started.body._id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.status).toBe("canceled");
  });

  test("job and task changes are broadcast as events carrying the job's groups", async () => {
    await createWorkflow(
      admin,
      platform.broker,
      chain("evented", [["say", auto("enginetest", "echo", { value: 1 })]]),
    );
    const id = (await start("evented")).body._id;
    const done = await waitForJob(platform.broker, id);
    await new Promise((r) => setTimeout(r, 20));
    const mine = events.filter((e) => e.payload.jobId === id);
    const jobStatuses = mine.filter((e) => e.kind === "job").map((e) => e.payload.status);
    expect(jobStatuses[0]).toBe("running");
    expect(jobStatuses[jobStatuses.length - 1]).toBe("complete");
    const sayStatuses = mine
      .filter((e) => e.kind === "task" && e.payload.taskId === "say")
      .map((e) => e.payload.taskStatus);
    expect(sayStatuses).toEqual(["running", "complete"]);
    for (const e of mine) {
      expect(e.payload).toEqual(
        expect.objectContaining({
          jobId: id,
          name: "evented",
          workflow: "evented",
          groups: done.groups,
          at: expect.any(String),
        }),
      );
    }
  });
});

describe.each(SHAPES)("jobs across brokers (%s)", (shape: Shape) => {
  let platform: Awaited<ReturnType<typeof startShape>>;
  let admin: ReturnType<typeof client>;
  const svc = taskService();

  beforeAll(async () => {
    platform = await startShape(shape);
    platform.broker.createService(svc.schema);
    for (const member of platform.members) await member.broker.waitForServices(["enginetest"], 15_000);
    admin = client(platform.baseUrl, await login(platform.baseUrl));
  }, 60_000);
  afterAll(async () => {
    await platform?.stop();
  });

  test("manual, automatic and child jobs complete", async () => {
    // Unique names: the store may outlive this suite.
    const child = `bus-child-${randomUUID().slice(0, 8)}`;
    const parent = `bus-parent-${randomUUID().slice(0, 8)}`;
    await createWorkflow(
      admin,
      platform.broker,
      chain(child, [["say", auto("enginetest", "echo", { value: "$var.job.v" })]]),
    );
    await createWorkflow(
      admin,
      platform.broker,
      chain(parent, [
        ["first", auto("enginetest", "echo", { value: "$var.job.v" }, { result: "$var.job.first" })],
        ["ok", manual("OK?", { note: "$var.job.note" })],
        ["kid", op("childJob", { workflow: child, variables: { v: "$var.job.note" } })],
      ]),
    );
    const id = (await admin.post(START, { workflow: parent, options: { variables: { v: 42 } } })).body._id;
    const waiting = await waitForJob(platform.broker, id, (job) => job.tasks.ok.status === "waiting");
    expect(waiting.variables.first).toEqual({ value: 42, caller: "admin" });
    const [a, b] = await Promise.all(
      ["x", "y"].map((note) => admin.post(FINISH, { job_id: id, task_id: "ok", task_data: { note } })),
    );
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const done = await waitForJob(platform.broker, id);
    expect(done.status).toBe("complete");
    expect(done.tasks.kid.outgoing.job_details).toEqual(
      expect.objectContaining({ status: "complete", variables: { v: done.variables.note } }),
    );
    expect(svc.calls.map((c) => c.params.value)).toEqual([42, done.variables.note]);
  });
});
