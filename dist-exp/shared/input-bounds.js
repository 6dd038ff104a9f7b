"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.boundsViolation = boundsViolation;
exports.boundsError = boundsError;
exports.assertWithinBounds = assertWithinBounds;
exports.assertParamsWithinBounds = assertParamsWithinBounds;
exports.inputBoundsMiddleware = inputBoundsMiddleware;
const errors_1 = require("./errors");
/**
 * The first place `value` passes a limit, or null when it keeps within them. The common case keeps
 * within: a first walk counts depth and values only (no path strings, which cost more than the
 * walk itself on every action call); only when it finds a violation does a second walk name it.
 */
function boundsViolation(value, limits) {
    if (value === null || typeof value !== "object")
        return null;
    return withinBounds(value, limits) ? null : locateViolation(value, limits);
}
function withinBounds(value, limits) {
    const nodesStack = [value];
    const depths = [1];
    let nodes = 0;
    while (nodesStack.length > 0) {
        const node = nodesStack.pop();
        const depth = depths.pop();
        if (depth > limits.maxDepth)
            return false;
        const keys = Object.keys(node);
        nodes += keys.length;
        if (nodes > limits.maxNodes)
            return false;
        for (const key of keys) {
            const child = node[key];
            if (child !== null && typeof child === "object") {
                nodesStack.push(child);
                depths.push(depth + 1);
            }
        }
    }
    return true;
}
/** The same walk, naming the place: run only for a value known to pass a limit. */
function locateViolation(value, limits) {
    const stack = [{ node: value, depth: 1, path: "" }];
    let nodes = 0;
    while (stack.length > 0) {
        const { node, depth, path } = stack.pop();
        if (depth > limits.maxDepth)
            return { kind: "depth", path, limit: limits.maxDepth };
        for (const key in node) {
            if (!Object.prototype.hasOwnProperty.call(node, key))
                continue;
            if (++nodes > limits.maxNodes)
                return { kind: "nodes", path, limit: limits.maxNodes };
            const child = node[key];
            if (child !== null && typeof child === "object")
                stack.push({ node: child, depth: depth + 1, path: path ? `${path}.${key}` : key });
        }
    }
    return null;
}
/** The 400 for a violation: names the field where it happened and the limit, and the setting. */
function boundsError(violation, root = "") {
    const full = [root, violation.path].filter(Boolean).join(".") || "body";
    // A path 64 levels long says nothing more than its start does.
    const field = full.length > 120 ? `${full.slice(0, 120)}...` : full;
    const message = violation.kind === "depth"
        ? `Input nests deeper than ${violation.limit} levels (MAX_INPUT_DEPTH) at '${field}'`
        : `Input holds more than ${violation.limit} values (MAX_INPUT_NODES)`;
    return new errors_1.BadRequestError(message, [
        { field, message, type: violation.kind === "depth" ? "depth" : "size" },
    ]);
}
/** Throws the 400 when `value` passes a limit. */
function assertWithinBounds(value, limits, root = "") {
    const violation = boundsViolation(value, limits);
    if (violation)
        throw boundsError(violation, root);
}
/**
 * Params the gateway has just measured and is about to call a local action with, and the limits
 * they kept within: the action's own check (the middleware below) would walk the same object
 * again. Used once: a handler forwarding its (maybe changed) params is measured afresh.
 */
const measured = new WeakMap();
/** Like assertWithinBounds, and remembers that `params` passed, for the call they are about to make. */
function assertParamsWithinBounds(params, limits) {
    assertWithinBounds(params, limits);
    if (params !== null && typeof params === "object")
        measured.set(params, limits);
}
/** Whether `params` was measured against limits no wider than `own` (and forgets it). */
function alreadyMeasured(params, own) {
    if (params === null || typeof params !== "object")
        return false;
    const limits = measured.get(params);
    if (!limits)
        return false;
    measured.delete(params);
    // moleculer-web adds `$req`/`$res` to params after onBeforeCall for aliases that ask for them.
    if ("$req" in params)
        return false;
    return limits.maxDepth <= own.maxDepth && limits.maxNodes <= own.maxNodes;
}
/**
 * Every action call, local or from the bus, is checked before its params are validated or its
 * handler runs. Calls that carry a stream (none do today) are left to their handler.
 */
function inputBoundsMiddleware(limits) {
    return {
        name: "InputBounds",
        localAction(next, action) {
            // Actions without a params schema take no data input (moleculer-web's `rest` takes the request itself).
            if (!action.params)
                return next;
            // An action that carries stored documents (the store service) declares its own, wider bound.
            const own = action.inputLimits ?? limits;
            return function checkBounds(ctx) {
                if (alreadyMeasured(ctx.params, own))
                    return next(ctx);
                const violation = boundsViolation(ctx.params, own);
                return violation ? Promise.reject(boundsError(violation)) : next(ctx);
            };
        },
    };
}
//# sourceMappingURL=input-bounds.js.map