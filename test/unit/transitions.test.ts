/**
 * The job state machine (services/engine/run/transitions.ts, docs/engine.md "How a job runs") on
 * hand-built job documents: each test takes a new job of a small workflow, applies the events the
 * runner would (start, a run ends, a person finishes a manual task, cancel, claim renew/release),
 * each as one write (the change, then settle), and checks the resulting document and the write's
 * decisions (claims, wake-ups, children to cancel). Also the new job's document (./new-job.ts) and
 * the error records (./outcomes.ts) the machine writes.
 */
import { OperationError } from "../../services/engine/operations";
import { buildJob } from "../../services/engine/run/new-job";
import { writableTask } from "../../services/engine/run/jobs";
import { deepFreeze } from "../../shared/objects";
import { errorRecord, failed, methodOf, pushError, type Outcome } from "../../services/engine/run/outcomes";
import {
  CHILD_CHECK_MS,
  CLAIM_LOOK_GRANULE_MS,
  DISPATCH_GRACE_MS,
  MAX_ERROR_RECORDS,
  MAX_INLINE_STEPS,
} from "../../services/engine/run/settings";
import {
  cancelRun,
  finishManual,
  finishRun,
  isWaitingManual,
  releaseClaim,
  renewClaim,
  settle,
  startRun,
} from "../../services/engine/run/transitions";
import type { RunJob } from "../../services/engine/run/types";
import { resolveIncoming } from "../../services/engine/run/variables";
import { API_VERSION } from "../../shared/version";
import {
  CLAIM_TTL_MS,
  ME,
  T0,
  auto,
  chain,
  failure,
  graph,
  loop,
  manual,
  newJob,
  onError,
  op,
  revert,
  statusesOf,
  stepAt,
  success,
  taskIn,
  workflowDoc,
  write,
} from "../support/engine-builders";

const iso = (ms: number) => new Date(ms).toISOString();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const START = "workflow_start";
const END = "workflow_end";

/** A new job of `workflow`, started at T0 (runner.start: startRun, no further settle). */
function started(workflow: Parameters<typeof newJob>[0], variables: Record<string, unknown> = {}) {
  const job = newJob(workflow, variables);
  const step = stepAt(T0);
  startRun(job, step);
  return { job, step };
}

/** The run id of the claim on `taskId` (a claimed task must have one). */
function runOf(job: RunJob, taskId: string): string {
  const claim = taskIn(job, taskId).claim;
  if (!claim) throw new Error(`task ${taskId} is not claimed`);
  return claim.run;
}

/** Ends the current run of `taskId` at `now`, as the runner does when an action answers. */
function endRun(job: RunJob, taskId: string, outcome: Outcome, now: number) {
  const run = runOf(job, taskId);
  return write(job, (draft, step) => finishRun(draft, taskId, run, outcome, step), stepAt(now));
}

const ok = (outgoing: Record<string, unknown> = {}): Outcome => ({ state: "success", outgoing });
const rejected: Outcome = {
  state: "error",
  outgoing: {},
  error: { code: 422, message: "Device rejected the change", errors: [{ device: "r1" }] },
};

const oneAutomatic = chain("one", [["push", auto("dcim", "pushConfig", { device: "$var.job.device" })]]);

// ----------------------------------------------------------------------------------- new job

describe("a new job (buildJob)", () => {
  test("copies the workflow's tasks and transitions, every task incomplete, and starts running", () => {
    const job = newJob(oneAutomatic, { device: "r1" });
    expect(statusesOf(job)).toEqual({ [START]: "incomplete", [END]: "incomplete", push: "incomplete" });
    expect(job).toMatchObject({
      _id: "job-1",
      type: "automation",
      name: "one",
      workflow: { _id: "wf-one", name: "one" },
      status: "running",
      variables: { device: "r1" },
      error: [],
      groups: [],
      watchers: [],
      ancestors: [],
      metrics: {
        start_time: T0,
        end_time: null,
        progress: 0,
        user: "system",
        owner: "system",
        manual_time: 0,
      },
      created: iso(T0),
      created_by: "system",
      version: 0,
      sweepAt: null,
      parent: null,
      runAs: null,
    });
    expect(job.transitions).toEqual(oneAutomatic.transitions);
    // A copy: changing the job never changes the workflow it came from.
    job.transitions.push.workflow_end.state = "failure";
    expect(oneAutomatic.transitions.push.workflow_end.state).toBe("success");
  });

  test("shares a workflow's parts only when they are frozen (a start's read-only read), else copies them", () => {
    /** Every object and array inside `value`, itself included. */
    const objects = (value: unknown, into = new Set<object>()): Set<object> => {
      if (typeof value !== "object" || value === null) return into;
      into.add(value);
      for (const member of Object.values(value)) objects(member, into);
      return into;
    };
    const shared = (a: unknown, b: unknown) => [...objects(a)].filter((o) => objects(b).has(o));
    const input = { variables: {}, groups: [], id: "job-1" };
    const workflow = {
      ...workflowDoc(oneAutomatic),
      decorators: [{ type: "encryption" as const, pointer: "/x" }],
    };

    const fromCopy = buildJob(workflow, input, T0);
    expect(shared(fromCopy, workflow)).toEqual([]);

    const frozen = deepFreeze(structuredClone(workflow));
    const fromFrozen = buildJob(frozen, input, T0);
    expect(JSON.stringify(fromFrozen)).toBe(JSON.stringify(fromCopy));
    expect(fromFrozen.transitions).toBe(frozen.transitions);
    expect(fromFrozen.decorators).toBe(frozen.decorators);
    // Its tasks before the first step are the workflow image's template (run/job-template.ts): frozen
    // and the same for every job of that image; a transition copies one before changing it.
    const again = buildJob(frozen, { ...input, id: "job-2" }, T0);
    expect(again.tasks.push).toBe(fromFrozen.tasks.push);
    expect(Object.isFrozen(fromFrozen.tasks.push)).toBe(true);
    expect(writableTask(fromFrozen, "push")).not.toBe(again.tasks.push);
    // The job's own: its map of tasks and all it adds.
    expect(Object.isFrozen(fromFrozen.tasks)).toBe(false);
    for (const object of shared(fromFrozen, frozen)) expect(Object.isFrozen(object)).toBe(true);
  });

  test("a caller becomes the job's user, watcher and runAs", () => {
    const caller = { accountId: "acc-1", username: "ann", roles: ["operator" as const], groupIds: ["g1"] };
    const job = buildJob(
      workflowDoc(oneAutomatic),
      { variables: {}, groups: ["g1"], caller, id: "job-1" },
      T0,
    );
    expect(job._id).toBe("job-1");
    // The account's _id, as the real product's jobs carry it (docs/compatibility.md#jobs).
    expect(job.metrics.user).toBe("acc-1");
    expect(job.created_by).toBe("acc-1");
    expect(job.watchers).toEqual(["acc-1"]);
    expect(job.runAs).toEqual(caller);
    expect(job.groups).toEqual(["g1"]);
  });

  test("retrySettings are completed with their defaults and a count of 0", () => {
    const wf = chain("retry", [
      ["a", auto("svc", "a", {}, {}, { retrySettings: { autoRetry: true, limit: 3 } })],
      ["b", auto("svc", "b", {}, {}, { retrySettings: { delay: 50, state: ["failure"] } })],
    ]);
    const job = newJob(wf);
    expect(taskIn(job, "a").retrySettings).toEqual({
      autoRetry: true,
      limit: 3,
      delay: 0,
      state: ["error"],
      count: 0,
    });
    expect(taskIn(job, "b").retrySettings).toEqual({
      autoRetry: false,
      limit: 0,
      delay: 50,
      state: ["failure"],
      count: 0,
    });
  });
});

