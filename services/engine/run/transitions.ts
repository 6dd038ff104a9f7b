/**
 * The job state machine (docs/platform-rules.md#workflows-and-jobs) as pure functions over one job document. A write
 * is: take the stored job, apply one change (a task finished, a person finished a manual task, the
 * job was canceled), then `settle` it — reach the tasks the transitions lead to, run the in-engine
 * operations that need nothing from outside, claim the tasks this replica will run — and store the
 * result with one compare-and-set. Nothing here does I/O, so a write that loses the race is simply
 * recomputed on the newer document.
 *
 * The entry points, one per event (start, cancel, a person finishes a manual task, a run ends, a
 * claim is renewed or released), come first, after Step; the internals follow. A new job's
 * document is built in ./new-job.ts; outcomes and error records are in ./outcomes.ts.
 *
 * Task states inside a job:
 *   incomplete               not reached (or reached on some but not all live incoming paths: a join)
 *   waiting                  a manual task waiting for finishTask
 *   running + claim          a replica runs it until `claim.until` (renewed while it runs)
 *   running + wakeAt > now   a delay, or a retry, sleeping
 *   running + child          a childJob task waiting for its child job
 *   running + loop           a forEach task waiting for its body to come back
 *   running, none of these   runnable: the next settle claims it (or runs it, for an operation)
 *   complete / error / canceled
 */
import { copyPlain } from "../../../shared/objects";
import { randomUUID } from "node:crypto";
import type {
  FinishState,
  JobErrorRecord,
  TransitionTarget,
} from "../../../shared/contracts/engine-documents";
import {
  OperationError,
  PURE_OPERATIONS,
  childDetails,
  delayMs,
  loopItems,
  type OperationResult,
} from "../operations";
import type { OperationTask } from "../operations/names";
import {
  CHILD_CHECK_MS,
  CLAIM_LOOK_GRANULE_MS,
  DISPATCH_GRACE_MS,
  MAX_INLINE_STEPS,
  MAX_ITERATIONS,
} from "./settings";
import { errorRecord, failed, methodOf, pushError, type Outcome } from "./outcomes";
import type { ChildState, ManualTaskSummary, RunJob, RunTask } from "./types";
import { manualEntry } from "./manual-summary";
import { readTask, writablePart, writableTask } from "./jobs";
import { draftTasksOf, type DraftTasks } from "./task-index";
import { FINISHED, hasArrivals } from "./task-states";
import { applyOutgoing, resolveIncoming } from "./variables";

import { END, START } from "../../../shared/contracts/engine-documents";
import { isoOf } from "../../../shared/text";

/**
 * The job's task `id` (own members only), ready to change: a draft shares its untouched tasks with
 * the stored job, frozen (jobs.ts), and this gives the draft its own copy. Code that only looks at
 * a task uses readTask (no copy); code that walks `job.tasks` reads; a task changes only through here.
 */
const taskAt = writableTask;
const ACTIVE = new Set(["running", "waiting"]);

export interface StepContext {
  now: number;
  /** This replica's claim owner id. */
  me: string;
  /** Tasks this replica may still claim in this write. */
  budget: number;
  /** How long a claim holds without renewal (the broker's config, ./settings.ts). */
  claimTtlMs: number;
  /** A new job's id (the jobs repository's newId): a childJob task's child gets it when the task is claimed. */
  newJobId(): string;
  /** What is known of child jobs, by id (looked up before the write). */
  children?: Map<string, ChildState>;
}

/** One write's decisions, for the runner to act on once the write is stored. */
export class Step {
  /** Tasks claimed for this replica: run them after the write. */
  readonly claimed: { taskId: string; run: string }[] = [];
  /** Wake-up times set (delays, retries): a local timer gets there sooner than a sweep. */
  readonly wakeups: number[] = [];
  /** Child jobs to cancel (their parent task was canceled or reset). */
  readonly cancelChildren: string[] = [];
  /** Runnable tasks were left for later because this replica is at its limit: another may take them. */
  leftReady = false;
  private inlineLeft = MAX_INLINE_STEPS;

  constructor(readonly ctx: StepContext) {}

