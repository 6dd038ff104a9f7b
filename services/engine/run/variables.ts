/**
 * Variable references (docs/platform-rules.md#workflows-and-jobs): `$var.job.<name>` reads a job variable,
 * `$var.<taskId>.<outgoing>` another task's output of its last run. A path may go deeper
 * (`$var.job.device.name`, `$var.lookup.result.0.id`). References are resolved anywhere in an
 * incoming value (inside objects and arrays too); any other value is a literal.
 *
 * An outgoing variable whose definition is `$var.job.<name>` also writes that job variable.
 */
import type { JobDoc, JobTask } from "../../../shared/contracts/engine-documents";
import { isPlainObject as isObject, setOwn, copyPlain } from "../../../shared/objects";

const REFERENCE = /^\$var\.([A-Za-z0-9_-]+)\.(.+)$/;
const JOB_TARGET = /^\$var\.job\.([^.]+)$/;

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The value at a dot path (`a.b.0.c`); undefined when any step is missing. */
export function atPath(value: unknown, path: string): unknown {
  let node = value;
  for (const part of path.split(".")) {
    if (part === "") return undefined;
    if (Array.isArray(node)) {
      if (!/^\d+$/.test(part)) return undefined;
      node = node[Number(part)];
    } else if (isObject(node)) {
      if (!Object.prototype.hasOwnProperty.call(node, part)) return undefined;
      node = node[part];
    } else {
      return undefined;
    }
  }
  return node;
}

/** One reference's value, or undefined when it names nothing (yet). */
export function readReference(job: JobDoc, ref: string): unknown {
  const match = REFERENCE.exec(ref);
  if (!match) return ref;
  const [, source, path] = match;
  if (source === "job") return atPath(job.variables, path);
  const task = Object.hasOwn(job.tasks, source) ? job.tasks[source] : undefined;
  return task ? atPath(task.outgoing ?? {}, path) : undefined;
}

export function isReference(value: unknown): value is string {
  return typeof value === "string" && REFERENCE.test(value);
}

/** `value` with every reference inside it replaced by what it names (copies; never the job's own objects). */
export function resolveValue(job: JobDoc, value: unknown): unknown {
  if (isReference(value)) {
    const found = readReference(job, value);
    return found === undefined ? undefined : copyPlain(found);
  }
  if (Array.isArray(value)) return value.map((v) => resolveValue(job, v));
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const resolved = resolveValue(job, v);
      if (resolved !== undefined) setOwn(out, k, resolved);
    }
    return out;
  }
  return value;
}

/** A task's incoming variables, resolved against the job as it is now (unresolvable ones are left out). */
export function resolveIncoming(job: JobDoc, task: JobTask): Record<string, unknown> {
  return resolveValue(job, task.variables?.incoming ?? {}) as Record<string, unknown>;
}

/**
 * An automatic task's outgoing variables from its action's result: with one declared outgoing
 * variable, the whole result; with several, each from the result's member of that name; with
 * none, the whole result as `result`.
 */
export function outgoingFromResult(task: JobTask, result: unknown): Record<string, unknown> {
  const declared = Object.keys(task.variables?.outgoing ?? {});
  if (declared.length === 0) return { result: result ?? null };
  if (declared.length === 1) return { [declared[0]]: result ?? null };
  const out: Record<string, unknown> = {};
  for (const name of declared)
    setOwn(out, name, isObject(result) && Object.hasOwn(result, name) ? result[name] : null);
  return out;
}

/**
 * Stores a run's outgoing values on the task and writes the `$var.job.<name>` targets, into the
 * job's variables as `variablesToWrite` hands them (the engine's draft: its own copy, made on the
 * first write only; services/engine/run/jobs.ts writablePart).
 */
export function applyOutgoing(
  job: JobDoc,
  task: JobTask,
  outgoing: Record<string, unknown>,
  variablesToWrite: () => Record<string, unknown> = () => job.variables,
): void {
  task.outgoing = outgoing;
  const targets = task.variables?.outgoing ?? {};
  for (const [name, value] of Object.entries(outgoing)) {
    const target = targets[name];
    const match = typeof target === "string" ? JOB_TARGET.exec(target) : null;
    if (match && value !== undefined) setOwn(variablesToWrite(), match[1], value);
  }
}
