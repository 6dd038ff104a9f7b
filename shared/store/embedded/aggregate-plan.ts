/**
 * How the embedded store feeds an aggregation its documents without holding the event loop for a
 * whole collection (collection.ts aggregate).
 *
 * Why: an aggregation over every job (the job counts by workflow, the daily metrics, the manual
 * task list) copied each stored document whole before mingo saw it, in one go: with 20,000 jobs
 * about 1 s of the store's thread on a slow machine, and growing with every job kept. Now
 *   - the leading `$match` is found as a find's scan is, letting other work in every READ_SLICE_MS;
 *   - each document goes in as only the top-level members the pipeline reads (`reads`), and when
 *     every path it reads is one the cold documents' skeletons keep, as its skeleton, unparsed;
 *   - the leading stages that handle each document on its own (`perDocument`: `$project`, `$unwind`,
 *     `$match`...) run slice by slice as the input is read, so what waits for the one-go rest is
 *     their output (the manual tasks of the jobs, not the jobs).
 * The answer is the same as mingo's over whole copies: what a pipeline reads of a document is
 * within the members handed to it, and per-document stages do not depend on their neighbours.
 * Anything this cannot tell (`$$ROOT`, a stage it does not know, fields named by plain strings)
 * takes whole documents.
 */
import type { Filter, Pipeline } from "../types";
import { filterFields } from "./mongo";

export interface AggregatePlan {
  /** The leading `$match`'s filter, found as a find's scan (and its index) would find it; none: every document. */
  match?: Filter;
  /** The stages after it that handle each document apart from the others, run slice by slice. */
  perDocument: Pipeline;
  /** The rest, run once over what `perDocument` answered. */
  rest: Pipeline;
  /**
   * Every stored path the pipeline reads (the `$match` included), or undefined when it may read
   * the whole document (then each goes in whole).
   */
  reads?: string[];
}

/** Stages whose output for one document depends on that document alone. */
const PER_DOCUMENT = new Set([
  "$match",
  "$project",
  "$addFields",
  "$set",
  "$unset",
  "$unwind",
  "$replaceRoot",
  "$replaceWith",
]);

/** Expression operators that name a field by a plain string: what they read cannot be told. */
const OPAQUE_OPERATORS = new Set(["$getField", "$setField", "$unsetField", "$function", "$accumulator"]);

export function planAggregate(pipeline: Pipeline): AggregatePlan {
  const leading = pipeline[0] && Object.keys(pipeline[0]).length === 1 ? pipeline[0].$match : undefined;
  const match: Filter | undefined = leading;
  const stages = leading ? pipeline.slice(1) : pipeline;
  // `$$NOW` is one instant for a whole pipeline; slices would each take their own.
  let split = JSON.stringify(stages).includes("$$NOW") ? 0 : stages.findIndex((s) => !perDocument(s));
  if (split === -1) split = stages.length;
  const matchFields = filterFields(match ?? {});
  const stageReads = matchFields && readsOf(stages);
  return {
    match,
    perDocument: stages.slice(0, split),
    rest: stages.slice(split),
    reads: stageReads && [...new Set([...matchFields, ...stageReads])],
  };
}

function perDocument(stage: Record<string, unknown>): boolean {
  const keys = Object.keys(stage);
  return keys.length === 1 && PER_DOCUMENT.has(keys[0]);
}

/**
 * The stored paths `stages` read, walking them while documents keep their stored shape and
 * stopping at the first stage that makes new ones (`$group`, an inclusion `$project`, `$facet`...);
 * undefined when a stage may read the whole document, or when the documents leave the pipeline as
 * stored (they must then be whole).
 */