  get now(): number {
    return this.ctx.now;
  }

  takeInline(): boolean {
    if (this.inlineLeft <= 0) return false;
    this.inlineLeft--;
    return true;
  }
}

// ------------------------------------------------------------------ entry points (one per event)

/** The first step: `workflow_start` completes and its successors are reached. */
export function startRun(job: RunJob, step: Step): void {
  const start = taskOf(job, START);
  start.start_time = isoOf(step.now);
  finish(job, START, { state: "success", outgoing: {} }, step);
  settle(job, step);
}

/** Ends a running or paused job as canceled: its running and waiting tasks are canceled too (then settle). */
export function cancelRun(job: RunJob, step: Step): void {
  endJob(job, "canceled", step);
}

/**
 * A person paused the job: nothing new starts until it is resumed. Runs already under way may
 * finish; their outcomes are recorded and the transitions they lead to wait in `deferred`.
 */
export function pauseRun(job: RunJob, step: Step): void {
  job.status = "paused";
  job.deferred ??= [];
  summarize(job, step.now);
}

/** The job goes on: the transitions deferred while paused are taken, then it settles as usual. */
export function resumeRun(job: RunJob, step: Step): void {
  job.status = "running";
  const deferred = job.deferred ?? [];
  delete job.deferred;
  for (const { from, state } of deferred) follow(job, from, state, step);
  settle(job, step);
}

/** Running or paused: the job has not ended, and a run of one of its tasks may still report. */
const live = (job: RunJob) => job.status === "running" || job.status === "paused";

/** Is `task` of `job` a manual task waiting for a person? */
export function isWaitingManual(job: RunJob, taskId: string): boolean {
  const task = readTask(job, taskId);
  return job.status === "running" && !!task && task.type === "manual" && task.status === "waiting";
}

/** A person finished manual task `taskId` with `data`: finish state success, data as its outgoing variables. */
export function finishManual(job: RunJob, taskId: string, data: Record<string, unknown>, step: Step): void {
  const task = taskOf(job, taskId);
  if (task.waitingSince != null)
    writablePart(job, "metrics").manual_time += Math.max(0, step.now - task.waitingSince);
  finish(job, taskId, { state: "success", outgoing: copyPlain(data) }, step);
}

/** Ends task `taskId`'s run `run` with `outcome`, if that run still holds the task. */
export function finishRun(job: RunJob, taskId: string, run: string, outcome: Outcome, step: Step): boolean {
  const task = readTask(job, taskId);
  if (!live(job) || !task || task.status !== "running" || task.claim?.run !== run) return false;
  finish(job, taskId, outcome, step);
  return true;
}

/** Extends run `run`'s claim on `taskId`; false when the run no longer holds it. */
export function renewClaim(
  job: RunJob,
  taskId: string,
  run: string,
  now: number,
  claimTtlMs: number,
): boolean {
  const task = readTask(job, taskId);
  if (!live(job) || !task || task.status !== "running" || task.claim?.run !== run) return false;
  // A new claim object: the draft's task shares its members with the stored one (jobs.ts writableTask).
  const own = taskAt(job, taskId)!;
  own.claim = { ...own.claim!, until: now + claimTtlMs };
  return true;
}

/** Hands run `run`'s claim back (its work is elsewhere now, e.g. a child job, or this replica stops). */
export function releaseClaim(job: RunJob, taskId: string, run: string): boolean {
  const task = readTask(job, taskId);
  if (!task || task.claim?.run !== run) return false;
  taskAt(job, taskId)!.claim = null;
  return true;
}

function taskOf(job: RunJob, id: string): RunTask {
  const task = taskAt(job, id);
  if (!task) throw new Error(`job ${job._id} has no task '${id}'`);
  return task;
}

/** Ends the job (complete, error or canceled); whatever still runs or waits is canceled. */
function endJob(job: RunJob, status: "complete" | "error" | "canceled", step: Step, record?: JobErrorRecord) {
  if (record) pushError(job, record);
  job.status = status;
  writablePart(job, "metrics").end_time = step.now;
  for (const id of Object.keys(job.tasks)) {
    if (!ACTIVE.has(job.tasks[id]?.status ?? "")) continue;
    const task = taskAt(job, id)!;
    if (task.status === "waiting" && task.waitingSince != null)
      writablePart(job, "metrics").manual_time += Math.max(0, step.now - task.waitingSince);
    if (task.child && task.status === "running") step.cancelChildren.push(task.child.jobId);
    task.status = "canceled";
    task.end_time = step.now;
    clearRunState(task);
  }
}

