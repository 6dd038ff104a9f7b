"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.Http = exports.Completions = exports.MANUAL_WORKFLOW = exports.AUTOMATIC_WORKFLOW = exports.TASKS_PER_JOB = void 0;
exports.taskService = taskService;
exports.automaticWorkflow = automaticWorkflow;
exports.manualWorkflow = manualWorkflow;
exports.createWorkflows = createWorkflows;
exports.runJobs = runJobs;
exports.runFinishTasks = runFinishTasks;
exports.warmUp = warmUp;
exports.runPacedJobs = runPacedJobs;
const events_1 = require("../../shared/contracts/events");
exports.TASKS_PER_JOB = 10;
exports.AUTOMATIC_WORKFLOW = "bench-ten-tasks";
exports.MANUAL_WORKFLOW = "bench-approval";
/** benchtask.noop: does nothing, declared as a workflow task. Counts calls per calling node. */
function taskService(callers) {
    return {
        name: "benchtask",
        actions: {
            // `task` marks it a workflow task (Moleculer keeps unknown schema members; its types do not know them).
            noop: {
                task: {
                    summary: "Does nothing",
                    description: "Answers an empty object",
                    variables: { incoming: {}, outgoing: {} },
                },
                handler(ctx) {
                    const node = ctx.nodeID ?? "?";
                    callers.set(node, (callers.get(node) ?? 0) + 1);
                    return {};
                },
            },
        },
    };
}
/** Resolves a waiter when a job's event says it ended. */
class Completions {
    waiters = new Map();
    early = new Map();
    service() {
        const ended = (jobId, status) => this.ended(jobId, status);
        return {
            name: "benchlistener",
            events: {
                [events_1.ENGINE_EVENTS.changes](ctx) {
                    if (!ctx.params.jobChanged || ctx.params.status === "running" || ctx.params.status === "paused")
                        return;
                    ended(ctx.params.jobId, ctx.params.status);
                },
            },
        };
    }
    /**
     * Set while the load runs in another process (./load-child.ts): each end goes there, stamped
     * with the wall clock (performance.timeOrigin + now), instead of to a waiter here.
     */
    forward;
    /** A job ended at `at` (this process's performance.now(), by default now). */
    ended(jobId, status, at = performance.now()) {
        if (this.forward)
            return this.forward(jobId, status, performance.timeOrigin + at);
        const end = { at, status };
        const waiter = this.waiters.get(jobId);
        if (waiter) {
            this.waiters.delete(jobId);
            waiter(end);
        }
        else {
            this.early.set(jobId, end);
        }
    }
    wait(jobId, timeoutMs) {
        const early = this.early.get(jobId);
        if (early) {
            this.early.delete(jobId);
            return Promise.resolve(early);
        }
        return new Promise((resolve, reject) => {
            const timer = setTimeout(() => {
                this.waiters.delete(jobId);
                reject(new Error(`job ${jobId} did not end within ${timeoutMs} ms`));
            }, timeoutMs);
            this.waiters.set(jobId, (at) => {
                clearTimeout(timer);
                resolve(at);
            });
        });
    }
}
exports.Completions = Completions;
const marker = (id) => ({ name: id, summary: id });
function automaticWorkflow() {
    const ids = Array.from({ length: exports.TASKS_PER_JOB }, (_, i) => `t${i + 1}`);
    const tasks = {
        workflow_start: marker("workflow_start"),
        workflow_end: marker("workflow_end"),
    };
    for (const id of ids)
        tasks[id] = {
            type: "automatic",
            app: "benchtask",
            name: "noop",
            summary: id,
            variables: { incoming: {}, outgoing: {} },
        };
    const chain = ["workflow_start", ...ids, "workflow_end"];
    const transitions = { workflow_end: {} };
    for (let i = 0; i < chain.length - 1; i++)
        transitions[chain[i]] = { [chain[i + 1]]: { state: "success", type: "standard" } };
    return { name: exports.AUTOMATIC_WORKFLOW, description: "10 automatic no-op tasks", tasks, transitions };
}
function manualWorkflow() {
    return {
        name: exports.MANUAL_WORKFLOW,
        description: "one manual task",
        tasks: {
            workflow_start: marker("workflow_start"),
            approve: {
                type: "manual",
                name: "Approve",
                summary: "Approve",
                variables: { incoming: {}, outgoing: { ok: null } },
            },
            workflow_end: marker("workflow_end"),
        },
        transitions: {
            workflow_start: { approve: { state: "success", type: "standard" } },
            approve: { workflow_end: { state: "success", type: "standard" } },
            workflow_end: {},
        },
    };
}
class Http {
    base;
    token;
    constructor(base, token = "") {
        this.base = base;
        this.token = token;
    }
    async login(password) {
        const reply = await fetch(`${this.base}/login`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ user: { username: "admin", password } }),
        });
        if (reply.status !== 200)
            throw new Error(`login: ${reply.status} ${await reply.text()}`);
        this.token = await reply.text();
    }
    async post(path, body) {
        const reply = await fetch(`${this.base}${path}`, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${this.token}` },
            body: JSON.stringify(body),
            signal: AbortSignal.timeout(30_000),
        });
        const text = await reply.text();
        return { status: reply.status, body: text ? JSON.parse(text) : undefined };
    }
}
exports.Http = Http;
async function createWorkflows(http) {
    for (const workflow of [automaticWorkflow(), manualWorkflow()]) {
        const reply = await http.post("/workflow_builder/workflows", { workflow });
        if (reply.status !== 200 && reply.status !== 409)
            throw new Error(`creating ${workflow.name}: ${reply.status} ${JSON.stringify(reply.body)}`);
    }
}
/** Runs `jobs` jobs of the automatic workflow, `concurrency` at a time; stops starting at `deadline`. */
/** What a load loop saw of its jobs. */
class Tally {
    completed = 0;
    failed = 0;
    latencies = [];
    startLatencies = [];
    add(one) {
        if (one.startMs !== undefined)
            this.startLatencies.push(one.startMs);
        if (one.completeMs === undefined)
            this.failed++;
        else {
            this.completed++;
            this.latencies.push(one.completeMs);
        }
    }
    totals() {
        const { completed, failed, latencies, startLatencies } = this;
        return { completed, failed, latencies, startLatencies };
    }
}
/** One job: started over HTTP, awaited until its event says it ended. Undefined times: it failed. */
async function startAndWait(http, completions) {
    const sent = performance.now();
    const reply = await http.post("/operations-manager/jobs/start", {
        workflow: exports.AUTOMATIC_WORKFLOW,
        options: {},
    });
    if (reply.status !== 200)
        return {};
    const startMs = performance.now() - sent;
    const end = await completions.wait(reply.body._id, 60_000).catch(() => ({ at: NaN, status: "timeout" }));
    return end.status === "complete" ? { startMs, completeMs: end.at - sent } : { startMs };
}
async function runJobs(http, completions, jobs, concurrency, deadline = Infinity) {
    let next = 0;
    const tally = new Tally();
    const began = performance.now();
    const worker = async () => {
        while (next < jobs && performance.now() < deadline) {
            next++;
            tally.add(await startAndWait(http, completions));
        }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return { jobs: next, wallMs: performance.now() - began, ...tally.totals() };
}
/** Starts `count` approval jobs, then finishes their manual task, `concurrency` calls at a time. */
async function runFinishTasks(http, count, concurrency) {
    const ids = [];
    let started = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => {
        while (started < count) {
            started++;
            const reply = await http.post("/operations-manager/jobs/start", {
                workflow: exports.MANUAL_WORKFLOW,
                options: {},
            });
            if (reply.status === 200 && reply.body.tasks.approve.status === "waiting")
                ids.push(reply.body._id);
        }
    }));
    const latencies = [];
    let failed = count - ids.length;
    const began = performance.now();
    await Promise.all(Array.from({ length: concurrency }, async () => {
        for (let id = ids.pop(); id !== undefined; id = ids.pop()) {
            const sent = performance.now();
            const reply = await http.post("/workflow_engine/finishTask", {
                job_id: id,
                task_id: "approve",
                task_data: { ok: true },
            });
            if (reply.status === 200 && reply.body.status === "complete")
                latencies.push(performance.now() - sent);
            else
                failed++;
        }
    }));
    return { count: latencies.length, failed, wallMs: performance.now() - began, latencies };
}
/** Waits until every engine replica has run a task (they know the task service and are warm). */
async function warmUp(http, completions, callers, replicas, jobs, timeoutMs = 60_000) {
    const until = Date.now() + timeoutMs;
    for (;;) {
        await runJobs(http, completions, jobs, 8);
        if (callers.size >= replicas)
            return;
        if (Date.now() > until)
            throw new Error(`only ${callers.size} of ${replicas} engine replicas ran tasks`);
    }
}
/**
 * Open loop: jobs started at `perSecond`, whatever the ones before are doing (a schedule or many
 * clients, not one client waiting for each), each awaited until complete. For latency at a given
 * load: a closed loop (runJobs) only ever measures the engine at its peak.
 */
async function runPacedJobs(http, completions, jobs, perSecond) {
    const tally = new Tally();
    const began = performance.now();
    const one = async () => {
        tally.add(await startAndWait(http, completions));
    };
    const pending = [];
    for (let i = 0; i < jobs; i++) {
        // The i-th job is due at i / perSecond: a late tick starts the jobs it owes at once.
        const due = began + (i * 1000) / perSecond;
        const wait = due - performance.now();
        if (wait > 0)
            await new Promise((r) => setTimeout(r, wait));
        pending.push(one());
    }
    await Promise.all(pending);
    return { jobs, wallMs: performance.now() - began, ...tally.totals() };
}
//# sourceMappingURL=workload.js.map