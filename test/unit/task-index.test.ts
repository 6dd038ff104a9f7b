/**
 * A draft's walks look only at its live tasks and the ones it wrote (services/engine/run/task-index.ts):
 * every write of a job through the JobStore must decide what the walk of every task decides. Each
 * write below is made twice from the same remembered job: on the JobStore's draft (its tasks'
 * index kept from write to write) and on a plain copy of it (no index: every task walked), and the
 * two must come out the same, claims and summary included, for workflows with joins, branches,
 * in-engine operations, a loop, manual tasks and a long chain.
 */
import { copyPlain } from "../../shared/objects";
import { indexTasks, DraftTasks } from "../../services/engine/run/task-index";
import { finishManual, finishRun, settle, startRun, type Step } from "../../services/engine/run/transitions";
import type { RunJob, RunTask } from "../../services/engine/run/types";
import {
  auto,
  chain,
  graph,
  manual,
  newJob,
  onError,
  pushOrRollbackWorkflow,
  sizeCheckWorkflow,
  stepAt,
  success,
  T0,
  visitDevicesWorkflow,
  type WorkflowInput,
} from "../support/engine-builders";
import { jobStorePerTest } from "../support/run-jobs";

const fixture = jobStorePerTest("task-index-");

const UUIDS = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** The job as JSON with its run ids and iteration ids (random on each side) put aside. */
const shape = (job: RunJob) => JSON.stringify(job).replace(UUIDS, "<uuid>");

/**
 * The runner's next event for `job`: a waiting manual task finished every third turn, else the run
 * of a claimed task ends (the first one in task order on odd turns, the last on even ones, so
 * other claims stay held across writes), in error for a task whose id starts with `fail`.
 */
function nextEvent(job: RunJob, turn: number, step: Step): boolean {
  const ids = Object.keys(job.tasks);
  const waiting = ids.find((id) => job.tasks[id]?.status === "waiting");
  const claimed = ids.filter((id) => job.tasks[id]?.status === "running" && job.tasks[id]?.claim);
  if (waiting !== undefined && (turn % 3 === 0 || claimed.length === 0)) {
    finishManual(job, waiting, { approved: turn }, step);
    return true;
  }
  if (claimed.length === 0) return false;
  const id = turn % 2 === 0 ? claimed[claimed.length - 1] : claimed[0];
  const outcome = id.startsWith("fail")
    ? { state: "error" as const, outgoing: {}, error: { code: 500, message: "no", errors: [] } }
    : { state: "success" as const, outgoing: { n: turn } };
  return finishRun(job, id, job.tasks[id]!.claim!.run, outcome, step);
}

/** Runs a job of `workflow` to its end, each write made on the draft and on a plain copy, compared. */
async function runBothWays(workflow: WorkflowInput, variables: Record<string, unknown>, id: string) {
  const { jobs } = fixture;
  const job = newJob(workflow, variables, T0, id);
  startRun(job, stepAt(T0));
  await jobs.insert(job);
  let writes = 0;
  for (let turn = 1; turn < 400; turn++) {
    const now = T0 + turn * 1000;
    // Each attempt's two outcomes, compared after the write: a throw inside the change would be
    // taken as a refusal, and the JobStore would try again from a fresh read (a walk of every task).
    const attempts: { ours: unknown; walked: unknown }[] = [];
    const outcome = (job: RunJob, step: Step, acted: boolean) => ({
      acted,
      job: shape(job),
      claimed: step.claimed.map((c) => c.taskId),
      wakeups: step.wakeups,
      leftReady: step.leftReady,
    });
    const written = await jobs.update(id, (draft) => {
      const twin = copyPlain(draft);
      const [mine, theirs] = [stepAt(now), stepAt(now)];
      const acted = nextEvent(draft, turn, mine);
      settle(draft, mine);
      const twinActed = nextEvent(twin, turn, theirs);
      settle(twin, theirs);
      attempts.push({ ours: outcome(draft, mine, acted), walked: outcome(twin, theirs, twinActed) });
    });
    expect(attempts).toHaveLength(1);
    expect(attempts[0].ours).toEqual(attempts[0].walked);
    // What was stored is what the draft holds: writtenPairs paired every task the draft wrote.
    if (written) expect(JSON.stringify(await fixture.stored(id))).toBe(JSON.stringify(written.job));
    if (written?.changed) writes++;
    if (!written || written.job.status !== "running") break;
  }
  const end = (await fixture.stored(id)) as RunJob;
  expect(end.status).not.toBe("running");
  return { writes, end };
}