// ------------------------------------------------------------------------------ finishing tasks

/**
 * A run of task `id` ended with `outcome`: retry it when its retrySettings say so, otherwise
 * record the outcome and follow the transitions of its finish state.
 */
export function finish(job: RunJob, id: string, outcome: Outcome, step: Step): void {
  const task = taskOf(job, id);
  if (outcome.error) pushError(job, errorRecord(id, methodOf(task), outcome.error, step.now));
  const retry = task.retrySettings;
  if (
    retry?.autoRetry &&
    retry.count < retry.limit &&
    (retry.state?.length ? retry.state : ["error"]).includes(outcome.state)
  ) {
    // A new object: the draft's task shares its members with the stored one (jobs.ts writableTask).
    task.retrySettings = { ...retry, count: retry.count + 1 };
    task.status = "running";
    clearRunState(task);
    task.wakeAt = step.now + retry.delay;
    step.wakeups.push(task.wakeAt);
    if (outcome.outgoing) task.outgoing = outcome.outgoing;
    return;
  }
  clearRunState(task);
  task.status = outcome.state === "error" ? "error" : "complete";
  task.finish_state = outcome.state;
  task.end_time = step.now;
  applyOutgoing(job, task, outcome.outgoing ?? {}, () => writablePart(job, "variables"));
  if (job.status === "paused")
    (writablePart(job, "deferred") ?? (job.deferred = [])).push({ from: id, state: outcome.state });
  else follow(job, id, outcome.state, step);
}

function clearRunState(task: RunTask): void {
  task.claim = null;
  task.loop = null;
  task.waitingSince = null;
  delete task.wakeAt;
}

/** Takes every transition of `from` for `state`; none means the job ends in error. */
function follow(job: RunJob, from: string, state: FinishState, step: Step): void {
  if (job.status !== "running") return;
  const edges = Object.entries(job.transitions[from] ?? {}).filter(([, edge]) => edge.state === state);
  if (edges.length === 0) {
    if (from === END) return;
    // A task that errored has its record already; any other state without a way on needs one.
    const record =
      state === "error"
        ? undefined
        : errorRecord(
            from,
            methodOf(taskOf(job, from)),
            {
              code: 500,
              message: `Task '${from}' finished '${state}' and has no transition for it`,
              errors: [],
            },
            step.now,
          );
    endJob(job, "error", step, record);
    return;
  }
  for (const [to, edge] of edges) {
    if (job.status !== "running") return;
    reach(job, from, to, edge, step);
  }
}

/** The transition `from -> to` is taken. */
function reach(job: RunJob, from: string, to: string, edge: TransitionTarget, step: Step): void {
  const target = taskAt(job, to);
  if (!target) {
    const failure = { code: 500, message: `Transition from '${from}' to unknown task '${to}'`, errors: [] };
    endJob(job, "error", step, errorRecord(from, methodOf(taskOf(job, from)), failure, step.now));
    return;
  }
  if (edge.type === "revert") {
    // Back to an earlier task: it and everything after it run again.
    resetFrom(job, to, step);
    arrive(job, target, from);
    activate(job, to, step);
    return;
  }
  if (target.loop && target.status === "running" && edge.state !== "loop") {
    loopReturn(job, to, from, step);
    return;
  }
  if (FINISHED.has(target.status)) {
    // A standard transition back into a finished task (a cycle): it runs again, like a revert.
    resetFrom(job, to, step);
    arrive(job, target, from);
    activate(job, to, step);
    return;
  }
  arrive(job, target, from);
  // Incomplete targets are activated by settle once every live incoming path has arrived.
}

