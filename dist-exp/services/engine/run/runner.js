"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.Runner = exports.DISPATCH_EVENT = void 0;
/**
 * The part of the executor that does things: one Runner per engine replica. It writes each step of
 * a job (transitions.ts decides, jobs.ts stores with compare-and-set), then acts on what the write
 * decided: it runs the tasks the write claimed for this replica (an automatic task's action call, a
 * child job's start), renews their claims while they run, wakes sleeping tasks, tells a parent job
 * that its child ended, and broadcasts the changes.
 *
 * Work moves between replicas through the store only. A replica that completes a task claims the
 * tasks that become runnable in the same write and runs them itself, so a job's steps follow each
 * other without a hop; jobs spread over replicas because startJob and finishTask calls do. Work no
 * one runs — a dead replica's claims once they expire, wake-ups that are due, tasks a busy replica
 * left — is found by the sweeper every replica runs (`sweepAt` marks the jobs that need a look).
 */
const node_crypto_1 = require("node:crypto");
const types_1 = require("../../../shared/store/types");
const operations_1 = require("../operations");
const events_1 = require("./events");
const jobs_1 = require("./jobs");
const settings_1 = require("./settings");
const start_1 = require("./start");
const new_job_1 = require("./new-job");
const outcomes_1 = require("./outcomes");
const transitions_1 = require("./transitions");
const variables_1 = require("./variables");
const objects_1 = require("../../../shared/objects");
/** The balanced event that asks one engine replica to look at a job now. */
exports.DISPATCH_EVENT = "engine.dispatch";
/** Wake-ups further away than this are left to the sweeper rather than a timer. */
const LOCAL_TIMER_MAX_MS = 60_000;
class Runner {
    host;
    me;
    jobs;
    running = new Map();
    timers = new Set();
    sweepTimer;
    sweeping = false;
    stopping = false;
    constructor(host) {
        this.host = host;
        this.me = `${host.broker.nodeID}/${(0, node_crypto_1.randomUUID)().slice(0, 8)}`;
        this.jobs = new jobs_1.JobStore(host.store);
        let told = false;
        this.jobs.onFullCopy = (err) => {
            if (host.settings.strictDrafts)
                throw err;
            // Once per replica: the write is right, only slower; the stack names the place to fix.
            if (told)
                return;
            told = true;
            this.logger.warn(`engine: a job write changed a shared task; drafts now copy whole jobs when that happens. ${err.stack}`);
        };
    }
    get broker() {
        return this.host.broker;
    }
    get logger() {
        return this.host.logger;
    }
    /** Tasks this replica may claim now. */
    get budget() {
        return this.stopping ? 0 : Math.max(0, this.host.settings.maxLocalTasks - this.running.size);
    }
    /** How many tasks this replica is running (tests and the bench read it). */
    get load() {
        return this.running.size;
    }
    context(children) {
        return {
            now: Date.now(),
            me: this.me,
            budget: this.budget,
            claimTtlMs: this.host.settings.claimTtlMs,
            children,
        };
    }
    // ------------------------------------------------------------------------------------ writes
    /** Stores a new job with its first step taken (one insert), then runs what that step claimed. */
    async start(job) {
        const step = new transitions_1.Step(this.context());
        (0, transitions_1.startRun)(job, step);
        await this.jobs.insert(job);
        this.after(null, job, step);
        return job;
    }
    /**
     * One write on job `jobId`: `change` (may throw to refuse), then settle. Answers null when the
     * job does not exist.
     */
    async advance(jobId, change, options = {}) {
        let step;
        const written = await this.jobs.update(jobId, (draft) => {
            step = new transitions_1.Step(this.context(options.children));
            const result = change ? change(draft, step) : undefined;
            (0, transitions_1.settle)(draft, step);
            return result;
        }, { fresh: options.fresh });
        if (!written)
            return null;
        if (written.changed)
            this.after(written.before, written.job, step);
        return { job: written.job, result: written.result, changed: written.changed };
    }
    /** Acts on a stored write's decisions. */
    after(before, job, step) {
        try {
            (0, events_1.emitChanges)(this.broker, before, job);
        }
        catch (err) {
            this.logger.warn(`engine: events for job ${job._id} not sent: ${err.message}`);
        }
        for (const { taskId, run } of step.claimed)
            this.launch(job, taskId, run);
        for (const at of step.wakeups)
            this.wakeAt(job._id, at);
        if (step.leftReady && !this.stopping)
            this.dispatch(job._id);
        const ended = job.status !== "running" && job.status !== "paused";
        if (ended && (!before || before.status !== job.status) && job.parent)
            void this.notifyParent(job);
        for (const child of step.cancelChildren)
            void this.cancelChild(child);
    }
    /** Asks one engine replica (maybe this one) to look at the job now. */
    dispatch(jobId) {
        try {
            void Promise.resolve(this.broker.emit(exports.DISPATCH_EVENT, { jobId })).catch(() => undefined);
        }
        catch {
            /* the sweeper finds it anyway */
        }
    }
    // ------------------------------------------------------------------------------ running tasks
    launch(job, taskId, run) {
        const key = `${job._id}/${taskId}/${run}`;
        if (this.running.has(key))
            return;
        const task = job.tasks[taskId];
        // Each task starts in a macrotask: in one process a job's whole chain of steps would otherwise
        // run as one stream of microtasks (local calls and the embedded store never wait for I/O),
        // keeping HTTP requests and replies waiting until every running job had finished.
        const work = new Promise((resolve) => setImmediate(resolve)).then(() => task.type === "operation" && task.name === "childJob"
            ? this.runChild(job, taskId, run)
            : this.runAction(job, taskId, run));
        const entry = {
            jobId: job._id,
            taskId,
            run,
            renew: setInterval(() => void this.renew(job._id, taskId, run), this.host.settings.claimRenewMs),
            done: work
                .catch((err) => this.logger.warn(`engine: task ${taskId} of job ${job._id} failed to finish: ${err.message}`))
                .finally(() => {
                clearInterval(entry.renew);
                this.running.delete(key);
            }),
        };
        entry.renew.unref();
        this.running.set(key, entry);
    }
    /** An automatic task: its action's call, then the write of its outcome. */
    async runAction(job, taskId, run) {
        const task = job.tasks[taskId];
        let outcome;
        try {
            if (!task.app || !task.name)
                throw new operations_1.OperationError(`Task '${taskId}' names no action (app and name)`);
            const action = `${task.app}.${task.name}`;
            this.assertTaskAction(action);
            // The action gets its own params: the job's tasks are shared (and frozen) between writes.
            const result = await this.broker.call(action, (0, objects_1.copyPlain)((0, variables_1.resolveIncoming)(job, task)), {
                timeout: this.host.settings.taskTimeoutMs,
                meta: job.runAs ? { caller: job.runAs } : {},
            });
            outcome = { state: "success", outgoing: (0, variables_1.outgoingFromResult)(task, result) };
        }
        catch (err) {
            outcome = (0, outcomes_1.failed)(err);
        }
        await this.advance(job._id, (draft, step) => (0, transitions_1.finishRun)(draft, taskId, run, outcome, step));
    }
    /**
     * Only actions that declare themselves workflow tasks (task metadata in their schema, the same
     * the task catalog lists) may be called by a job: a workflow must not reach internal actions
     * such as the store's or password changes.
     */
    assertTaskAction(action) {
        const list = this.broker.registry.getActionEndpoints(action);
        const endpoints = list?.endpoints ?? [];
        if (endpoints.length > 0 && !endpoints.some((ep) => ep.action?.task))
            throw new operations_1.OperationError(`'${action}' is not a workflow task`, [], 403);
    }
    /** A childJob task: stores and starts the child job (id chosen at claim time), then waits for it. */
    async runChild(job, taskId, run) {
        const task = job.tasks[taskId];
        const childId = task.child.jobId;
        try {
            const request = (0, operations_1.childRequest)((0, objects_1.copyPlain)((0, variables_1.resolveIncoming)(job, task)));
            const existing = await this.jobs.collection.findOne({ _id: childId }, { projection: { _id: 1 } });
            if (!existing) {
                const workflow = await (0, start_1.loadWorkflow)(this.host.store, request.workflow);
                const variables = (0, start_1.prepareVariables)(workflow, request.variables, () => this.host.secretKey(), "variables");
                const child = (0, new_job_1.buildJob)(workflow, {
                    id: childId,
                    description: request.description,
                    variables,
                    groups: job.groups,
                    caller: job.runAs,
                    parent: { jobId: job._id, taskId },
                    ancestors: [...job.ancestors, job._id],
                }, Date.now());
                try {
                    await this.start(child);
                }
                catch (err) {
                    if (!(err instanceof types_1.DuplicateKeyError))
                        throw err; // another run of this task stored it first
                }
            }
            // The child runs on its own now; the task waits for it without a claim.
            await this.advance(job._id, (draft) => (0, transitions_1.releaseClaim)(draft, taskId, run));
        }
        catch (err) {
            await this.advance(job._id, (draft, step) => (0, transitions_1.finishRun)(draft, taskId, run, (0, outcomes_1.failed)(err), step));
        }
    }
    async renew(jobId, taskId, run) {
        try {
            const written = await this.advance(jobId, (draft) => (0, transitions_1.renewClaim)(draft, taskId, run, Date.now(), this.host.settings.claimTtlMs));
            if (written && !written.result)
                this.logger.debug(`engine: task ${taskId} of job ${jobId} is no longer ours (claim lost or job ended)`);
        }
        catch (err) {
            this.logger.warn(`engine: renewing the claim on ${taskId} of job ${jobId} failed: ${err.message}`);
        }
    }
    wakeAt(jobId, at) {
        const wait = at - Date.now();
        if (wait > LOCAL_TIMER_MAX_MS || this.stopping)
            return;
        const timer = setTimeout(() => {
            this.timers.delete(timer);
            void this.process(jobId);
        }, Math.max(0, wait) + 2);
        timer.unref();
        this.timers.add(timer);
    }
    // ------------------------------------------------------------------------------ parents, children
    async notifyParent(child) {
        const { jobId } = child.parent;
        const children = new Map([[child._id, { status: child.status, variables: child.variables }]]);
        try {
            await this.advance(jobId, undefined, { children });
        }
        catch (err) {
            // The parent's sweep (CHILD_CHECK_MS) looks at its children anyway.
            this.logger.warn(`engine: telling job ${jobId} its child ${child._id} ended failed: ${err.message}`);
        }
    }
    async cancelChild(childId) {
        try {
            await this.advance(childId, (draft, step) => {
                if (draft.status === "running" || draft.status === "paused")
                    (0, transitions_1.cancelRun)(draft, step);
            });
        }
        catch (err) {
            this.logger.warn(`engine: canceling child job ${childId} failed: ${err.message}`);
        }
    }
    async childStates(job) {
        const ids = Object.values(job.tasks).flatMap((t) => t && t.status === "running" && t.child ? [t.child.jobId] : []);
        if (ids.length === 0)
            return undefined;
        const found = await this.jobs.collection.find({ _id: { $in: ids } }, { projection: { _id: 1, status: 1, variables: 1 } });
        const states = new Map(ids.map((id) => [id, { status: "", missing: true }]));
        for (const child of found)
            states.set(child._id, { status: child.status, variables: child.variables });
        return states;
    }
    // ------------------------------------------------------------------------------------ sweeping
    /** Looks at one job afresh: expired claims, due wake-ups, ended children, unclaimed tasks. */
    async process(jobId) {
        if (this.stopping)
            return;
        try {
            const job = await this.jobs.read(jobId);
            if (!job || job.status !== "running")
                return;
            await this.advance(jobId, undefined, { children: await this.childStates(job) });
        }
        catch (err) {
            this.logger.warn(`engine: processing job ${jobId} failed: ${err.message}`);
        }
    }
    /** One sweep: the running jobs whose `sweepAt` has passed, a few at a time, in random order. */
    async sweep() {
        if (this.sweeping || this.stopping)
            return 0;
        this.sweeping = true;
        try {
            const due = await this.jobs.collection.find({ status: "running", sweepAt: { $lte: Date.now() } }, { projection: { _id: 1 }, limit: settings_1.SWEEP_BATCH });
            const ids = due.map((d) => d._id).sort(() => Math.random() - 0.5);
            const workers = Array.from({ length: Math.min(settings_1.SWEEP_CONCURRENCY, ids.length) }, async () => {
                for (let id = ids.pop(); id !== undefined; id = ids.pop())
                    await this.process(id);
            });
            await Promise.all(workers);
            return due.length;
        }
        finally {
            this.sweeping = false;
        }
    }
    startSweeper() {
        const next = () => {
            if (this.stopping)
                return;
            const jitter = 0.75 + Math.random() * 0.5;
            this.sweepTimer = setTimeout(() => {
                this.sweep()
                    .catch((err) => this.logger.warn(`engine: sweep failed: ${err.message}`))
                    .finally(next);
            }, this.host.settings.sweepIntervalMs * jitter);
            this.sweepTimer.unref();
        };
        next();
    }
    /**
     * Graceful stop: no new claims; running tasks get STOP_GRACE_MS to finish, then their claims are
     * handed back so another replica runs them at once rather than after the claim TTL.
     */
    async stop() {
        this.stopping = true;
        clearTimeout(this.sweepTimer);
        for (const timer of this.timers)
            clearTimeout(timer);
        this.timers.clear();
        const pending = [...this.running.values()];
        if (pending.length === 0)
            return;
        let timer;
        await Promise.race([
            Promise.all(pending.map((p) => p.done)),
            new Promise((resolve) => (timer = setTimeout(resolve, settings_1.STOP_GRACE_MS))),
        ]);
        clearTimeout(timer);
        for (const task of this.running.values()) {
            clearInterval(task.renew);
            await this.advance(task.jobId, (draft) => (0, transitions_1.releaseClaim)(draft, task.taskId, task.run), {
                fresh: true,
            }).catch(() => undefined);
        }
    }
}
exports.Runner = Runner;
//# sourceMappingURL=runner.js.map