// ------------------------------------------------------------------------------------- start

describe("start", () => {
  test("workflow_start completes and its successor is reached and claimed for this replica", () => {
    const { job, step } = started(oneAutomatic, { device: "r1" });
    expect(taskIn(job, START)).toMatchObject({
      status: "complete",
      finish_state: "success",
      start_time: iso(T0),
      end_time: T0,
      outgoing: {},
    });
    const push = taskIn(job, "push");
    expect(push).toMatchObject({
      status: "running",
      start_time: iso(T0),
      claim: { owner: ME, until: T0 + CLAIM_TTL_MS, run: expect.stringMatching(UUID) },
      previous: { incomplete: [], complete: [START], error: [] },
    });
    expect(push.iterations).toHaveLength(1);
    expect(step.claimed).toEqual([{ taskId: "push", run: push.claim!.run }]);
    expect(step.ctx.budget).toBe(999);
    expect(step.wakeups).toEqual([]);
    expect(step.cancelChildren).toEqual([]);
    expect(step.leftReady).toBe(false);
    // One of three tasks finished; the next look is when the claim would expire.
    expect(job.metrics.progress).toBe(33);
    expect(job.sweepAt).toBe(T0 + CLAIM_TTL_MS);
    expect(job.manualTasks).toBeUndefined();
    // The claimed task's incoming variables resolve against the job.
    expect(resolveIncoming(job, push)).toEqual({ device: "r1" });
  });

  test("every successor of workflow_start starts at once (parallel branches)", () => {
    const wf = graph(
      "fork",
      { a: auto("svc", "a"), b: auto("svc", "b") },
      { [START]: { a: success, b: success }, a: { [END]: success }, b: { [END]: success } },
    );
    const { job, step } = started(wf);
    expect(step.claimed.map((c) => c.taskId).sort()).toEqual(["a", "b"]);
    expect(statusesOf(job)).toMatchObject({ a: "running", b: "running" });
  });

  test("a replica with no budget left claims nothing: the task stays runnable for another replica", () => {
    const job = newJob(oneAutomatic);
    const step = stepAt(T0, { budget: 0 });
    startRun(job, step);
    expect(taskIn(job, "push")).toMatchObject({ status: "running", claim: null });
    expect(step.claimed).toEqual([]);
    expect(step.leftReady).toBe(true);
    expect(job.sweepAt).toBe(T0 + DISPATCH_GRACE_MS);
  });

  test("the budget bounds the claims of one write", () => {
    const wf = graph(
      "fork3",
      { a: auto("svc", "a"), b: auto("svc", "b"), c: auto("svc", "c") },
      {
        [START]: { a: success, b: success, c: success },
        a: { [END]: success },
        b: { [END]: success },
        c: { [END]: success },
      },
    );
    const job = newJob(wf);
    const step = stepAt(T0, { budget: 2 });
    startRun(job, step);
    expect(step.claimed).toHaveLength(2);
    expect(step.ctx.budget).toBe(0);
    expect(step.leftReady).toBe(true);
    // The claims expire after the unclaimed task's dispatch grace: the earlier look wins.
    expect(job.sweepAt).toBe(T0 + DISPATCH_GRACE_MS);
  });
});

// ----------------------------------------------------------------------------- a run ends

