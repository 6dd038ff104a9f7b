"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.Step = void 0;
exports.startRun = startRun;
exports.cancelRun = cancelRun;
exports.pauseRun = pauseRun;
exports.resumeRun = resumeRun;
exports.isWaitingManual = isWaitingManual;
exports.finishManual = finishManual;
exports.finishRun = finishRun;
exports.renewClaim = renewClaim;
exports.releaseClaim = releaseClaim;
exports.finish = finish;
exports.settle = settle;
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
const objects_1 = require("../../../shared/objects");
const node_crypto_1 = require("node:crypto");
const operations_1 = require("../operations");
const settings_1 = require("./settings");
const new_job_1 = require("./new-job");
const outcomes_1 = require("./outcomes");
const jobs_1 = require("./jobs");
const variables_1 = require("./variables");
const engine_documents_1 = require("../../../shared/contracts/engine-documents");
const FINISHED = new Set(["complete", "error", "canceled"]);
/**
 * The job's task `id` (own members only), ready to change: a draft shares its untouched tasks with
 * the stored job, frozen (jobs.ts), and this gives the draft its own copy. Code that only looks at
 * a task uses readTask (no copy); code that walks `job.tasks` reads; a task changes only through here.
 */
const taskAt = jobs_1.writableTask;
const ACTIVE = new Set(["running", "waiting"]);
/** One write's decisions, for the runner to act on once the write is stored. */
class Step {
    ctx;
    /** Tasks claimed for this replica: run them after the write. */
    claimed = [];
    /** Wake-up times set (delays, retries): a local timer gets there sooner than a sweep. */
    wakeups = [];
    /** Child jobs to cancel (their parent task was canceled or reset). */
    cancelChildren = [];
    /** Runnable tasks were left for later because this replica is at its limit: another may take them. */
    leftReady = false;
    inlineLeft = settings_1.MAX_INLINE_STEPS;
    constructor(ctx) {
        this.ctx = ctx;
    }
    get now() {
        return this.ctx.now;
    }
    takeInline() {
        if (this.inlineLeft <= 0)
            return false;
        this.inlineLeft--;
        return true;
    }
}
exports.Step = Step;
// ------------------------------------------------------------------ entry points (one per event)
/** The first step: `workflow_start` completes and its successors are reached. */
function startRun(job, step) {
    const start = taskOf(job, engine_documents_1.START);
    start.start_time = iso(step.now);
    finish(job, engine_documents_1.START, { state: "success", outgoing: {} }, step);
    settle(job, step);
}
/** Ends a running or paused job as canceled: its running and waiting tasks are canceled too (then settle). */
function cancelRun(job, step) {
    endJob(job, "canceled", step);
}
/**
 * A person paused the job: nothing new starts until it is resumed. Runs already under way may
 * finish; their outcomes are recorded and the transitions they lead to wait in `deferred`.
 */