function readsOf(stages: Pipeline): string[] | undefined {
  const reads: string[] = [];
  for (const stage of stages) {
    const keys = Object.keys(stage);
    if (keys.length !== 1) return undefined;
    const name = keys[0];
    const spec: unknown = stage[name];
    switch (name) {
      case "$match": {
        if (!isObject(spec) || !filterFields(spec as Filter, reads)) return undefined;
        continue;
      }
      case "$addFields":
      case "$set":
        if (!isObject(spec) || !expressionReads(Object.values(spec), reads)) return undefined;
        continue;
      case "$unset":
      case "$skip":
      case "$limit":
        continue;
      case "$unwind": {
        const path = typeof spec === "string" ? spec : isObject(spec) ? spec.path : undefined;
        if (!expressionReads(path, reads)) return undefined;
        continue;
      }
      case "$sort":
        if (!isObject(spec)) return undefined;
        reads.push(...Object.keys(spec));
        continue;
      case "$project":
        return projectionReads(spec, reads);
      case "$group":
      case "$bucket":
      case "$bucketAuto":
      case "$sortByCount":
      case "$replaceWith":
        return expressionReads(spec, reads) ? reads : undefined;
      case "$replaceRoot":
        return isObject(spec) && expressionReads(spec.newRoot, reads) ? reads : undefined;
      case "$count":
        return reads;
      case "$facet": {
        if (!isObject(spec)) return undefined;
        for (const sub of Object.values(spec)) {
          const subReads = Array.isArray(sub) ? readsOf(sub as Pipeline) : undefined;
          if (!subReads) return undefined;
          reads.push(...subReads);
        }
        return reads;
      }
      default:
        return undefined;
    }
  }
  // The stored documents themselves are the answer.
  return undefined;
}

/**
 * An inclusion `$project`'s reads: members taken as they are (`a: 1`, or `a: {b: 1}` for `a.b`) and
 * what computed members read. An excluded member keeps every other: the whole document.
 */
function projectionReads(spec: unknown, reads: string[], prefix = ""): string[] | undefined {
  if (!isObject(spec)) return undefined;
  for (const [key, value] of Object.entries(spec)) {
    if (value === 0 || value === false) {
      if (prefix === "" && key === "_id") continue;
      return undefined;
    }
    if (value === 1 || value === true) reads.push(prefix + key);
    else if (isObject(value) && !Object.keys(value).some((k) => k.startsWith("$"))) {
      if (!projectionReads(value, reads, `${prefix}${key}.`)) return undefined;
    } else if (!expressionReads(value, reads)) return undefined;
  }
  return reads;
}

/** Adds the field paths an expression reads (`"$a.b"`); false when it may read more than it names. */
function expressionReads(expression: unknown, reads: string[]): boolean {
  if (typeof expression === "string") {
    if (expression.startsWith("$$")) return !/^\$\$(ROOT|CURRENT)\b/.test(expression);
    if (expression.startsWith("$")) reads.push(expression.slice(1));
    return true;
  }
  if (Array.isArray(expression)) return expression.every((item) => expressionReads(item, reads));
  if (!isObject(expression)) return true;
  for (const [key, value] of Object.entries(expression)) {
    if (OPAQUE_OPERATORS.has(key)) return false;
    if (key === "$literal") continue;
    // $top/$bottom(N)'s and $sortArray's `sortBy` names fields by their keys.
    if (key === "sortBy" && isObject(value)) {
      reads.push(...Object.keys(value));
      continue;
    }
    if (!expressionReads(value, reads)) return false;
  }
  return true;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The top-level members `paths` lie in, `_id` always among them. */
export function topLevelMembers(paths: readonly string[]): Set<string> {
  return new Set(["_id", ...paths.map((path) => path.split(".")[0])]);
}

/** Stages that read (or write) another collection: only the store's own thread can run them. */
const OTHER_COLLECTIONS = ["$lookup", "$graphLookup", "$unionWith", "$out", "$merge"];

/** Whether `stages` hold a stage that reads another collection, at any depth ($facet's included). */
export function readsOtherCollections(stages: Pipeline): boolean {
  const text = JSON.stringify(stages);
  return OTHER_COLLECTIONS.some((name) => text.includes(`"${name}"`));
}