describe("a task's run ends", () => {
  test("success: outgoing stored, the next task reached; reaching workflow_end completes the job", () => {
    const wf = chain("two", [
      ["lookup", auto("svc", "lookup", {}, { site: "$var.job.site" })],
      ["push", auto("svc", "push", { site: "$var.lookup.site" })],
    ]);
    const { job } = started(wf);
    const { result, step } = endRun(job, "lookup", ok({ site: "nyc" }), T0 + 100);
    expect(result).toBe(true);
    expect(taskIn(job, "lookup")).toMatchObject({
      status: "complete",
      finish_state: "success",
      end_time: T0 + 100,
      outgoing: { site: "nyc" },
      claim: null,
    });
    // `$var.job.site` as an outgoing definition writes the job variable too.
    expect(job.variables).toEqual({ site: "nyc" });
    expect(step.claimed).toEqual([{ taskId: "push", run: runOf(job, "push") }]);
    expect(resolveIncoming(job, taskIn(job, "push"))).toEqual({ site: "nyc" });
    expect(job.metrics.progress).toBe(50);

    endRun(job, "push", ok({ result: {} }), T0 + 250);
    expect(job.status).toBe("complete");
    expect(statusesOf(job)).toEqual({
      [START]: "complete",
      [END]: "complete",
      lookup: "complete",
      push: "complete",
    });
    expect(taskIn(job, END)).toMatchObject({ finish_state: "success", end_time: T0 + 250 });
    expect(job.metrics).toMatchObject({ end_time: T0 + 250, progress: 100 });
    expect(job.sweepAt).toBeNull();
    expect(job.manualTasks).toBeUndefined();
    expect(job.error).toEqual([]);
  });

  test("reaching workflow_end cancels whatever still runs or waits", () => {
    const wf = graph(
      "race",
      { a: auto("svc", "a"), side: auto("svc", "side"), approve: manual("Approve") },
      { [START]: { a: success, side: success, approve: success }, a: { [END]: success } },
    );
    const { job } = started(wf);
    endRun(job, "a", ok(), T0 + 400);
    expect(job.status).toBe("complete");
    expect(statusesOf(job)).toEqual({
      [START]: "complete",
      [END]: "complete",
      a: "complete",
      side: "canceled",
      approve: "canceled",
    });
    expect(taskIn(job, "side")).toMatchObject({ claim: null, end_time: T0 + 400 });
    expect(job.metrics).toMatchObject({ progress: 100, manual_time: 400, end_time: T0 + 400 });
    expect(job.manualTasks).toEqual([
      { k: "approve", status: "canceled", start_time: taskIn(job, "approve").start_time },
    ]);
  });

  test("error with an error transition: the spec's error record, then the error path", () => {
    const wf = graph(
      "onerror",
      { push: auto("dcim", "pushConfig"), rollback: auto("dcim", "rollback") },
      {
        [START]: { push: success },
        push: { [END]: success, rollback: onError },
        rollback: { [END]: success },
      },
    );
    const { job } = started(wf);
    const { step } = endRun(job, "push", rejected, T0 + 10);
    expect(taskIn(job, "push")).toMatchObject({ status: "error", finish_state: "error", end_time: T0 + 10 });
    expect(job.error).toEqual([
      {
        task: "push",
        timestamp: T0 + 10,
        message: {
          code: 422,
          message: {
            apiVersion: API_VERSION,
            method: "dcim.pushConfig",
            error: { code: 422, message: "Device rejected the change", errors: [{ device: "r1" }] },
          },
        },
      },
    ]);
    expect(job.status).toBe("running");
    expect(taskIn(job, "rollback")).toMatchObject({
      status: "running",
      previous: { incomplete: [], complete: [], error: ["push"] },
    });
    expect(step.claimed.map((c) => c.taskId)).toEqual(["rollback"]);
  });

  test("failure with a failure transition takes it (and writes no error record)", () => {
    const wf = graph(
      "onfailure",
      { check: auto("svc", "check"), fix: manual("Fix it") },
      { [START]: { check: success }, check: { [END]: success, fix: failure }, fix: { [END]: success } },
    );
    const { job } = started(wf);
    endRun(job, "check", { state: "failure", outgoing: { why: "drift" } }, T0 + 5);
    expect(taskIn(job, "check")).toMatchObject({ status: "complete", finish_state: "failure" });
    expect(taskIn(job, "fix").status).toBe("waiting");
    expect(job.error).toEqual([]);
  });

  test("a finish state without a transition ends the job in error, with a record naming it", () => {
    const { job } = started(oneAutomatic);
    endRun(job, "push", { state: "failure", outgoing: {} }, T0 + 7);
    expect(job.status).toBe("error");
    expect(job.metrics.end_time).toBe(T0 + 7);
    expect(job.error).toEqual([
      errorRecord(
        "push",
        "dcim.pushConfig",
        { code: 500, message: "Task 'push' finished 'failure' and has no transition for it", errors: [] },
        T0 + 7,
      ),
    ]);
    expect(job.sweepAt).toBeNull();
  });

  test("an error without an error transition ends the job in error with the task's own record only", () => {
    const { job } = started(oneAutomatic);
    endRun(job, "push", rejected, T0 + 7);
    expect(job.status).toBe("error");
    expect(job.error).toHaveLength(1);
    expect(job.error[0].message.code).toBe(422);
    expect(taskIn(job, END).status).toBe("incomplete");
  });

  test("a transition to a task the job does not have ends it in error", () => {
    const job = newJob(oneAutomatic);
    job.transitions.push = { ghost: { ...success } };
    startRun(job, stepAt(T0));
    endRun(job, "push", ok(), T0 + 1);
    expect(job.status).toBe("error");
    expect(job.error.map((e) => e.message.message.error.message)).toEqual([
      "Transition from 'push' to unknown task 'ghost'",
    ]);
  });

  test("a transition to a task named like an Object.prototype member ('toString') is an unknown task too", () => {
    const job = newJob(oneAutomatic);
    job.transitions.push = JSON.parse('{"toString": {"state": "success", "type": "standard"}}');
    startRun(job, stepAt(T0));
    try {
      endRun(job, "push", ok(), T0 + 1);
      expect(Object.prototype.hasOwnProperty.call(Object.prototype.toString, "previous")).toBe(false);
      expect(job.status).toBe("error");
      expect(job.error.map((e) => e.message.message.error.message)).toEqual([
        "Transition from 'push' to unknown task 'toString'",
      ]);
    } finally {
      delete (Object.prototype.toString as { previous?: unknown }).previous;
    }
  });

  test("the outcome of a run that no longer holds the task is dropped", () => {
    const { job } = started(oneAutomatic);
    const before = structuredClone(job);
    const { result } = write(job, (draft, step) => finishRun(draft, "push", "an-old-run", ok(), step));
    expect(result).toBe(false);
    expect(job).toEqual(before);
  });

  test("nor is a run's outcome taken once the job has ended", () => {
    const { job } = started(oneAutomatic);
    const run = runOf(job, "push");
    write(job, (draft, step) => cancelRun(draft, step), stepAt(T0 + 1));
    const { result } = write(job, (draft, step) => finishRun(draft, "push", run, ok(), step));
    expect(result).toBe(false);
    expect(job.status).toBe("canceled");
    expect(taskIn(job, "push").status).toBe("canceled");
  });
});

// ---------------------------------------------------------------------------------- retries