function pauseRun(job, step) {
    job.status = "paused";
    job.deferred ??= [];
    summarize(job, step.now);
}
/** The job goes on: the transitions deferred while paused are taken, then it settles as usual. */
function resumeRun(job, step) {
    job.status = "running";
    const deferred = job.deferred ?? [];
    delete job.deferred;
    for (const { from, state } of deferred)
        follow(job, from, state, step);
    settle(job, step);
}
/** Running or paused: the job has not ended, and a run of one of its tasks may still report. */
const live = (job) => job.status === "running" || job.status === "paused";
/** Is `task` of `job` a manual task waiting for a person? */
function isWaitingManual(job, taskId) {
    const task = (0, jobs_1.readTask)(job, taskId);
    return job.status === "running" && !!task && task.type === "manual" && task.status === "waiting";
}
/** A person finished manual task `taskId` with `data`: finish state success, data as its outgoing variables. */
function finishManual(job, taskId, data, step) {
    const task = taskOf(job, taskId);
    if (task.waitingSince != null)
        job.metrics.manual_time += Math.max(0, step.now - task.waitingSince);
    finish(job, taskId, { state: "success", outgoing: (0, objects_1.copyPlain)(data) }, step);
}
/** Ends task `taskId`'s run `run` with `outcome`, if that run still holds the task. */
function finishRun(job, taskId, run, outcome, step) {
    const task = (0, jobs_1.readTask)(job, taskId);
    if (!live(job) || !task || task.status !== "running" || task.claim?.run !== run)
        return false;
    finish(job, taskId, outcome, step);
    return true;
}
/** Extends run `run`'s claim on `taskId`; false when the run no longer holds it. */
function renewClaim(job, taskId, run, now, claimTtlMs) {
    const task = (0, jobs_1.readTask)(job, taskId);
    if (!live(job) || !task || task.status !== "running" || task.claim?.run !== run)
        return false;
    taskAt(job, taskId).claim.until = now + claimTtlMs;
    return true;
}
/** Hands run `run`'s claim back (its work is elsewhere now, e.g. a child job, or this replica stops). */
function releaseClaim(job, taskId, run) {
    const task = (0, jobs_1.readTask)(job, taskId);
    if (!task || task.claim?.run !== run)
        return false;
    taskAt(job, taskId).claim = null;
    return true;
}
const iso = (ms) => new Date(ms).toISOString();
function taskOf(job, id) {
    const task = taskAt(job, id);
    if (!task)
        throw new Error(`job ${job._id} has no task '${id}'`);
    return task;
}
/** Ends the job (complete, error or canceled); whatever still runs or waits is canceled. */
function endJob(job, status, step, record) {
    if (record)
        (0, outcomes_1.pushError)(job, record);
    job.status = status;
    job.metrics.end_time = step.now;
    for (const id of Object.keys(job.tasks)) {
        if (!ACTIVE.has(job.tasks[id]?.status ?? ""))
            continue;
        const task = taskAt(job, id);
        if (task.status === "waiting" && task.waitingSince != null)
            job.metrics.manual_time += Math.max(0, step.now - task.waitingSince);
        if (task.child && task.status === "running")
            step.cancelChildren.push(task.child.jobId);
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
function finish(job, id, outcome, step) {
    const task = taskOf(job, id);
    if (outcome.error)
        (0, outcomes_1.pushError)(job, (0, outcomes_1.errorRecord)(id, (0, outcomes_1.methodOf)(task), outcome.error, step.now));
    const retry = task.retrySettings;
    if (retry?.autoRetry &&
        retry.count < retry.limit &&
        (retry.state?.length ? retry.state : ["error"]).includes(outcome.state)) {
        retry.count++;
        task.status = "running";
        clearRunState(task);
        task.wakeAt = step.now + retry.delay;
        step.wakeups.push(task.wakeAt);
        if (outcome.outgoing)
            task.outgoing = outcome.outgoing;
        return;
    }
    clearRunState(task);
    task.status = outcome.state === "error" ? "error" : "complete";
    task.finish_state = outcome.state;
    task.end_time = step.now;
    (0, variables_1.applyOutgoing)(job, task, outcome.outgoing ?? {});
    if (job.status === "paused")
        (job.deferred ??= []).push({ from: id, state: outcome.state });
    else
        follow(job, id, outcome.state, step);
}
function clearRunState(task) {
    task.claim = null;
    task.loop = null;
    task.waitingSince = null;
    delete task.wakeAt;
}
/** Takes every transition of `from` for `state`; none means the job ends in error. */
function follow(job, from, state, step) {
    if (job.status !== "running")
        return;
    const edges = Object.entries(job.transitions[from] ?? {}).filter(([, edge]) => edge.state === state);
    if (edges.length === 0) {
        if (from === engine_documents_1.END)
            return;
        // A task that errored has its record already; any other state without a way on needs one.
        const record = state === "error"
            ? undefined
            : (0, outcomes_1.errorRecord)(from, (0, outcomes_1.methodOf)(taskOf(job, from)), {
                code: 500,
                message: `Task '${from}' finished '${state}' and has no transition for it`,
                errors: [],
            }, step.now);
        endJob(job, "error", step, record);
        return;
    }
    for (const [to, edge] of edges) {
        if (job.status !== "running")
            return;
        reach(job, from, to, edge, step);
    }
}
/** The transition `from -> to` is taken. */
function reach(job, from, to, edge, step) {
    const target = taskAt(job, to);
    if (!target) {
        const failure = { code: 500, message: `Transition from '${from}' to unknown task '${to}'`, errors: [] };
        endJob(job, "error", step, (0, outcomes_1.errorRecord)(from, (0, outcomes_1.methodOf)(taskOf(job, from)), failure, step.now));
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
function arrive(job, target, from) {
    const previous = (target.previous ??= { incomplete: [], complete: [], error: [] });
    const list = (0, jobs_1.readTask)(job, from)?.status === "error" ? previous.error : previous.complete;
    if (!list.includes(from))
        list.push(from);
    previous.incomplete = previous.incomplete.filter((p) => p !== from);
}
const hasArrivals = (task) => !!task.previous && task.previous.complete.length + task.previous.error.length > 0;
/** Ids of the tasks with a non-revert transition into `id`. */
function predecessors(job, id) {
    const out = [];
    for (const [from, targets] of Object.entries(job.transitions)) {
        const edge = targets?.[id];
        if (edge && edge.type !== "revert")
            out.push(from);
    }
    return out;
}
/** Tasks reachable (non-revert transitions) from `sources`, never going on from a task `stop` accepts. */
function reachable(job, sources, stop) {
    const seen = new Set(sources);
    const queue = [...sources];
    while (queue.length > 0) {
        const from = queue.pop();
        if (stop(from))
            continue;
        for (const [to, edge] of Object.entries(job.transitions[from] ?? {})) {
            if (edge.type === "revert" || seen.has(to))
                continue;
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
function joinReady(job, id) {
    const task = taskOf(job, id);
    const arrived = new Set([...(task.previous?.complete ?? []), ...(task.previous?.error ?? [])]);
    const waitingOn = predecessors(job, id).filter((p) => !arrived.has(p) && (0, jobs_1.readTask)(job, p));
    if (waitingOn.length === 0)
        return true;
    const live = Object.entries(job.tasks)
        .filter(([other, t]) => other !== id && t && (ACTIVE.has(t.status) || (t.status === "incomplete" && hasArrivals(t))))
        .map(([other]) => other);
    const ahead = reachable(job, live, (t) => t === id);
    const pending = waitingOn.filter((p) => !FINISHED.has((0, jobs_1.readTask)(job, p).status) && ahead.has(p));
    if (task.previous)
        task.previous.incomplete = pending;
    return pending.length === 0;
}
/** A forEach in the middle of its loop: a reset inside its body must not undo the loop itself. */
const inLoop = (job, id) => {
    const task = (0, jobs_1.readTask)(job, id);
    return !!task && task.status === "running" && !!task.loop;
};
/** Resets `from` and every task after it (non-revert transitions) to not reached. */
function resetFrom(job, from, step) {
    const stop = (id) => id !== from && inLoop(job, id);
    for (const id of reachable(job, [from], stop)) {
        if (id === engine_documents_1.START || stop(id))
            continue;
        const task = taskAt(job, id);
        if (task)
            resetTask(task, step);
    }
}
/** Resets the body of forEach task `id`: what its loop transitions lead to, up to the forEach. */
function resetBody(job, id, step) {
    const targets = loopEdges(job, id)
        .map(([to]) => to)
        .filter((to) => to !== id);
    const stop = (t) => t === id || inLoop(job, t);
    for (const t of reachable(job, targets, stop)) {
        if (t === engine_documents_1.START || stop(t))
            continue;
        const task = taskAt(job, t);
        if (task)
            resetTask(task, step);
    }
}
function resetTask(task, step) {
    if (task.child && task.status === "running")
        step.cancelChildren.push(task.child.jobId);
    task.status = "incomplete";
    clearRunState(task);
    task.child = null;
    delete task.finish_state;
    delete task.end_time;
    delete task.outgoing;
    delete task.previous;
}
/** Task `id` is reached and starts: a manual task waits, others run (now, or once claimed). */
function activate(job, id, step) {
    const task = taskOf(job, id);
    clearRunState(task);
    task.child = null;
    delete task.finish_state;
    delete task.end_time;
    delete task.outgoing;
    task.start_time = iso(step.now);
    task.iterations = [...(task.iterations ?? []), (0, node_crypto_1.randomUUID)()].slice(-settings_1.MAX_ITERATIONS);
    if (id === engine_documents_1.END) {
        task.status = "complete";
        task.finish_state = "success";
        task.end_time = step.now;
        endJob(job, "complete", step);
        return;
    }
    if (id === engine_documents_1.START) {
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
        let ms;
        try {
            ms = (0, operations_1.delayMs)((0, variables_1.resolveIncoming)(job, task));
        }
        catch (err) {
            finish(job, id, (0, outcomes_1.failed)(err), step);
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
function settle(job, step) {
    let progressed = true;
    while (progressed && job.status === "running") {
        progressed = false;
        // Each task as it is now: a step earlier in this pass may have given the draft its own copy.
        for (const id of Object.keys(job.tasks)) {
            const task = job.tasks[id];
            if (!task || job.status !== "running")
                continue;
            if (task.status === "incomplete") {
                if (hasArrivals(task) && joinReady(job, id)) {
                    activate(job, id, step);
                    progressed = true;
                }
                continue;
            }
            if (task.status !== "running")
                continue;
            if (task.child) {
                progressed = settleChild(job, id, taskAt(job, id), step) || progressed;
                continue;
            }
            if (task.loop)
                continue;
            if (task.claim && task.claim.until > step.now)
                continue;
            if (task.wakeAt != null && task.wakeAt > step.now)
                continue;
            // Runnable.
            if (task.type === "operation" && task.name === "delay") {
                finish(job, id, { state: "success", outgoing: {} }, step);
                progressed = true;
            }
            else if (task.type === "operation" && task.name !== "childJob") {
                // Out of inline steps (MAX_INLINE_STEPS): the sweeper goes on with the rest, throttled.
                if (!step.takeInline())
                    continue;
                runOperation(job, id, taskAt(job, id), step);
                progressed = true;
            }
            else if (step.ctx.budget > 0) {
                claim(taskAt(job, id), id, step);
                progressed = true;
            }
            else {
                step.leftReady = true;
            }
        }
    }
    summarize(job, step.now);
}
function claim(task, id, step) {
    const run = (0, node_crypto_1.randomUUID)();
    task.claim = { owner: step.ctx.me, until: step.now + step.ctx.claimTtlMs, run };
    delete task.wakeAt;
    if (task.type === "operation" && task.name === "childJob" && !task.child)
        task.child = { jobId: (0, new_job_1.newJobId)() };
    step.claimed.push({ taskId: id, run });
    step.ctx.budget--;
}
function settleChild(job, id, task, step) {
    const info = step.ctx.children?.get(task.child.jobId);
    if (!info)
        return false;
    if (info.missing) {
        // Claimed, but the child was never stored (its replica died first): start it again, same id.
        if (task.claim && task.claim.until > step.now)
            return false;
        if (step.ctx.budget <= 0) {
            step.leftReady = true;
            return false;
        }
        claim(task, id, step);
        return true;
    }
    const details = (0, operations_1.childDetails)({ _id: task.child.jobId, status: info.status, variables: info.variables });
    if (info.status === "complete") {
        finish(job, id, { state: "success", outgoing: details }, step);
        return true;
    }
    if (info.status === "error" || info.status === "canceled") {
        const failure = {
            code: 500,
            message: `Child job ${task.child.jobId} ended '${info.status}'`,
            errors: [],
        };
        finish(job, id, { state: "error", outgoing: details, error: failure }, step);
        return true;
    }
    return false;
}
/** Runs an in-engine operation (evaluation, query, merge, forEach) inside this write. */
function runOperation(job, id, task, step) {
    let result;
    try {
        const incoming = (0, variables_1.resolveIncoming)(job, task);
        if (task.name === "forEach") {
            result = { loop: (0, operations_1.loopItems)(incoming) };
        }
        else {
            const operation = operations_1.PURE_OPERATIONS[task.name];
            if (!operation)
                throw new operations_1.OperationError(`'${task.name}' is not an in-engine operation`);
            result = operation(incoming);
        }
    }
    catch (err) {
        finish(job, id, (0, outcomes_1.failed)(err), step);
        return;
    }
    if ("loop" in result)
        startLoop(job, id, task, result.loop, step);
    else
        finish(job, id, result, step);
}
// ------------------------------------------------------------------------------------- forEach
const loopEdges = (job, id) => Object.entries(job.transitions[id] ?? {}).filter(([, edge]) => edge.state === "loop");
function startLoop(job, id, task, items, step) {
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
function enterBody(job, id, task, step) {
    const loop = task.loop;
    resetBody(job, id, step);
    task.outgoing = { current_item: loop.items[loop.index], index: loop.index };
    for (const [to] of loopEdges(job, id)) {
        if (job.status !== "running")
            return;
        const target = taskAt(job, to);
        if (!target || to === id)
            continue;
        arrive(job, target, id);
        activate(job, to, step);
    }
}
/** The body came back to its forEach task: collect, then the next item or the end of the loop. */
function loopReturn(job, id, from, step) {
    const task = taskOf(job, id);
    const loop = task.loop;
    loop.results.push((0, objects_1.copyPlain)((0, jobs_1.readTask)(job, from)?.outgoing ?? null));
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
function soon(job, now, ms) {
    return job.sweepAt != null && job.sweepAt > now && job.sweepAt <= now + ms ? job.sweepAt : now + ms;
}
/** progress, sweepAt and waitingTasks, from the tasks as they are now. */
function summarize(job, now) {
    let total = 0;
    let done = 0;
    let sweepAt = Infinity;
    const waiting = [];
    for (const [id, task] of Object.entries(job.tasks)) {
        if (!task)
            continue;
        total++;
        if (FINISHED.has(task.status))
            done++;
        if (job.status !== "running")
            continue;
        if (task.status === "waiting")
            waiting.push(id);
        if (task.status !== "running")
            continue;
        if (task.claim && task.claim.until > now)
            sweepAt = Math.min(sweepAt, task.claim.until);
        else if (task.child)
            sweepAt = Math.min(sweepAt, soon(job, now, settings_1.CHILD_CHECK_MS));
        else if (task.loop)
            continue;
        else if (task.wakeAt != null && task.wakeAt > now)
            sweepAt = Math.min(sweepAt, task.wakeAt);
        else
            sweepAt = Math.min(sweepAt, soon(job, now, settings_1.DISPATCH_GRACE_MS));
    }
    job.metrics.progress = job.status === "complete" ? 100 : total ? Math.floor((100 * done) / total) : 0;
    job.sweepAt = job.status === "running" && sweepAt !== Infinity ? sweepAt : null;
    job.waitingTasks = waiting;
}
//# sourceMappingURL=transitions.js.map