function arrive(job: RunJob, target: RunTask, from: string): void {
  const previous = (target.previous ??= { incomplete: [], complete: [], error: [] });
  const list = readTask(job, from)?.status === "error" ? previous.error : previous.complete;
  if (!list.includes(from)) list.push(from);
  previous.incomplete = previous.incomplete.filter((p) => p !== from);
}

/** Ids of the tasks with a non-revert transition into `id`, in the order of `job.transitions`. */
function predecessors(job: RunJob, id: string): readonly string[] {
  const graph = job.transitions;
  // A job's graph never changes once built; shared between its drafts, it is deep-frozen (jobs.ts
  // draftOf): its incoming edges are then found once per job, not by a walk of every task's edges
  // at each transition (a join's check would cost a hundred-task job a hundred lookups a step).
  // The memo first: Object.isFrozen checks every member of a large graph (V8 keeps a 100-task
  // graph in dictionary mode), and a graph frozen once stays frozen. An unfrozen graph (without
  // the machinery) is read afresh each time.
  let incoming = incomingEdges.get(graph);
  if (!incoming) {
    incoming = incomingOf(graph);
    if (Object.isFrozen(graph)) incomingEdges.set(graph, incoming);
  }
  return (Object.hasOwn(incoming, id) ? incoming[id] : undefined) ?? NONE;
}

const NONE: readonly string[] = Object.freeze([]);

/** Each frozen graph's incoming non-revert edges, by target: kept as long as the graph lives. */
const incomingEdges = new WeakMap<object, Record<string, readonly string[]>>();

/** Each task's incoming non-revert edges, own members only (a task named `constructor` is no one's successor). */
function incomingOf(graph: RunJob["transitions"]): Record<string, readonly string[]> {
  const incoming: Record<string, string[]> = Object.create(null);
  for (const from in graph) {
    if (!Object.hasOwn(graph, from)) continue;
    const edges = graph[from];
    if (!edges) continue;
    for (const to in edges)
      if (Object.hasOwn(edges, to) && edges[to] && edges[to].type !== "revert")
        (incoming[to] ??= []).push(from);
  }
  for (const to in incoming) Object.freeze(incoming[to]);
  return incoming;
}

/** Tasks reachable (non-revert transitions) from `sources`, never going on from a task `stop` accepts. */
function reachable(job: RunJob, sources: string[], stop: (id: string) => boolean): Set<string> {
  const seen = new Set(sources);
  const queue = [...sources];
  while (queue.length > 0) {
    const from = queue.pop()!;
    if (stop(from)) continue;
    for (const [to, edge] of Object.entries(job.transitions[from] ?? {})) {
      if (edge.type === "revert" || seen.has(to)) continue;
      seen.add(to);
      queue.push(to);
    }
  }
  return seen;
}

/**
 * A join waits for every incoming path that can still arrive: a predecessor that has not arrived
 * holds it back while it is active, or while something active can still reach it.
 */
function joinReady(job: RunJob, id: string): boolean {
  const task = taskOf(job, id);
  const arrived = new Set([...(task.previous?.complete ?? []), ...(task.previous?.error ?? [])]);
  const waitingOn = predecessors(job, id).filter((p) => !arrived.has(p) && readTask(job, p));
  if (waitingOn.length === 0) return true;
  const live = Object.entries(job.tasks)
    .filter(
      ([other, t]) =>
        other !== id && t && (ACTIVE.has(t.status) || (t.status === "incomplete" && hasArrivals(t))),
    )
    .map(([other]) => other);
  const ahead = reachable(job, live, (t) => t === id);
  const pending = waitingOn.filter((p) => !FINISHED.has(readTask(job, p)!.status) && ahead.has(p));
  if (task.previous) task.previous.incomplete = pending;
  return pending.length === 0;
}

/** A forEach in the middle of its loop: a reset inside its body must not undo the loop itself. */
const inLoop = (job: RunJob, id: string) => {
  const task = readTask(job, id);
  return !!task && task.status === "running" && !!task.loop;
};

/** Resets `from` and every task after it (non-revert transitions) to not reached. */
function resetFrom(job: RunJob, from: string, step: Step): void {
  const stop = (id: string) => id !== from && inLoop(job, id);
  for (const id of reachable(job, [from], stop)) {
    if (id === START || stop(id)) continue;
    const task = taskAt(job, id);
    if (task) resetTask(task, step);
  }
}