describe("retrySettings", () => {
  const retrying = chain("retrying", [
    ["flaky", auto("svc", "flaky", {}, {}, { retrySettings: { autoRetry: true, limit: 2, delay: 1000 } })],
  ]);

  test("a run in a retry state sleeps `delay` (wakeAt) and is claimed again once it is due", () => {
    const { job } = started(retrying);
    const { step } = endRun(job, "flaky", rejected, T0 + 10);
    const flaky = taskIn(job, "flaky");
    expect(flaky).toMatchObject({ status: "running", claim: null, wakeAt: T0 + 1010 });
    expect(flaky.retrySettings!.count).toBe(1);
    expect(step.wakeups).toEqual([T0 + 1010]);
    expect(step.claimed).toEqual([]);
    expect(job.sweepAt).toBe(T0 + 1010);
    // Every failed try leaves its record.
    expect(job.error).toHaveLength(1);

    // Before the wake-up nothing happens; at it the task is claimed again.
    const early = write(job, () => undefined, stepAt(T0 + 1009)).step;
    expect(early.claimed).toEqual([]);
    const due = write(job, () => undefined, stepAt(T0 + 1010)).step;
    expect(due.claimed).toEqual([{ taskId: "flaky", run: runOf(job, "flaky") }]);
    expect(taskIn(job, "flaky").wakeAt).toBeUndefined();
  });

  test("after `limit` retries the outcome follows its transitions", () => {
    const { job } = started(retrying);
    for (const at of [10, 2000, 4000]) {
      endRun(job, "flaky", rejected, T0 + at);
      if (job.status === "running") write(job, () => undefined, stepAt(T0 + at + 1000));
    }
    expect(taskIn(job, "flaky").retrySettings!.count).toBe(2);
    expect(taskIn(job, "flaky").status).toBe("error");
    expect(job.status).toBe("error");
    expect(job.error).toHaveLength(3);
  });

  test("a finish state not in `state` is not retried", () => {
    const { job } = started(retrying);
    endRun(job, "flaky", ok(), T0 + 10);
    expect(taskIn(job, "flaky").retrySettings!.count).toBe(0);
    expect(job.status).toBe("complete");
  });
});

// ------------------------------------------------------------------------------- manual tasks

describe("manual tasks", () => {
  const approval = chain("approval", [["approve", manual("Approve", { approved: "$var.job.approved" })]]);

  test("a reached manual task waits for a person; nothing is due meanwhile", () => {
    const { job, step } = started(approval);
    expect(taskIn(job, "approve")).toMatchObject({ status: "waiting", waitingSince: T0, claim: null });
    expect(isWaitingManual(job, "approve")).toBe(true);
    expect(isWaitingManual(job, START)).toBe(false);
    expect(isWaitingManual(job, "nope")).toBe(false);
    expect(step.claimed).toEqual([]);
    expect(taskIn(job, "approve").start_time).toBeDefined();
    expect(job.manualTasks).toEqual([
      { k: "approve", status: "waiting", start_time: taskIn(job, "approve").start_time },
    ]);
    expect(job.sweepAt).toBeNull();
  });

  test("finishManual: success with the data as outgoing, manual time counted, the job goes on", () => {
    const { job } = started(approval);
    const data = { approved: true, note: "ok" };
    write(job, (draft, step) => finishManual(draft, "approve", data, step), stepAt(T0 + 5000));
    data.note = "changed afterwards";
    expect(taskIn(job, "approve")).toMatchObject({
      status: "complete",
      finish_state: "success",
      outgoing: { approved: true, note: "ok" },
      waitingSince: null,
      end_time: T0 + 5000,
    });
    expect(job.variables).toEqual({ approved: true });
    expect(job.metrics.manual_time).toBe(5000);
    expect(job.status).toBe("complete");
    expect(job.manualTasks).toEqual([
      { k: "approve", status: "complete", start_time: taskIn(job, "approve").start_time },
    ]);
    expect(isWaitingManual(job, "approve")).toBe(false);
  });
});

// ------------------------------------------------------------------------------------- cancel

describe("cancel", () => {
  test("running and waiting tasks are canceled, manual time counted, nothing due any more", () => {
    const wf = graph(
      "both",
      { work: auto("svc", "work"), approve: manual("Approve") },
      {
        [START]: { work: success, approve: success },
        work: { [END]: success },
        approve: { [END]: success },
      },
    );
    const { job } = started(wf);
    const { step } = write(job, (draft, s) => cancelRun(draft, s), stepAt(T0 + 3000));
    expect(job.status).toBe("canceled");
    expect(job.metrics.end_time).toBe(T0 + 3000);
    expect(job.metrics.manual_time).toBe(3000);
    for (const id of ["work", "approve"])
      expect(taskIn(job, id)).toMatchObject({ status: "canceled", end_time: T0 + 3000, claim: null });
    expect(taskIn(job, "approve").waitingSince).toBeNull();
    expect(taskIn(job, END).status).toBe("incomplete");
    expect(step.claimed).toEqual([]);
    expect(step.cancelChildren).toEqual([]);
    expect(job.sweepAt).toBeNull();
    expect(job.manualTasks).toEqual([
      { k: "approve", status: "canceled", start_time: taskIn(job, "approve").start_time },
    ]);
    // start, work and approve are finished; workflow_end is not.
    expect(job.metrics.progress).toBe(75);
  });

  test("a paused job is canceled the same way", () => {
    const { job } = started(oneAutomatic);
    job.status = "paused";
    expect(isWaitingManual(job, "push")).toBe(false);
    write(job, (draft, s) => cancelRun(draft, s), stepAt(T0 + 9));
    expect(job.status).toBe("canceled");
    expect(taskIn(job, "push")).toMatchObject({ status: "canceled", claim: null, end_time: T0 + 9 });
  });

  test("a childJob task waiting for its child: the child is to be canceled too", () => {
    const wf = chain("parent", [["child", op("childJob", { workflow: "inner" })]]);
    const { job } = started(wf);
    const childId = taskIn(job, "child").child!.jobId;
    const { step } = write(job, (draft, s) => cancelRun(draft, s), stepAt(T0 + 1));
    expect(step.cancelChildren).toEqual([childId]);
    expect(taskIn(job, "child").status).toBe("canceled");
  });
});

// ------------------------------------------------------------------------------------- claims

