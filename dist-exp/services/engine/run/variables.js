"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.atPath = atPath;
exports.readReference = readReference;
exports.isReference = isReference;
exports.resolveValue = resolveValue;
exports.resolveIncoming = resolveIncoming;
exports.outgoingFromResult = outgoingFromResult;
exports.applyOutgoing = applyOutgoing;
const objects_1 = require("../../../shared/objects");
const REFERENCE = /^\$var\.([A-Za-z0-9_-]+)\.(.+)$/;
const JOB_TARGET = /^\$var\.job\.([^.]+)$/;
/** The value at a dot path (`a.b.0.c`); undefined when any step is missing. */
function atPath(value, path) {
    let node = value;
    for (const part of path.split(".")) {
        if (part === "")
            return undefined;
        if (Array.isArray(node)) {
            if (!/^\d+$/.test(part))
                return undefined;
            node = node[Number(part)];
        }
        else if ((0, objects_1.isPlainObject)(node)) {
            if (!Object.prototype.hasOwnProperty.call(node, part))
                return undefined;
            node = node[part];
        }
        else {
            return undefined;
        }
    }
    return node;
}
/** One reference's value, or undefined when it names nothing (yet). */
function readReference(job, ref) {
    const match = REFERENCE.exec(ref);
    if (!match)
        return ref;
    const [, source, path] = match;
    if (source === "job")
        return atPath(job.variables, path);
    const task = Object.hasOwn(job.tasks, source) ? job.tasks[source] : undefined;
    return task ? atPath(task.outgoing ?? {}, path) : undefined;
}
function isReference(value) {
    return typeof value === "string" && REFERENCE.test(value);
}
/** `value` with every reference inside it replaced by what it names (copies; never the job's own objects). */
function resolveValue(job, value) {
    if (isReference(value)) {
        const found = readReference(job, value);
        return found === undefined ? undefined : (0, objects_1.copyPlain)(found);
    }
    if (Array.isArray(value))
        return value.map((v) => resolveValue(job, v));
    if ((0, objects_1.isPlainObject)(value)) {
        const out = {};
        for (const [k, v] of Object.entries(value)) {
            const resolved = resolveValue(job, v);
            if (resolved !== undefined)
                (0, objects_1.setOwn)(out, k, resolved);
        }
        return out;
    }
    return value;
}
/** A task's incoming variables, resolved against the job as it is now (unresolvable ones are left out). */
function resolveIncoming(job, task) {
    return resolveValue(job, task.variables?.incoming ?? {});
}
/**
 * An automatic task's outgoing variables from its action's result: with one declared outgoing
 * variable, the whole result; with several, each from the result's member of that name; with
 * none, the whole result as `result`.
 */
function outgoingFromResult(task, result) {
    const declared = Object.keys(task.variables?.outgoing ?? {});
    if (declared.length === 0)
        return { result: result ?? null };
    if (declared.length === 1)
        return { [declared[0]]: result ?? null };
    const out = {};
    for (const name of declared)
        (0, objects_1.setOwn)(out, name, (0, objects_1.isPlainObject)(result) && Object.hasOwn(result, name) ? result[name] : null);
    return out;
}
/** Stores a run's outgoing values on the task and writes the `$var.job.<name>` targets. */
function applyOutgoing(job, task, outgoing) {
    task.outgoing = outgoing;
    const targets = task.variables?.outgoing ?? {};
    for (const [name, value] of Object.entries(outgoing)) {
        const target = targets[name];
        const match = typeof target === "string" ? JOB_TARGET.exec(target) : null;
        if (match && value !== undefined)
            (0, objects_1.setOwn)(job.variables, match[1], value);
    }
}
//# sourceMappingURL=variables.js.map