/**
 * Bounds on the shape of any input: how deep it nests and how many values it holds
 * (docs/security.md#limits). One check, three places: the gateway on every request (before anything
 * is sent over the bus, where a deep value would not even serialize), a broker middleware on every
 * action call (services call each other directly), and the embedded store on every write (nothing
 * is logged that could not be read back).
 *
 * The walk is iterative, never recursive, so a value nested 100,000 deep is measured, not a stack
 * overflow.
 */
import type { Middleware } from "moleculer";
import { BadRequestError } from "./errors";
import { hasOwn as sharedHasOwn } from "./objects";

export interface InputLimits {
  /** Deepest nesting of objects and arrays (a flat object is depth 1). */
  maxDepth: number;
  /** Most values (object members and array items, at every level) in one input. */
  maxNodes: number;
}

export interface BoundsViolation {
  kind: "depth" | "nodes";
  /** Where the limit was passed, as a dotted path from the input's root. */
  path: string;
  limit: number;
}

/**
 * The first place `value` passes a limit, or null when it keeps within them. The common case keeps
 * within: a first walk counts depth and values only (no path strings, which cost more than the
 * walk itself on every action call); only when it finds a violation does a second walk name it.
 *
 * What counts is what JSON writes (the bus and the store carry values as JSON): an object's own
 * members and an array's items, a hole among them too (JSON writes it as null); a member
 * inherited from a prototype, or a named member of an array, is not written and not counted.
 */
export function boundsViolation(value: unknown, limits: InputLimits): BoundsViolation | null {
  if (value === null || typeof value !== "object") return null;
  return withinBounds(value, limits) ? null : locateViolation(value, limits);
}

/**
 * Objects with for-in and hasOwnProperty, arrays by index: no array of keys per object walked
 * (Object.keys made one, and the walk runs on every action call's params and every store call:
 * 730 -> 290 ns for a task transition's store call, docs/performance-rounds.md, forty-second round).
 * Through a module-level const, as ./objects.ts says V8 needs to compile the check.
 */
const hasOwn = sharedHasOwn;

function withinBounds(value: object, limits: InputLimits): boolean {
  const stack: object[] = [value];
  const depths: number[] = [1];
  let nodes = 0;
  while (stack.length > 0) {
    const node = stack.pop()!;
    const depth = depths.pop()!;
    if (depth > limits.maxDepth) return false;
    if (Array.isArray(node)) {
      nodes += node.length;
      if (nodes > limits.maxNodes) return false;
      for (let i = 0; i < node.length; i++) {
        const child: unknown = node[i];
        if (child !== null && typeof child === "object") {
          stack.push(child);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    for (const key in node) {
      if (!hasOwn.call(node, key)) continue;
      if (++nodes > limits.maxNodes) return false;
      const child = (node as Record<string, unknown>)[key];
      if (child !== null && typeof child === "object") {
        stack.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return true;
}

/** The same walk, naming the place: run only for a value known to pass a limit. */
function locateViolation(value: object, limits: InputLimits): BoundsViolation | null {
  const stack: { node: object; depth: number; path: string }[] = [{ node: value, depth: 1, path: "" }];
  let nodes = 0;
  const enter = (child: unknown, depth: number, path: string) => {
    if (child !== null && typeof child === "object") stack.push({ node: child, depth, path });
  };
  while (stack.length > 0) {
    const { node, depth, path } = stack.pop()!;
    if (depth > limits.maxDepth) return { kind: "depth", path, limit: limits.maxDepth };
    const at = (key: string | number) => (path ? `${path}.${key}` : String(key));
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        if (++nodes > limits.maxNodes) return { kind: "nodes", path, limit: limits.maxNodes };
        enter(node[i], depth + 1, at(i));
      }
      continue;
    }
    for (const key in node) {
      if (!hasOwn.call(node, key)) continue;
      if (++nodes > limits.maxNodes) return { kind: "nodes", path, limit: limits.maxNodes };
      enter((node as Record<string, unknown>)[key], depth + 1, at(key));
    }
  }
  return null;
}

/** The 400 for a violation: names the field where it happened and the limit, and the setting. */
export function boundsError(violation: BoundsViolation, root = ""): BadRequestError {
  const full = [root, violation.path].filter(Boolean).join(".") || "body";
  // A path 64 levels long says nothing more than its start does.
  const field = full.length > 120 ? `${full.slice(0, 120)}...` : full;
  const message =
    violation.kind === "depth"
      ? `Input nests deeper than ${violation.limit} levels (MAX_INPUT_DEPTH) at '${field}'`
      : `Input holds more than ${violation.limit} values (MAX_INPUT_NODES)`;
  return new BadRequestError(message, [
    { field, message, type: violation.kind === "depth" ? "depth" : "size" },
  ]);
}

/** Throws the 400 when `value` passes a limit. */
export function assertWithinBounds(value: unknown, limits: InputLimits, root = ""): void {
  const violation = boundsViolation(value, limits);
  if (violation) throw boundsError(violation, root);
}

/**
 * Params the gateway has just measured and is about to call a local action with, and the limits
 * they kept within: the action's own check (the middleware below) would walk the same object
 * again. Used once: a handler forwarding its (maybe changed) params is measured afresh.
 */
const measured = new WeakMap<object, InputLimits>();

/** Like assertWithinBounds, and remembers that `params` passed, for the call they are about to make. */
export function assertParamsWithinBounds(params: unknown, limits: InputLimits): void {
  assertWithinBounds(params, limits);
  if (params !== null && typeof params === "object") measured.set(params, limits);
}

/** Whether `params` was measured against limits no wider than `own` (and forgets it). */
function alreadyMeasured(params: unknown, own: InputLimits): boolean {
  if (params === null || typeof params !== "object") return false;
  const limits = measured.get(params);
  if (!limits) return false;
  measured.delete(params);
  // moleculer-web adds `$req`/`$res` to params after onBeforeCall for aliases that ask for them.
  if ("$req" in params) return false;
  return limits.maxDepth <= own.maxDepth && limits.maxNodes <= own.maxNodes;
}

/**
 * The limits of an action whose handler checks each part of its input as a call of its own (the
 * store's batch: each call against the store's bounds, so one call too deep fails alone): this
 * middleware does not walk the whole, which could only pass.
 */
export const CHECKED_BY_HANDLER: InputLimits = Object.freeze({
  maxDepth: Number.MAX_SAFE_INTEGER,
  maxNodes: Number.MAX_SAFE_INTEGER,
});

/**
 * Every action call, local or from the bus, is checked before its params are validated or its
 * handler runs. Calls that carry a stream (none do today) are left to their handler.
 */
export function inputBoundsMiddleware(limits: InputLimits): Middleware {
  return {
    name: "InputBounds",
    localAction(
      next: (ctx: any) => Promise<unknown>,
      action: { params?: unknown; inputLimits?: InputLimits },
    ) {
      // Actions without a params schema take no data input (moleculer-web's `rest` takes the request itself).
      if (!action.params) return next;
      // An action that carries stored documents (the store service) declares its own, wider bound.
      const own = action.inputLimits ?? limits;
      if (own === CHECKED_BY_HANDLER) return next;
      return function checkBounds(ctx: any) {
        if (alreadyMeasured(ctx.params, own)) return next(ctx);
        const violation = boundsViolation(ctx.params, own);
        return violation ? Promise.reject(boundsError(violation)) : next(ctx);
      };
    },
  } as Middleware;
}