describe("claims", () => {
  test("a claim's expiry is looked at on the granule after it: the steps of a job within one share sweepAt", () => {
    const chain3 = chain("three", [
      ["a", auto("svc", "a")],
      ["b", auto("svc", "b")],
      ["c", auto("svc", "c")],
    ]);
    const job = newJob(chain3);
    startRun(job, stepAt(T0 + 1));
    // Never before the claim's expiry (an early look would find it held), at most a granule after.
    expect(taskIn(job, "a").claim!.until).toBe(T0 + 1 + CLAIM_TTL_MS);
    expect(job.sweepAt).toBe(T0 + CLAIM_TTL_MS + CLAIM_LOOK_GRANULE_MS);
    const first = job.sweepAt;
    endRun(job, "a", ok(), T0 + 7);
    expect(taskIn(job, "b").claim!.until).toBe(T0 + 7 + CLAIM_TTL_MS);
    expect(job.sweepAt).toBe(first); // the next step's claim, in the same granule: not rewritten
    endRun(job, "b", ok(), T0 + CLAIM_LOOK_GRANULE_MS + 3);
    expect(job.sweepAt).toBe(T0 + CLAIM_TTL_MS + 2 * CLAIM_LOOK_GRANULE_MS);
  });

  test("renewClaim extends the claim of the run that holds it, and only that one", () => {
    const { job } = started(oneAutomatic);
    const run = runOf(job, "push");
    expect(renewClaim(job, "push", run, T0 + 2000, CLAIM_TTL_MS)).toBe(true);
    expect(taskIn(job, "push").claim).toEqual({ owner: ME, until: T0 + 2000 + CLAIM_TTL_MS, run });
    expect(renewClaim(job, "push", "other-run", T0 + 4000, CLAIM_TTL_MS)).toBe(false);
    expect(renewClaim(job, "missing", run, T0 + 4000, CLAIM_TTL_MS)).toBe(false);
    expect(taskIn(job, "push").claim!.until).toBe(T0 + 2000 + CLAIM_TTL_MS);
  });

  test("a renewal after the job ended is refused", () => {
    const { job } = started(oneAutomatic);
    const run = runOf(job, "push");
    write(job, (draft, step) => cancelRun(draft, step));
    expect(renewClaim(job, "push", run, T0 + 2000, CLAIM_TTL_MS)).toBe(false);
  });

  test("releaseClaim hands the task back: the next write claims it anew (another run)", () => {
    const { job } = started(oneAutomatic);
    const run = runOf(job, "push");
    expect(releaseClaim(job, "push", "other-run")).toBe(false);
    expect(
      write(job, (draft) => releaseClaim(draft, "push", run), stepAt(T0 + 1, { budget: 0 })).result,
    ).toBe(true);
    expect(taskIn(job, "push").claim).toBeNull();
    expect(job.sweepAt).toBe(T0 + 1 + DISPATCH_GRACE_MS);

    const { step } = write(job, () => undefined, stepAt(T0 + 2, { me: "node-2/replica-b" }));
    expect(taskIn(job, "push").claim).toMatchObject({
      owner: "node-2/replica-b",
      until: T0 + 2 + CLAIM_TTL_MS,
    });
    expect(runOf(job, "push")).not.toBe(run);
    expect(step.claimed).toEqual([{ taskId: "push", run: runOf(job, "push") }]);
  });

  test("an expired claim (its replica died) is taken over by the next write; a live one is not", () => {
    const { job } = started(oneAutomatic);
    const run = runOf(job, "push");
    const live = write(job, () => undefined, stepAt(T0 + CLAIM_TTL_MS - 1, { me: "node-2" })).step;
    expect(live.claimed).toEqual([]);
    const expired = write(job, () => undefined, stepAt(T0 + CLAIM_TTL_MS, { me: "node-2" })).step;
    expect(expired.claimed).toHaveLength(1);
    expect(taskIn(job, "push").claim!.owner).toBe("node-2");
    // The dead replica's late answer is dropped.
    expect(write(job, (draft, step) => finishRun(draft, "push", run, ok(), step)).result).toBe(false);
  });

  test("settling a job with nothing to do keeps its planned look (no churn between writes)", () => {
    const { job } = started(oneAutomatic);
    const before = structuredClone(job);
    write(job, () => undefined, stepAt(T0 + 1));
    expect(job).toEqual(before);
  });
});

// -------------------------------------------------------------------------------------- joins

// A stored job's graph is deep-frozen (jobs.ts), and its incoming edges are then found once per
// graph (transitions.ts predecessors): each join test runs on both.
describe.each(["as built", "frozen"])("joins (graph %s)", (shape) => {
  const started = (workflow: Parameters<typeof newJob>[0]) => {
    const job = newJob(workflow, {});
    if (shape === "frozen") deepFreeze(job.transitions);
    const step = stepAt(T0);
    startRun(job, step);
    return { job, step };
  };

  test("a task with two incoming paths starts once both have arrived", () => {
    const wf = graph(
      "join",
      { a: auto("svc", "a"), b: auto("svc", "b"), j: auto("svc", "j") },
      {
        [START]: { a: success, b: success },
        a: { j: success },
        b: { j: success },
        j: { [END]: success },
      },
    );
    const { job } = started(wf);
    const first = endRun(job, "a", ok(), T0 + 1).step;
    expect(first.claimed).toEqual([]);
    expect(taskIn(job, "j")).toMatchObject({
      status: "incomplete",
      previous: { incomplete: ["b"], complete: ["a"], error: [] },
    });
    const second = endRun(job, "b", ok(), T0 + 2).step;
    expect(second.claimed.map((c) => c.taskId)).toEqual(["j"]);
    expect(taskIn(job, "j").previous).toEqual({ incomplete: [], complete: ["a", "b"], error: [] });
  });

  test("a path that went another way does not hold the join back", () => {
    // b fails over to d, so c (b's success path into j) is never reached: j waits for a and d only.
    const wf = graph(
      "deadpath",
      {
        a: auto("svc", "a"),
        b: auto("svc", "b"),
        c: auto("svc", "c"),
        d: auto("svc", "d"),
        j: auto("svc", "j"),
      },
      {
        [START]: { a: success, b: success },
        a: { j: success },
        b: { c: success, d: failure },
        c: { j: success },
        d: { j: success },
        j: { [END]: success },
      },
    );
    const { job } = started(wf);
    endRun(job, "b", { state: "failure", outgoing: {} }, T0 + 1);
    endRun(job, "a", ok(), T0 + 2);
    expect(taskIn(job, "j")).toMatchObject({
      status: "incomplete",
      previous: { incomplete: ["d"], complete: ["a"], error: [] },
    });
    const { step } = endRun(job, "d", ok(), T0 + 3);
    expect(step.claimed.map((c) => c.taskId)).toEqual(["j"]);
    expect(taskIn(job, "c").status).toBe("incomplete");
  });

  test("a task named after an Object member (constructor) has only its own paths", () => {
    // Its incoming edges are looked up as own members: no task's edges inherit a `constructor`.
    const wf = graph(
      "member-names",
      { a: auto("svc", "a"), b: auto("svc", "b"), constructor: auto("svc", "c") },
      {
        [START]: { a: success, b: success },
        a: { constructor: success },
        b: {},
        constructor: { [END]: success },
      },
    );
    const { job } = started(wf);
    const { step } = endRun(job, "a", ok(), T0 + 1);
    // b is still running, and has no edge to it: it does not hold it back.
    expect(step.claimed.map((c) => c.taskId)).toEqual(["constructor"]);
  });

  test("a revert edge into a join is not one of its paths; each other edge is, in the graph's order", () => {
    // j's paths: b, d and a (in the graph's order); c's revert back to j does not hold it back.
    const wf = graph(
      "join-revert",
      {
        b: auto("svc", "b"),
        d: auto("svc", "d"),
        a: auto("svc", "a"),
        j: auto("svc", "j"),
        c: auto("svc", "c"),
      },
      {
        [START]: { b: success, d: success, a: success },
        b: { j: success },
        d: { j: success },
        a: { j: success },
        j: { c: success },
        c: { [END]: success, j: revert("failure") },
      },
    );
    const { job } = started(wf);
    endRun(job, "a", ok(), T0 + 1);
    expect(taskIn(job, "j")).toMatchObject({
      status: "incomplete",
      previous: { incomplete: ["b", "d"], complete: ["a"], error: [] },
    });
    endRun(job, "d", ok(), T0 + 2);
    const { step } = endRun(job, "b", ok(), T0 + 3);
    expect(step.claimed.map((c) => c.taskId)).toEqual(["j"]);
  });
});

