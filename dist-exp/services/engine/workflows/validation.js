"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.TRANSITION_TYPES = exports.TRANSITION_STATES = exports.TASK_TYPES = void 0;
exports.validateGraph = validateGraph;
/**
 * A workflow's tasks and transitions, checked as a graph before anything is stored. Every problem
 * found is reported (not only the first), each as `{field, message, type}` whose field names the
 * offending task (`workflow.tasks.<id>`) or transition (`workflow.transitions.<from>.<to>`).
 *
 * Rules: `workflow_start` and `workflow_end` exist; task ids are plain names (no `.` or `$`, which
 * would turn into store paths and operators); every task has a known type and what that type needs
 * (automatic: `app` and `name`; operation: a built-in name; manual: a `name` label); every
 * transition joins two existing tasks with a known state and type; nothing leaves `workflow_end`;
 * every task is reachable from `workflow_start`.
 */
const errors_1 = require("../../../shared/errors");
const names_1 = require("../operations/names");
const engine_documents_1 = require("../../../shared/contracts/engine-documents");
const objects_1 = require("../../../shared/objects");
exports.TASK_TYPES = ["automatic", "manual", "operation"];
exports.TRANSITION_STATES = ["success", "failure", "error", "loop"];
exports.TRANSITION_TYPES = ["standard", "revert", "loop"];
const RETRY_STATES = ["success", "failure", "error"];
/** Task ids become keys of a job's `tasks` object and parts of store paths (`tasks.<id>.status`). */
const TASK_ID = engine_documents_1.TASK_ID_PATTERN;
/** What a task keeps of its definition; run-state fields (status, claim, ...) belong to jobs only. */
const TEXT_FIELDS = [
    "name",
    "summary",
    "description",
    "displayName",
    "canvasName",
    "app",
    "location",
    "actor",
];
const NUMBER_FIELDS = ["x", "y"];
const BOOLEAN_FIELDS = ["deprecated", "scheduled"];
const isText = (v) => typeof v === "string" && v.trim() !== "";
/** The checked and normalized tasks and transitions, or a 400 naming every offending task. */
function validateGraph(tasksInput, transitionsInput) {
    const errors = [];
    const fail = (field, message, type) => errors.push({ field, message, type });
    const tasks = {};
    const rawTasks = (0, objects_1.isPlainObject)(tasksInput) ? tasksInput : {};
    for (const [id, raw] of Object.entries(rawTasks)) {
        const field = `workflow.tasks.${id}`;
        if (!TASK_ID.test(id)) {
            fail(field, `Task id '${id}' must be 1-128 letters, digits, '_' or '-'`, "taskId");
            continue;
        }
        const task = checkTask(id, raw, field, fail);
        if (task)
            tasks[id] = task;
    }
    for (const marker of [engine_documents_1.START, engine_documents_1.END])
        if (!Object.hasOwn(rawTasks, marker))
            fail(`workflow.tasks.${marker}`, `The workflow needs a '${marker}' task`, "required");
    const transitions = {};
    const rawTransitions = (0, objects_1.isPlainObject)(transitionsInput) ? transitionsInput : {};
    for (const [from, targets] of Object.entries(rawTransitions)) {
        const field = `workflow.transitions.${from}`;
        if (!Object.hasOwn(rawTasks, from)) {
            fail(field, `Transition from unknown task '${from}'`, "unknownTask");
            continue;
        }
        if (!(0, objects_1.isPlainObject)(targets)) {
            fail(field, `Transitions from '${from}' must be an object keyed by target task id`, "object");
            continue;
        }
        if (from === engine_documents_1.END && Object.keys(targets).length > 0) {
            fail(field, `'${engine_documents_1.END}' ends the job: no transition may leave it`, "transitionFromEnd");
            continue;
        }
        transitions[from] = {};
        for (const [to, target] of Object.entries(targets)) {
            const checked = checkTransition(from, to, target, rawTasks, fail);
            if (checked)
                transitions[from][to] = checked;
        }
    }
    // Reachability is only meaningful once the ends exist and the edges are sound.
    if (errors.length === 0) {
        for (const id of unreachable(Object.keys(tasks), transitions))
            fail(`workflow.tasks.${id}`, `Task '${id}' cannot be reached from '${engine_documents_1.START}'`, "unreachable");
    }
    if (errors.length > 0) {
        const first = errors[0];
        const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
        throw new errors_1.BadRequestError(`Invalid workflow: ${first.field}: ${first.message}${more}`, errors);
    }
    return { tasks, transitions };
}
function checkTask(id, raw, field, fail) {
    if (!(0, objects_1.isPlainObject)(raw)) {
        fail(field, `Task '${id}' must be an object`, "object");
        return undefined;
    }
    const marker = id === engine_documents_1.START || id === engine_documents_1.END;
    const task = {};
    let ok = true;
    const bad = (sub, message, type) => {
        fail(sub ? `${field}.${sub}` : field, message, type);
        ok = false;
    };
    for (const key of TEXT_FIELDS) {
        if (raw[key] === undefined)
            continue;
        if (typeof raw[key] !== "string")
            bad(key, `Task '${id}': '${key}' must be a string`, "string");
        else
            task[key] = raw[key];
    }
    for (const key of NUMBER_FIELDS) {
        if (raw[key] === undefined)
            continue;
        if (typeof raw[key] !== "number" || !Number.isFinite(raw[key]))
            bad(key, `Task '${id}': '${key}' must be a number`, "number");
        else
            task[key] = raw[key];
    }
    for (const key of BOOLEAN_FIELDS) {
        if (raw[key] === undefined)
            continue;
        if (typeof raw[key] !== "boolean")
            bad(key, `Task '${id}': '${key}' must be a boolean`, "boolean");
        else
            task[key] = raw[key];
    }
    if (raw.groups !== undefined) {
        if (!Array.isArray(raw.groups) || !raw.groups.every(isText))
            bad("groups", `Task '${id}': 'groups' must be an array of group ids`, "array");
        else
            task.groups = raw.groups;
    }
    if (raw.variables !== undefined) {
        const variables = checkVariables(id, raw.variables, bad);
        if (variables)
            task.variables = variables;
    }
    if (raw.retrySettings !== undefined) {
        const retry = checkRetry(id, raw.retrySettings, bad);
        if (retry)
            task.retrySettings = retry;
    }
    if (marker) {
        // The two ends run nothing: they are markers, whatever type a client's editor wrote on them.
        task.name = typeof task.name === "string" && task.name !== "" ? task.name : id;
        delete task.app;
        return ok ? task : undefined;
    }
    const type = raw.type;
    if (!exports.TASK_TYPES.includes(type)) {
        bad("type", `Task '${id}': type must be one of ${exports.TASK_TYPES.join(", ")}`, "taskType");
        return undefined;
    }
    task.type = type;
    if (!isText(raw.name))
        bad("name", `Task '${id}': a ${type} task needs a name`, "required");
    if (type === "automatic" && !isText(raw.app))
        bad("app", `Task '${id}': an automatic task needs the 'app' (service) whose action it calls`, "required");
    if (type === "operation" && isText(raw.name) && !(0, names_1.isOperationTask)(raw.name)) {
        bad("name", `Task '${id}': '${raw.name}' is not an engine operation (${names_1.OPERATION_TASKS.join(", ")})`, "unknownOperation");
    }
    if (type !== "automatic")
        delete task.app;
    return ok ? task : undefined;
}
function checkVariables(id, raw, bad) {
    if (!(0, objects_1.isPlainObject)(raw)) {
        bad("variables", `Task '${id}': 'variables' must be an object`, "object");
        return undefined;
    }
    const out = {};
    for (const key of ["incoming", "outgoing"]) {
        if (raw[key] === undefined)
            continue;
        if (!(0, objects_1.isPlainObject)(raw[key]))
            bad(`variables.${key}`, `Task '${id}': 'variables.${key}' must be an object`, "object");
        else
            out[key] = raw[key];
    }
    if (raw.error !== undefined) {
        if (typeof raw.error !== "string")
            bad("variables.error", `Task '${id}': 'variables.error' must be a string`, "string");
        else
            out.error = raw.error;
    }
    return out;
}
function checkRetry(id, raw, bad) {
    if (!(0, objects_1.isPlainObject)(raw)) {
        bad("retrySettings", `Task '${id}': 'retrySettings' must be an object`, "object");
        return undefined;
    }
    const out = {};
    if (raw.autoRetry !== undefined) {
        if (typeof raw.autoRetry !== "boolean")
            bad("retrySettings.autoRetry", `Task '${id}': 'retrySettings.autoRetry' must be a boolean`, "boolean");
        else
            out.autoRetry = raw.autoRetry;
    }
    for (const key of ["limit", "delay"]) {
        if (raw[key] === undefined)
            continue;
        const value = raw[key];
        if (typeof value !== "number" || !Number.isInteger(value) || value < 0)
            bad(`retrySettings.${key}`, `Task '${id}': 'retrySettings.${key}' must be an integer >= 0`, "number");
        else
            out[key] = value;
    }
    if (raw.state !== undefined) {
        const state = raw.state;
        if (!Array.isArray(state) || !state.every((s) => RETRY_STATES.includes(s)))
            bad("retrySettings.state", `Task '${id}': 'retrySettings.state' must list finish states (${RETRY_STATES.join(", ")})`, "array");
        else
            out.state = state;
    }
    return out;
}
function checkTransition(from, to, raw, tasks, fail) {
    const field = `workflow.transitions.${from}.${to}`;
    if (!Object.hasOwn(tasks, to)) {
        fail(field, `Transition from '${from}' to unknown task '${to}'`, "unknownTask");
        return undefined;
    }
    if (!(0, objects_1.isPlainObject)(raw)) {
        fail(field, `Transition ${from} -> ${to} must be an object {state, type}`, "object");
        return undefined;
    }
    let ok = true;
    if (!exports.TRANSITION_STATES.includes(raw.state)) {
        fail(`${field}.state`, `Transition ${from} -> ${to}: state must be one of ${exports.TRANSITION_STATES.join(", ")}`, "state");
        ok = false;
    }
    if (!exports.TRANSITION_TYPES.includes(raw.type)) {
        fail(`${field}.type`, `Transition ${from} -> ${to}: type must be one of ${exports.TRANSITION_TYPES.join(", ")}`, "type");
        ok = false;
    }
    return ok
        ? { state: raw.state, type: raw.type }
        : undefined;
}
/** Task ids no path of transitions (any state, any type) leads to from workflow_start. */
function unreachable(ids, transitions) {
    const seen = new Set([engine_documents_1.START]);
    const queue = [engine_documents_1.START];
    while (queue.length > 0) {
        const from = queue.shift();
        for (const to of Object.keys(transitions[from] ?? {})) {
            if (seen.has(to))
                continue;
            seen.add(to);
            queue.push(to);
        }
    }
    return ids.filter((id) => !seen.has(id));
}
//# sourceMappingURL=validation.js.map