/** Resets the body of forEach task `id`: what its loop transitions lead to, up to the forEach. */
function resetBody(job: RunJob, id: string, step: Step): void {
  const targets = loopEdges(job, id)
    .map(([to]) => to)
    .filter((to) => to !== id);
  const stop = (t: string) => t === id || inLoop(job, t);
  for (const t of reachable(job, targets, stop)) {
    if (t === START || stop(t)) continue;
    const task = taskAt(job, t);
    if (task) resetTask(task, step);
  }
}

function resetTask(task: RunTask, step: Step): void {
  if (task.child && task.status === "running") step.cancelChildren.push(task.child.jobId);
  task.status = "incomplete";
  clearRunState(task);
  task.child = null;
  delete task.finish_state;
  delete task.end_time;
  delete task.outgoing;
  delete task.previous;
}

/** Task `id` is reached and starts: a manual task waits, others run (now, or once claimed). */
function activate(job: RunJob, id: string, step: Step): void {
  const task = taskOf(job, id);
  clearRunState(task);
  task.child = null;
  delete task.finish_state;
  delete task.end_time;
  delete task.outgoing;
  task.start_time = isoOf(step.now);
  task.iterations = [...(task.iterations ?? []), randomUUID()].slice(-MAX_ITERATIONS);
  if (id === END) {
    task.status = "complete";
    task.finish_state = "success";
    task.end_time = step.now;
    endJob(job, "complete", step);
    return;
  }
  if (id === START) {
    finish(job, id, { state: "success", outgoing: {} }, step);
    return;
  }
  if (task.type === "manual") {
    task.status = "waiting";
    task.waitingSince = step.now;
    return;
  }
  task.status = "running";
  if (task.type === "operation" && task.name === "delay") {
    let ms: number;
    try {
      ms = delayMs(resolveIncoming(job, task));
    } catch (err) {
      finish(job, id, failed(err), step);
      return;
    }
    task.wakeAt = step.now + ms;
    step.wakeups.push(task.wakeAt);
  }
}

// --------------------------------------------------------------------------------------- settle

/**
 * Brings the job to rest for now: joins whose paths have all arrived start, operations run,
 * delays that are due finish, children that ended finish their tasks, and runnable tasks are
 * claimed for this replica (up to its budget). Then the summary fields are recomputed.
 */
export function settle(job: RunJob, step: Step): void {
  // A draft's quiet tasks, unless it wrote them, are passed over unseen (./task-index.ts): this
  // loop would do nothing for them. A task written later in a pass is looked at in that pass.
  const view = draftTasksOf(job.tasks);
  let progressed = true;
  while (progressed && job.status === "running") {
    progressed = false;
    const ids = view ? view.index.ids : Object.keys(job.tasks);
    const n = ids.length;
    for (let i = view ? view.next(0) : 0; i < n; i = view ? view.next(i + 1) : i + 1) {
      const id = ids[i];
      // Each task as it is now: a step earlier in this pass may have given the draft its own copy.
      const task = job.tasks[id];
      if (!task || job.status !== "running") continue;
      if (task.status === "incomplete") {
        if (hasArrivals(task) && joinReady(job, id)) {
          activate(job, id, step);
          progressed = true;
        }
        continue;
      }
      if (task.status !== "running") continue;
      if (task.child) {
        progressed = settleChild(job, id, taskAt(job, id)!, step) || progressed;
        continue;
      }
      if (task.loop) continue;
      if (task.claim && task.claim.until > step.now) continue;
      if (task.wakeAt != null && task.wakeAt > step.now) continue;
      // Runnable.
      if (task.type === "operation" && task.name === "delay") {
        finish(job, id, { state: "success", outgoing: {} }, step);
        progressed = true;
      } else if (task.type === "operation" && task.name !== "childJob") {
        // Out of inline steps (MAX_INLINE_STEPS): the sweeper goes on with the rest, throttled.
        if (!step.takeInline()) continue;
        runOperation(job, id, taskAt(job, id)!, step);
        progressed = true;
      } else if (step.ctx.budget > 0) {
        // Not progress: a claim changes no other task's state (the task stays running), so it can
        // make no other task ready; another pass would only walk every task again to find nothing.
        claim(taskAt(job, id)!, id, step);
      } else {
        step.leftReady = true;
      }
    }
  }
  summarize(job, step.now);
}