// ----------------------------------------------------------------------------- revert, cycles

describe("revert and cycles", () => {
  test("a revert transition resets the target and everything after it, and runs the target again", () => {
    const wf = graph(
      "revert",
      { a: auto("svc", "a"), b: auto("svc", "b") },
      { [START]: { a: success }, a: { b: success }, b: { [END]: success, a: revert("failure") } },
    );
    const { job } = started(wf);
    const firstRun = runOf(job, "a");
    endRun(job, "a", ok({ n: 1 }), T0 + 1);
    const { step } = endRun(job, "b", { state: "failure", outgoing: { x: 1 } }, T0 + 2);
    expect(statusesOf(job)).toEqual({
      [START]: "complete",
      [END]: "incomplete",
      a: "running",
      b: "incomplete",
    });
    const a = taskIn(job, "a");
    expect(a.outgoing).toBeUndefined();
    expect(a.finish_state).toBeUndefined();
    expect(a.previous).toEqual({ incomplete: [], complete: ["b"], error: [] });
    expect(a.iterations).toHaveLength(2);
    expect(runOf(job, "a")).not.toBe(firstRun);
    const b = taskIn(job, "b");
    expect(b).not.toHaveProperty("outgoing");
    expect(b).not.toHaveProperty("finish_state");
    expect(b).not.toHaveProperty("end_time");
    expect(b).not.toHaveProperty("previous");
    expect(step.claimed.map((c) => c.taskId)).toEqual(["a"]);
    expect(job.status).toBe("running");
  });

  test("a standard transition back into a finished task runs it again, like a revert", () => {
    const wf = graph(
      "cycle",
      { a: auto("svc", "a"), b: auto("svc", "b") },
      { [START]: { a: success }, a: { b: success }, b: { [END]: success, a: failure } },
    );
    const { job } = started(wf);
    endRun(job, "a", ok(), T0 + 1);
    endRun(job, "b", { state: "failure", outgoing: {} }, T0 + 2);
    expect(statusesOf(job)).toMatchObject({ a: "running", b: "incomplete" });
    expect(taskIn(job, "a").iterations).toHaveLength(2);
  });

  test("a cycle of operations with no way out stops after MAX_INLINE_STEPS in one write", () => {
    const always = { operand_1: 1, operator: "==", operand_2: 1 };
    const wf = graph(
      "spin",
      { e1: op("evaluation", always), e2: op("evaluation", always) },
      { [START]: { e1: success }, e1: { e2: success }, e2: { e1: success } },
    );
    const { job, step } = started(wf);
    expect(step.takeInline()).toBe(false);
    expect(job.status).toBe("running");
    // One of the two is left runnable for the sweeper, throttled.
    expect(job.sweepAt).toBe(T0 + DISPATCH_GRACE_MS);
    const runs = taskIn(job, "e1").iterations!.length + taskIn(job, "e2").iterations!.length;
    expect(runs).toBeLessThanOrEqual(MAX_INLINE_STEPS + 1);
  });
});

// ---------------------------------------------------------------------------------- operations

describe("operations inside the write", () => {
  const branch = graph(
    "branch",
    {
      check: op(
        "evaluation",
        { operand_1: "$var.job.x", operator: "==", operand_2: 5 },
        { ok: "$var.job.ok" },
      ),
      review: manual("Review"),
    },
    { [START]: { check: success }, check: { [END]: success, review: failure }, review: { [END]: success } },
  );

  test("an evaluation that holds finishes success and the job goes on, all in the first write", () => {
    const { job, step } = started(branch, { x: 5 });
    expect(taskIn(job, "check")).toMatchObject({
      status: "complete",
      finish_state: "success",
      outgoing: { return_value: true },
    });
    expect(job.status).toBe("complete");
    expect(step.claimed).toEqual([]);
  });

  test("one that does not hold finishes failure and takes the failure path", () => {
    const { job } = started(branch, { x: 4 });
    expect(taskIn(job, "check")).toMatchObject({
      finish_state: "failure",
      outgoing: { return_value: false },
    });
    expect(taskIn(job, "review").status).toBe("waiting");
  });

  test("bad incoming variables finish the operation error with code 400", () => {
    const wf = chain("bad", [["check", op("evaluation", { operand_1: 1, operator: "~", operand_2: 1 })]]);
    const { job } = started(wf);
    expect(taskIn(job, "check")).toMatchObject({ status: "error", finish_state: "error", outgoing: {} });
    expect(job.status).toBe("error");
    expect(job.error).toHaveLength(1);
    expect(job.error[0]).toMatchObject({
      task: "check",
      message: {
        code: 400,
        message: {
          method: "evaluation",
          error: {
            code: 400,
            errors: [{ field: "evaluation.operator", message: 'Unknown operator "~"' }],
          },
        },
      },
    });
  });

  test("query and merge run inline too", () => {
    const wf = chain("qm", [
      ["q", op("query", { obj: "$var.job.device", query: "interfaces[1].name" })],
      ["m", op("merge", { data_to_merge: [{ key: "name", value: "$var.q.return_data" }, { site: "nyc" }] })],
    ]);
    const { job } = started(wf, { device: { interfaces: [{ name: "ge-0" }, { name: "ge-1" }] } });
    expect(taskIn(job, "q").outgoing).toEqual({ return_data: "ge-1" });
    expect(taskIn(job, "m").outgoing).toEqual({ merged_object: { name: "ge-1", site: "nyc" } });
    expect(job.status).toBe("complete");
  });

  test("delay: sleeps until wakeAt (a decision for a local timer), then finishes success", () => {
    const wf = chain("wait", [["pause", op("delay", { time: 2 })]]);
    const { job, step } = started(wf);
    expect(taskIn(job, "pause")).toMatchObject({ status: "running", wakeAt: T0 + 2000, claim: null });
    expect(step.wakeups).toEqual([T0 + 2000]);
    expect(job.sweepAt).toBe(T0 + 2000);
    write(job, () => undefined, stepAt(T0 + 1999));
    expect(taskIn(job, "pause").status).toBe("running");
    write(job, () => undefined, stepAt(T0 + 2000));
    expect(taskIn(job, "pause")).toMatchObject({ status: "complete", finish_state: "success" });
    expect(taskIn(job, "pause")).not.toHaveProperty("wakeAt");
    expect(job.status).toBe("complete");
  });

  test("delay with a time that is not a number finishes error 400", () => {
    const wf = chain("badwait", [["pause", op("delay", { time: "soon" })]]);
    const { job } = started(wf);
    expect(taskIn(job, "pause").status).toBe("error");
    expect(job.error[0].message.code).toBe(400);
  });
});