/** A long chain with a manual approval in its middle and a task that fails around its successor. */
function longChain(): WorkflowInput {
  const steps: [string, Record<string, unknown>][] = [];
  for (let i = 1; i <= 40; i++) {
    const id = i === 7 ? "fail7" : `t${i}`;
    steps.push([id, i === 20 ? manual("approve") : auto("svc", `step${i}`)]);
  }
  const wf = chain("long", steps);
  // fail7's error goes around t8 to t9 (a join of t8's path, dead then, and fail7's error).
  (wf.transitions as Record<string, Record<string, unknown>>).fail7 = {
    t8: { ...success },
    t9: { ...onError },
  };
  return wf;
}

/**
 * Branches that run side by side and join: `a`'s path through `a2`, `b`'s, and a manual check.
 * `failx` errs into the join `j` first (`j` waits for `c`'s path and the manual check's);
 * `failb` errs away from `c`, whose path then dies, in a write that does not touch `j`, which
 * still waits for the check, a task the index counts quiet (only running and reached tasks are
 * live) and the join's wait must still see.
 */
const joinWorkflow = () =>
  graph(
    "join",
    {
      failx: auto("svc", "x"),
      a: auto("svc", "a"),
      a2: auto("svc", "a2"),
      failb: auto("svc", "b"),
      c: auto("svc", "c"),
      m: manual("check"),
      j: auto("svc", "join"),
      z: auto("svc", "z"),
    },
    {
      workflow_start: { failx: success, a: success, failb: success, m: success },
      a: { a2: success },
      a2: { workflow_end: success },
      failx: { j: onError },
      failb: { c: success, z: onError },
      c: { j: success },
      m: { j: success },
      j: { workflow_end: success },
      z: { workflow_end: success },
    },
  );

/** Two chains side by side: a claim one write makes is held while the next write ends the other chain's. */
const sideBySide = () =>
  graph(
    "side",
    { p1: auto("svc", "p1"), p2: auto("svc", "p2"), q1: auto("svc", "q1"), q2: auto("svc", "q2") },
    {
      workflow_start: { p1: success, q1: success },
      p1: { p2: success },
      p2: { workflow_end: success },
      q1: { q2: success },
      q2: { workflow_end: success },
    },
  );

test.each([
  ["a long chain with a manual task", longChain(), {}],
  ["branches that join", joinWorkflow(), {}],
  ["two chains side by side", sideBySide(), {}],
  ["in-engine operations that pick a branch", sizeCheckWorkflow("size"), { count: 20, facts: {}, site: "x" }],
  ["a forEach loop", visitDevicesWorkflow("visit"), { devices: ["r1", "r2", "r3"] }],
  ["a push or its rollback", pushOrRollbackWorkflow("push"), {}],
])(
  "%s: every write on the draft's index decides what the walk of every task decides",
  async (_, wf, vars) => {
    const { writes } = await runBothWays(
      wf as WorkflowInput,
      vars as Record<string, unknown>,
      `job-${_.length}`,
    );
    expect(writes).toBeGreaterThan(0);
  },
);

test("a stored draft's index is the one a walk of its tasks gives, whatever the draft wrote", () => {
  const statuses = ["incomplete", "running", "waiting", "complete", "error", "canceled"];
  // A task's type is its workflow's, and a task never comes or goes: both stay with its position.
  const makeTask = (i: number, n: number): RunTask | null =>
    i % 11 === 10
      ? null
      : ({
          type: i % 5 === 0 ? "manual" : "automatic",
          status: statuses[n % statuses.length],
          ...(n % 4 === 0 && { previous: { incomplete: [], complete: n % 8 === 0 ? ["x"] : [], error: [] } }),
        } as unknown as RunTask);
  let seed = 7;
  const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648) % n) as number;
  let tasks: Record<string, RunTask | null> = {};
  for (let i = 0; i < 60; i++) tasks[`t${i}`] = makeTask(i, random(1000));
  let index = indexTasks(tasks);
  for (let round = 0; round < 200; round++) {
    const draft = { ...tasks };
    const view = new DraftTasks(draft, index);
    const writes = random(6);
    for (let w = 0; w < writes; w++) {
      const i = random(60);
      view.wrote(`t${i}`);
      draft[`t${i}`] = makeTask(i, random(1000));
    }
    // Each position written once, in order; the walk looks at every one of them.
    expect(view.written).toEqual([...new Set(view.written)].sort((a, b) => a - b));
    for (const i of view.written) expect(view.looking[i]).toBe(1);
    const walked = indexTasks(draft);
    expect(view.counts()).toEqual({ total: walked.total, done: walked.done });
    index = view.storedIndex();
    expect({ ...index, at: [...index.at] }).toEqual({ ...walked, at: [...walked.at] });
    tasks = draft;
  }
});

test("a task the draft's base has not is refused, not walked past", () => {
  const tasks = { a: null };
  expect(() => new DraftTasks(tasks, indexTasks(tasks)).wrote("b")).toThrow(/not a task of the draft's base/);
});