function claim(task: RunTask, id: string, step: Step): void {
  const run = randomUUID();
  task.claim = { owner: step.ctx.me, until: step.now + step.ctx.claimTtlMs, run };
  delete task.wakeAt;
  if (task.type === "operation" && task.name === "childJob" && !task.child)
    task.child = { jobId: step.ctx.newJobId() };
  step.claimed.push({ taskId: id, run });
  step.ctx.budget--;
}

function settleChild(job: RunJob, id: string, task: RunTask, step: Step): boolean {
  const info = step.ctx.children?.get(task.child!.jobId);
  if (!info) return false;
  if (info.missing) {
    // Claimed, but the child was never stored (its replica died first): start it again, same id.
    if (task.claim && task.claim.until > step.now) return false;
    if (step.ctx.budget <= 0) {
      step.leftReady = true;
      return false;
    }
    claim(task, id, step);
    return true;
  }
  const details = childDetails({ _id: task.child!.jobId, status: info.status, variables: info.variables });
  if (info.status === "complete") {
    finish(job, id, { state: "success", outgoing: details }, step);
    return true;
  }
  if (info.status === "error" || info.status === "canceled") {
    const failure = {
      code: 500,
      message: `Child job ${task.child!.jobId} ended '${info.status}'`,
      errors: [],
    };
    finish(job, id, { state: "error", outgoing: details, error: failure }, step);
    return true;
  }
  return false;
}

/** Runs an in-engine operation (evaluation, query, merge, forEach) inside this write. */
function runOperation(job: RunJob, id: string, task: RunTask, step: Step): void {
  let result: OperationResult | { loop: unknown[] };
  try {
    const incoming = resolveIncoming(job, task);
    if (task.name === "forEach") {
      result = { loop: loopItems(incoming) };
    } else {
      const operation = PURE_OPERATIONS[task.name as OperationTask];
      if (!operation) throw new OperationError(`'${task.name}' is not an in-engine operation`);
      result = operation(incoming);
    }
  } catch (err) {
    finish(job, id, failed(err), step);
    return;
  }
  if ("loop" in result) startLoop(job, id, task, result.loop, step);
  else finish(job, id, result, step);
}

// ------------------------------------------------------------------------------------- forEach

const loopEdges = (job: RunJob, id: string) =>
  Object.entries(job.transitions[id] ?? {}).filter(([, edge]) => edge.state === "loop");

function startLoop(job: RunJob, id: string, task: RunTask, items: unknown[], step: Step): void {
  if (items.length === 0) {
    finish(job, id, { state: "success", outgoing: { current_item: null, index: 0, results: [] } }, step);
    return;
  }
  if (loopEdges(job, id).length === 0) {
    const failure = {
      code: 400,
      message: `forEach task '${id}' has no 'loop' transition to its body`,
      errors: [],
    };
    finish(job, id, { state: "error", outgoing: {}, error: failure }, step);
    return;
  }
  task.loop = { items, index: 0, results: [] };
  enterBody(job, id, task, step);
}

function enterBody(job: RunJob, id: string, task: RunTask, step: Step): void {
  const loop = task.loop!;
  resetBody(job, id, step);
  task.outgoing = { current_item: loop.items[loop.index], index: loop.index };
  for (const [to] of loopEdges(job, id)) {
    if (job.status !== "running") return;
    const target = taskAt(job, to);
    if (!target || to === id) continue;
    arrive(job, target, id);
    activate(job, to, step);
  }
}

/** The body came back to its forEach task: collect, then the next item or the end of the loop. */
function loopReturn(job: RunJob, id: string, from: string, step: Step): void {
  const task = taskOf(job, id);
  const loop = task.loop!;
  loop.results.push(copyPlain(readTask(job, from)?.outgoing ?? null));
  loop.index++;
  if (loop.index < loop.items.length) {
    enterBody(job, id, task, step);
    return;
  }
  // The body keeps the state of its last iteration.
  const outgoing = {
    current_item: loop.items[loop.items.length - 1],
    index: loop.index - 1,
    results: loop.results,
  };
  finish(job, id, { state: "success", outgoing }, step);
}