// ----------------------------------------------------------------------------------- childJob

describe("childJob", () => {
  const parent = graph(
    "parent",
    { child: op("childJob", { workflow: "inner" }), cleanup: auto("svc", "cleanup") },
    { [START]: { child: success }, child: { [END]: success, cleanup: onError }, cleanup: { [END]: success } },
  );

  test("its claim chooses the child's id; once released, the job looks at the child every CHILD_CHECK_MS", () => {
    const { job, step } = started(parent);
    const task = taskIn(job, "child");
    expect(task.child).toEqual({ jobId: expect.stringMatching(/^[0-9a-f]{24}$/) });
    expect(step.claimed).toEqual([{ taskId: "child", run: task.claim!.run }]);
    write(job, (draft) => releaseClaim(draft, "child", task.claim!.run), stepAt(T0 + 5));
    expect(taskIn(job, "child")).toMatchObject({ status: "running", claim: null });
    // The look already planned (the claim's expiry) is within CHILD_CHECK_MS: it is kept.
    expect(job.sweepAt).toBe(T0 + CLAIM_TTL_MS);
    // At that look, with no news of the child, the next one is CHILD_CHECK_MS later.
    write(job, () => undefined, stepAt(T0 + CLAIM_TTL_MS));
    expect(taskIn(job, "child").status).toBe("running");
    expect(job.sweepAt).toBe(T0 + CLAIM_TTL_MS + CHILD_CHECK_MS);
  });

  test("a completed child finishes the task success with its job_details", () => {
    const { job } = started(parent);
    const childId = taskIn(job, "child").child!.jobId;
    const children = new Map([[childId, { status: "complete", variables: { v: 1 } }]]);
    write(job, () => undefined, stepAt(T0 + 10, { children }));
    expect(taskIn(job, "child")).toMatchObject({
      status: "complete",
      outgoing: { job_details: { _id: childId, status: "complete", variables: { v: 1 } } },
    });
    expect(job.status).toBe("complete");
  });

  test("a child that ended in error (or canceled) finishes the task error", () => {
    const { job } = started(parent);
    const childId = taskIn(job, "child").child!.jobId;
    const children = new Map([[childId, { status: "canceled" }]]);
    const { step } = write(job, () => undefined, stepAt(T0 + 10, { children }));
    expect(taskIn(job, "child")).toMatchObject({ status: "error", finish_state: "error" });
    expect(job.error.map((e) => e.message.message.error.message)).toEqual([
      `Child job ${childId} ended 'canceled'`,
    ]);
    expect(step.claimed.map((c) => c.taskId)).toEqual(["cleanup"]);
  });

  test("a child that was never stored is started again under the same id once the claim expired", () => {
    const { job } = started(parent);
    const childId = taskIn(job, "child").child!.jobId;
    const children = new Map([[childId, { status: "running", missing: true }]]);
    expect(write(job, () => undefined, stepAt(T0 + 1, { children })).step.claimed).toEqual([]);
    const { step } = write(job, () => undefined, stepAt(T0 + CLAIM_TTL_MS, { children }));
    expect(step.claimed.map((c) => c.taskId)).toEqual(["child"]);
    expect(taskIn(job, "child").child).toEqual({ jobId: childId });
  });
});

// ------------------------------------------------------------------------------------ forEach

describe("forEach", () => {
  const loopWf = (items: string) =>
    graph(
      "loop",
      {
        each: op("forEach", { data_array: items }),
        body: auto("svc", "body", { item: "$var.each.current_item", i: "$var.each.index" }),
      },
      { [START]: { each: success }, each: { body: loop, [END]: success }, body: { each: success } },
    );

  test("runs the body once per item, collects each return, then finishes success with the results", () => {
    const { job, step } = started(loopWf("$var.job.items"), { items: ["r1", "r2"] });
    expect(taskIn(job, "each")).toMatchObject({
      status: "running",
      loop: { items: ["r1", "r2"], index: 0, results: [] },
      outgoing: { current_item: "r1", index: 0 },
    });
    expect(step.claimed.map((c) => c.taskId)).toEqual(["body"]);
    expect(resolveIncoming(job, taskIn(job, "body"))).toEqual({ item: "r1", i: 0 });
    // A loop waiting for its body has nothing due of its own: the look is the body's claim.
    expect(job.sweepAt).toBe(T0 + CLAIM_TTL_MS);

    const firstRun = runOf(job, "body");
    const second = endRun(job, "body", ok({ result: "done r1" }), T0 + 10).step;
    expect(taskIn(job, "each").loop).toEqual({
      items: ["r1", "r2"],
      index: 1,
      results: [{ result: "done r1" }],
    });
    expect(second.claimed.map((c) => c.taskId)).toEqual(["body"]);
    expect(runOf(job, "body")).not.toBe(firstRun);
    expect(resolveIncoming(job, taskIn(job, "body"))).toEqual({ item: "r2", i: 1 });

    endRun(job, "body", ok({ result: "done r2" }), T0 + 20);
    expect(taskIn(job, "each")).toMatchObject({
      status: "complete",
      finish_state: "success",
      loop: null,
      outgoing: { current_item: "r2", index: 1, results: [{ result: "done r1" }, { result: "done r2" }] },
    });
    // The body keeps the state of its last iteration.
    expect(taskIn(job, "body")).toMatchObject({ status: "complete", outgoing: { result: "done r2" } });
    expect(job.status).toBe("complete");
  });

  test("an empty list finishes at once with no results", () => {
    const { job, step } = started(loopWf("$var.job.items"), { items: [] });
    expect(taskIn(job, "each").outgoing).toEqual({ current_item: null, index: 0, results: [] });
    expect(taskIn(job, "body").status).toBe("incomplete");
    expect(step.claimed).toEqual([]);
    expect(job.status).toBe("complete");
  });

  test("data_array that is not a list, or a forEach without a loop transition, is an error 400", () => {
    const notList = started(loopWf("$var.job.items"), { items: "r1" }).job;
    expect(taskIn(notList, "each").status).toBe("error");
    expect(notList.error[0].message.message.error.message).toBe("'data_array' must be a list");

    const noBody = started(chain("nobody", [["each", op("forEach", { data_array: [1] })]])).job;
    expect(noBody.error.map((e) => [e.message.code, e.message.message.error.message])).toEqual([
      [400, "forEach task 'each' has no 'loop' transition to its body"],
    ]);
  });
});

