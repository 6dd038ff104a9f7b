/**
 * The index plan's check (docs/architecture.md#indexes): does an index of its collection serve a
 * query, as MongoDB would use one? The embedded store answers any query by scanning, so a missing
 * index shows nowhere until the collection is big on MongoDB. When `STORE_QUERY_SHAPES` names a
 * file (the test run sets it: test/support/global-setup.js), every collection of the platform's
 * embedded store (not a store a test opens for itself) appends to it each distinct query shape (equality, range and sort fields) that no index of its collection
 * serves, and the run fails on any (global-teardown.js): every query the feature suites make is
 * covered by an index its service declares, or its collection is in SCANNED_COLLECTIONS with why.
 *
 * An index serves a shape when, as MongoDB's planner would use it: the filter names `_id`; or the
 * index's first key is constrained by the filter (an equality, `$in` or a range); or the keys after
 * the index's equality prefix start with the sort's first field. A filter of `$or` branches is
 * served when each branch is. A query with no equality, range or sort (no filter, or only `$ne`,
 * `$nin`, `$exists`, `$regex` and the like: selection by exclusion or pattern) reads the whole
 * collection on any backend: no index helps it, so it is not a finding.
 */
import fs from "node:fs";
import type { Filter, Sort } from "../types";

export interface QueryShape {
  eq: string[];
  range: string[];
  sort: string[];
}

/**
 * Collections every query may scan, and why: small by nature (bounded by configuration, not by
 * traffic), so an index would cost writes for nothing.
 */
export const SCANNED_COLLECTIONS: Record<string, string> = {
  adapters: "one document per configured adapter",
  adapter_health: "one document per configured adapter",
  profiles: "a handful of deployment profiles",
  config_parsers: "the built-in parsers plus the few a team adds",
  roles: "a few dozen custom roles",
  groups: "a team's groups: dozens to hundreds",
  service_accounts: "a few API clients",
};

const EQUALITY = new Set(["$eq", "$in"]);
const RANGE = new Set(["$gt", "$gte", "$lt", "$lte"]);

/** The shapes of `filter` (one per `$or` branch) with `sort`. */
export function shapesOf(filter: Filter, sort?: Sort): QueryShape[] {
  const sortFields = sort ? Object.keys(sort) : [];
  const base: QueryShape = { eq: [], range: [], sort: sortFields };
  const branches: Filter[] = [];
  collect(filter, base, branches);
  if (branches.length === 0) return [base];
  return branches.flatMap((branch) =>
    shapesOf(branch, sort).map((s) => ({
      eq: [...base.eq, ...s.eq],
      range: [...base.range, ...s.range],
      sort: sortFields,
    })),
  );
}

function collect(filter: Filter, into: QueryShape, orBranches: Filter[]): void {
  for (const [key, value] of Object.entries(filter ?? {})) {
    if (key === "$and" && Array.isArray(value))
      for (const part of value) collect(part as Filter, into, orBranches);
    else if (key === "$or" && Array.isArray(value)) orBranches.push(...(value as Filter[]));
    else if (key.startsWith("$"))
      continue; // $expr, $nor, $where: nothing an index serves
    else if (!isOperatorObject(value)) into.eq.push(key);
    else {
      const ops = Object.keys(value as object);
      if (ops.some((op) => EQUALITY.has(op))) into.eq.push(key);
      else if (ops.some((op) => RANGE.has(op))) into.range.push(key);
    }
  }
}

function isOperatorObject(value: unknown): boolean {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((k) => k.startsWith("$"));
}

/** Whether one of `indexes` serves `shape` (see the module's comment). */
export function isServed(shape: QueryShape, indexes: Iterable<{ keys: Record<string, 1 | -1> }>): boolean {
  // Every collection has its `_id` index.
  if (shape.eq.includes("_id") || shape.range.includes("_id") || shape.sort[0] === "_id") return true;
  if (shape.eq.length === 0 && shape.range.length === 0 && shape.sort.length === 0) return true;
  for (const index of indexes) {
    const keys = Object.keys(index.keys);
    if (shape.eq.includes(keys[0]) || shape.range.includes(keys[0])) return true;
    let i = 0;
    while (i < keys.length && shape.eq.includes(keys[i])) i++;
    if (shape.sort.length > 0 && keys[i] === shape.sort[0]) return true;
  }
  return false;
}

const recorded = new Set<string>();

/** Notes in `file` each shape of a query that no index of `collection` serves (once per process). */
export function noteQuery(
  file: string,
  collection: string,
  filter: Filter,
  sort: Sort | undefined,
  indexes: () => Iterable<{ keys: Record<string, 1 | -1> }>,
): void {
  if (Object.hasOwn(SCANNED_COLLECTIONS, collection)) return;
  for (const shape of shapesOf(filter, sort)) {
    if (isServed(shape, indexes())) continue;
    const line = JSON.stringify({ c: collection, ...shape });
    if (recorded.has(line)) continue;
    recorded.add(line);
    fs.appendFileSync(file, `${line}\n`);
  }
}
