"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.statusesOf = exports.CLAIM_TTL_MS = exports.ME = exports.T0 = exports.revert = exports.loop = exports.onError = exports.failure = exports.success = exports.op = exports.manual = exports.auto = void 0;
exports.chain = chain;
exports.graph = graph;
exports.workflowDoc = workflowDoc;
exports.newJob = newJob;
exports.stepAt = stepAt;
exports.write = write;
exports.taskIn = taskIn;
/**
 * Pure engine builders, shared by the feature suites (through ./engine-fixtures.ts) and the unit
 * suites of test/unit/: workflow definitions (`chain`, `graph`, the task and transition shapes),
 * and, for the state machine's unit suites, hand-built job documents and write steps without a
 * broker or a store.
 */
const new_job_1 = require("../../services/engine/run/new-job");
const transitions_1 = require("../../services/engine/run/transitions");
const marker = (id) => ({ name: id, summary: id === "workflow_start" ? "Start" : "End" });
const auto = (app, name, incoming = {}, outgoing = {}, extra = {}) => ({ type: "automatic", app, name, summary: name, variables: { incoming, outgoing }, ...extra });
exports.auto = auto;
const manual = (name, outgoing = {}, incoming = {}) => ({
    type: "manual",
    name,
    summary: name,
    variables: { incoming, outgoing },
});
exports.manual = manual;
const op = (name, incoming, outgoing = {}) => ({
    type: "operation",
    name,
    summary: name,
    variables: { incoming, outgoing },
});
exports.op = op;
exports.success = { state: "success", type: "standard" };
exports.failure = { state: "failure", type: "standard" };
exports.onError = { state: "error", type: "standard" };
exports.loop = { state: "loop", type: "loop" };
const revert = (state) => ({ state, type: "revert" });
exports.revert = revert;
/** workflow_start -> each task in order (on success) -> workflow_end. */
function chain(name, steps, extra = {}) {
    const tasks = {
        workflow_start: marker("workflow_start"),
        workflow_end: marker("workflow_end"),
    };
    const ids = ["workflow_start", ...steps.map(([id]) => id), "workflow_end"];
    for (const [id, def] of steps)
        tasks[id] = def;
    const transitions = {};
    for (let i = 0; i < ids.length - 1; i++)
        transitions[ids[i]] = { [ids[i + 1]]: { ...exports.success } };
    transitions.workflow_end = {};
    return { name, tasks, transitions, ...extra };
}
/** A workflow from explicit tasks and transitions (the markers are added). */
function graph(name, tasks, transitions, extra = {}) {
    return {
        name,
        tasks: { workflow_start: marker("workflow_start"), workflow_end: marker("workflow_end"), ...tasks },
        transitions: { workflow_end: {}, ...transitions },
        ...extra,
    };
}
// ------------------------------------------------------------------------------ jobs and steps
/** A fixed clock for hand-built jobs: 2026-01-01T00:00:00.000Z. */
exports.T0 = Date.parse("2026-01-01T00:00:00.000Z");
/** The claim owner id of "this replica" in unit suites. */
exports.ME = "node-1/replica-a";
/** The claim TTL unit suites use (the default, docs/engine.md). */
exports.CLAIM_TTL_MS = 6_000;
/** A stored workflow document from a builder's input (what the workflows collection holds). */
function workflowDoc(input) {
    return {
        _id: `wf-${input.name}`,
        description: input.description ?? "",
        type: "automation",
        groups: input.groups ?? [],
        tags: [],
        created: new Date(exports.T0).toISOString(),
        created_by: "test",
        last_updated: new Date(exports.T0).toISOString(),
        last_updated_by: "test",
        ...input,
        tasks: input.tasks,
    };
}
/** A new job of `workflow` (./new-job.ts), before its first step: every task `incomplete`. */
function newJob(workflow, variables = {}, now = exports.T0, id = "job-1") {
    return (0, new_job_1.buildJob)(workflowDoc(workflow), { variables, groups: [], id }, now);
}
/** One write's step, as a replica makes it (runner.ts `context()`). */
function stepAt(now = exports.T0, context = {}) {
    return new transitions_1.Step({ now, me: exports.ME, budget: 1000, claimTtlMs: exports.CLAIM_TTL_MS, ...context });
}
/** One write as the runner makes it: `change`, then settle; answers the change's result and the step. */
function write(job, change, step = stepAt()) {
    const result = change(job, step);
    (0, transitions_1.settle)(job, step);
    return { result, step };
}
/** The task `id` of `job` (throws when it is not there, so a test names a missing task). */
function taskIn(job, id) {
    const task = job.tasks[id];
    if (!task)
        throw new Error(`job ${job._id} has no task '${id}'`);
    return task;
}
/** Each task's status, by id. */
const statusesOf = (job) => Object.fromEntries(Object.entries(job.tasks).map(([id, t]) => [id, t?.status ?? "null"]));
exports.statusesOf = statusesOf;
//# sourceMappingURL=engine-builders.js.map