// ----------------------------------------------------------------------------------- outcomes

describe("outcomes and error records (outcomes.ts)", () => {
  test("failed(): a thrown error's code (100-599, else 500), message and details", () => {
    expect(failed(Object.assign(new Error("nope"), { code: 503, data: { retry: true } }))).toEqual({
      state: "error",
      outgoing: {},
      error: { code: 503, message: "nope", errors: [{ retry: true }] },
    });
    expect(failed(Object.assign(new Error("bad"), { code: "ECONNRESET" })).error!.code).toBe(500);
    expect(failed(Object.assign(new Error("bad"), { code: 99 })).error!.code).toBe(500);
    expect(failed(new OperationError("bad input", [{ field: "x" }])).error).toEqual({
      code: 400,
      message: "bad input",
      errors: [{ field: "x" }],
    });
    expect(failed("plain text").error).toEqual({ code: 500, message: "plain text", errors: [] });
    expect(failed(Object.assign(new Error(""), { data: [1, 2] })).error).toEqual({
      code: 500,
      message: "Error",
      errors: [1, 2],
    });
  });

  test("methodOf: `app.name` for automatic tasks, the name otherwise", () => {
    const job = newJob(
      graph(
        "m",
        { a: auto("dcim", "push"), m: manual("Approve"), o: op("merge", {}) },
        {
          [START]: { a: success, m: success, o: success },
        },
      ),
    );
    expect(methodOf(taskIn(job, "a"))).toBe("dcim.push");
    expect(methodOf(taskIn(job, "m"))).toBe("Approve");
    expect(methodOf(taskIn(job, "o"))).toBe("merge");
  });

  test("pushError keeps the most recent MAX_ERROR_RECORDS", () => {
    const job = newJob(oneAutomatic);
    for (let i = 0; i < MAX_ERROR_RECORDS + 5; i++)
      pushError(job, errorRecord("push", "dcim.pushConfig", { code: 500, message: `e${i}`, errors: [] }, i));
    expect(job.error).toHaveLength(MAX_ERROR_RECORDS);
    expect(job.error[0].timestamp).toBe(5);
    expect(job.error.at(-1)!.timestamp).toBe(MAX_ERROR_RECORDS + 4);
  });
});

test("settle on an ended job only recomputes its summary", () => {
  const { job } = started(oneAutomatic);
  write(job, (draft, step) => cancelRun(draft, step), stepAt(T0 + 1));
  const before = structuredClone(job);
  const { step } = write(job, () => undefined, stepAt(T0 + 100_000));
  settle(job, step);
  expect(job).toEqual(before);
  expect(step.claimed).toEqual([]);
});

// -------------------------------------------------------------------------- settle's fixpoint

describe("settle leaves nothing for another pass", () => {
  /** A random workflow: each task leads on to later ones (joins arise), some states lead nowhere. */
  function randomWorkflow(seed: number) {
    let state = seed;
    const random = (n: number) => (state = (state * 1103515245 + 12345) % 2 ** 31) % n;
    const count = 3 + random(8);
    const ids = Array.from({ length: count }, (_, i) => `t${i}`);
    const tasks: Record<string, ReturnType<typeof auto> | ReturnType<typeof manual>> = {};
    const transitions: Record<string, Record<string, unknown>> = { [START]: {} };
    for (const id of ids.slice(0, 1 + random(3))) transitions[START][id] = success;
    ids.forEach((id, i) => {
      tasks[id] = random(4) === 0 ? manual(id) : auto("svc", id);
      const edges: Record<string, unknown> = {};
      const later = ids.slice(i + 1);
      for (let k = 1 + random(2); k > 0; k--) {
        const to = later.length > 0 && random(3) > 0 ? later[random(later.length)] : END;
        edges[to] = [success, failure, onError][random(3)];
      }
      transitions[id] = edges;
    });
    return { wf: graph(`random-${seed}`, tasks, transitions as never), random };
  }

  test.each(Array.from({ length: 40 }, (_, i) => i + 1))("random workflow %i", (seed) => {
    const { wf, random } = randomWorkflow(seed);
    const { job } = started(wf);
    const settled = (now: number) => {
      // A second settle at the same moment finds nothing to do: no change, no claim, no wake-up.
      const before = JSON.stringify(job);
      const again = stepAt(now);
      settle(job, again);
      expect(JSON.stringify(job)).toBe(before);
      expect([again.claimed, again.wakeups, again.cancelChildren]).toEqual([[], [], []]);
    };
    settled(T0);
    for (let event = 1; event <= 40 && job.status === "running"; event++) {
      const now = T0 + event;
      const live = Object.keys(job.tasks).filter((id) => {
        const task = job.tasks[id];
        return task && (task.claim || (task.type === "manual" && task.status === "waiting"));
      });
      if (live.length === 0) break;
      const id = live[random(live.length)];
      const task = taskIn(job, id);
      if (task.type === "manual") write(job, (draft, step) => finishManual(draft, id, {}, step), stepAt(now));
      else {
        const outcome: Outcome =
          random(3) === 0
            ? { state: "failure", outgoing: {} }
            : random(5) === 0
              ? failed(new Error("x"))
              : ok();
        endRun(job, id, outcome, now);
      }
      settled(now);
    }
  });
});