// ------------------------------------------------------------------------------------ summaries

/**
 * A look within `ms`: the one already planned if it is within that window, so settling a job
 * again without any other change writes nothing (no write, no event, no churn between replicas).
 */
function soon(job: RunJob, now: number, ms: number): number {
  return job.sweepAt != null && job.sweepAt > now && job.sweepAt <= now + ms ? job.sweepAt : now + ms;
}

/**
 * When a sweeper looks at a claim expiring at `until`: on the granule after it, never before it
 * (an early look finds the claim held and writes the job again for nothing).
 */
const claimLook = (until: number) => Math.ceil(until / CLAIM_LOOK_GRANULE_MS) * CLAIM_LOOK_GRANULE_MS;

/** progress, sweepAt and manualTasks, from the tasks as they are now. */
function summarize(job: RunJob, now: number): void {
  const view = draftTasksOf(job.tasks);
  if (view !== undefined) {
    summarizeDraft(job, now, view);
    return;
  }
  let total = 0;
  let done = 0;
  let sweepAt = Infinity;
  // The manual tasks' summary in the same walk (a transition's hot path: no second one).
  let manual: ManualTaskSummary[] | undefined;
  // By position (the draft's tasks as they are now): no lookup of each id in the tasks' map.
  const ids = Object.keys(job.tasks);
  const tasks = Object.values(job.tasks);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    const task = tasks[i];
    if (!task) continue;
    total++;
    if (FINISHED.has(task.status)) done++;
    if (task.type === "manual") (manual ??= []).push(manualEntry(id, task));
    if (job.status === "running") sweepAt = lookAt(job, now, task, sweepAt);
  }
  summarized(job, total, done, sweepAt, manual);
}

/**
 * summarize for a draft (./task-index.ts): the counts from its base's and the tasks it wrote, the
 * manual tasks by their places, the clock from the live tasks and the written ones (a quiet task
 * sets none). What the walk of every task would find, without it.
 */
function summarizeDraft(job: RunJob, now: number, view: DraftTasks): void {
  const { total, done } = view.counts();
  const ids = view.index.ids;
  let manual: ManualTaskSummary[] | undefined;
  for (const i of view.index.manual) {
    const task = job.tasks[ids[i]];
    if (task) (manual ??= []).push(manualEntry(ids[i], task));
  }
  let sweepAt = Infinity;
  if (job.status === "running")
    for (let i = view.next(0); i < ids.length; i = view.next(i + 1)) {
      const task = job.tasks[ids[i]];
      if (task) sweepAt = lookAt(job, now, task, sweepAt);
    }
  summarized(job, total, done, sweepAt, manual);
}

/** `sweepAt`, or sooner when a running task of the running job needs a look before it. */
function lookAt(job: RunJob, now: number, task: Readonly<RunTask>, sweepAt: number): number {
  if (task.status !== "running") return sweepAt;
  if (task.claim && task.claim.until > now) return Math.min(sweepAt, claimLook(task.claim.until));
  if (task.child) return Math.min(sweepAt, soon(job, now, CHILD_CHECK_MS));
  if (task.loop) return sweepAt;
  if (task.wakeAt != null && task.wakeAt > now) return Math.min(sweepAt, task.wakeAt);
  return Math.min(sweepAt, soon(job, now, DISPATCH_GRACE_MS));
}

/** Writes the summary fields summarize found. */
function summarized(
  job: RunJob,
  total: number,
  done: number,
  sweepAt: number,
  manual: ManualTaskSummary[] | undefined,
): void {
  const progress = job.status === "complete" ? 100 : total ? Math.floor((100 * done) / total) : 0;
  if (job.metrics.progress !== progress) writablePart(job, "metrics").progress = progress;
  job.sweepAt = job.status === "running" && sweepAt !== Infinity ? sweepAt : null;
  if (manual !== undefined) job.manualTasks = manual;
}
