/**
 * A filter, sort and projection written by a client (the real product's search bodies,
 * `{options: {query, sort, fields}}`), checked before it reaches the store by ONE walk over every
 * operator at any depth: inside `$and`/`$or`/`$nor`, `$not`, `$elemMatch`, `$all` (its
 * `$elemMatch` members), and the values of `$eq`/`$in`/... (a literal holds no `$` key). Only
 * comparison, logical, element and array operators and `$regex` (on RE2, shared/user-regex.ts)
 * pass: no `$where`, `$expr`, `$function`, `$text`. Fields the API never answers (`hidden`, e.g. a
 * job's `runAs`) are neither filtered, sorted nor projected, and a whole-object comparison on a
 * field holding them is refused too (it would probe them). The cost is bounded: at most
 * FILTER_LIMITS.clauses clauses (every field condition, operator and `$all` member counts) and
 * FILTER_LIMITS.arrayOperand values in one `$in`, `$nin`, `$all` or logical list. A refused query
 * is a 400 naming the offending key (docs/security.md#client-queries).
 */
import { invalidField } from "./errors";
import { isPlainObject } from "./objects";
import { pageLimit } from "./paging";
import type { Collection, Doc, Filter, Projection, Sort } from "./store/types";
import { userRegex } from "./user-regex";

export const FILTER_LIMITS = {
  /** Field conditions, operators and `$all` members in one query, at any depth. */
  clauses: 32,
  /** Values in one `$in`, `$nin`, `$all`, and queries in one `$and`, `$or`, `$nor`. */
  arrayOperand: 100,
  sortKeys: 5,
  projectionKeys: 50,
  pathLength: 200,
} as const;

const LOGICAL = new Set(["$and", "$or", "$nor"]);
const COMPARE = new Set(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"]);
const LISTS = new Set(["$in", "$nin", "$all"]);
/** Names that are never field names: they reach JavaScript's object machinery. */
const FORBIDDEN_SEGMENTS = new Set(["__proto__", "constructor", "prototype"]);

/**
 * Field paths a client may not touch, as dotted patterns where `*` stands for any one segment
 * (`tasks.*.claim`): the field, anything inside it, and (for whole-object comparisons and sorts)
 * the fields holding it.
 */
export type HiddenFields = readonly string[];

interface Walk {
  clauses: number;
  hidden: string[][];
}

function isFieldPath(key: string): boolean {
  return (
    key.length > 0 &&
    key.length <= FILTER_LIMITS.pathLength &&
    key.split(".").every((s) => s.length > 0 && !s.startsWith("$") && !FORBIDDEN_SEGMENTS.has(s))
  );
}

const segmentsMatch = (pattern: string[], path: string[], n: number) =>
  pattern.slice(0, n).every((p, i) => p === "*" || p === path[i]);

/** The path is a hidden field or inside one. */
function isHidden(path: string[], hidden: string[][]): boolean {
  return hidden.some((p) => p.length <= path.length && segmentsMatch(p, path, p.length));
}

/** The path holds a hidden field (`tasks`, `tasks.t1` hold `tasks.*.claim`). */
function holdsHidden(path: string[], hidden: string[][]): boolean {
  return hidden.some((p) => p.length > path.length && segmentsMatch(p, path, path.length));
}

/** Is `path` a hidden field or inside one? (For other query forms, e.g. the job list's scalar queries.) */
export function isHiddenPath(path: string, hidden: HiddenFields): boolean {
  return isHidden(
    path.split("."),
    hidden.map((h) => h.split(".")),
  );
}

function checkPath(path: string[], field: string, walk: Walk): void {
  if (isHidden(path, walk.hidden))
    throw invalidField(
      field,
      `'${path.join(".")}' is not a field the API answers: it cannot be queried`,
      "hidden",
    );
}

function count(walk: Walk, field: string, n = 1): void {
  walk.clauses += n;
  if (walk.clauses > FILTER_LIMITS.clauses)
    throw invalidField(
      field,
      `A search query holds at most ${FILTER_LIMITS.clauses} clauses (field conditions, operators and $all members)`,
      "clauses",
    );
}

function checkList(value: unknown, field: string, what: string): unknown[] {
  if (!Array.isArray(value)) throw invalidField(field, `'${what}' takes an array`);
  if (value.length > FILTER_LIMITS.arrayOperand)
    throw invalidField(field, `'${what}' takes at most ${FILTER_LIMITS.arrayOperand} values`, "arrayOperand");
  return value;
}

/**
 * A value compared as it is (equality, `$in` member, range bound): no `$` key at any depth (an
 * operator there would be data to MongoDB, a trap to a reader), and no object or array compared
 * with a field that holds hidden ones.
 */
function checkLiteral(value: unknown, field: string, path: string[], walk: Walk): void {
  if (value === null || typeof value !== "object") return;
  if (holdsHidden(path, walk.hidden))
    throw invalidField(
      field,
      `'${path.join(".")}' holds fields the API never answers: compare its members, not the whole value`,
      "hidden",
    );
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (Array.isArray(next)) stack.push(...next);
    else if (isPlainObject(next))
      for (const [k, v] of Object.entries(next)) {
        if (k.startsWith("$") || FORBIDDEN_SEGMENTS.has(k))
          throw invalidField(field, `'${k}' is not allowed inside a value`);
        stack.push(v);
      }
  }
}

/** A query: field conditions and logical operators. `prefix` is the path of an `$elemMatch` around it. */
function walkQuery(query: unknown, field: string, prefix: string[], walk: Walk): void {
  if (!isPlainObject(query)) throw invalidField(field, "A search query must be an object");
  for (const [key, value] of Object.entries(query)) {
    const at = `${field}.${key}`;
    if (LOGICAL.has(key)) {
      const list = checkList(value, at, key);
      if (list.length === 0) throw invalidField(at, `'${key}' takes a non-empty array of queries`);
      count(walk, at);
      list.forEach((q, i) => walkQuery(q, `${at}[${i}]`, prefix, walk));
    } else if (isFieldPath(key)) {
      const path = [...prefix, ...key.split(".")];
      checkPath(path, at, walk);
      walkCondition(value, at, path, walk);
    } else throw invalidField(at, `'${key}' is not a field path or an allowed operator`);
  }
}

const isOperatorObject = (value: unknown): value is Record<string, unknown> =>
  isPlainObject(value) && Object.keys(value).some((k) => k.startsWith("$"));

/** The condition on one field: a literal (equality) or an object of operators. */
function walkCondition(value: unknown, field: string, path: string[], walk: Walk): void {
  count(walk, field);
  if (!isOperatorObject(value)) return checkLiteral(value, field, path, walk);
  for (const [op, operand] of Object.entries(value)) {
    const at = `${field}.${op}`;
    if (!op.startsWith("$"))
      throw invalidField(at, `'${op}' cannot sit beside operators: use '${op}' in a query of its own`);
    count(walk, at);
    if (COMPARE.has(op)) checkLiteral(operand, at, path, walk);
    else if (LISTS.has(op)) {
      const list = checkList(operand, at, op);
      if (op === "$all") count(walk, at, list.length);
      list.forEach((member, i) => {
        if (op === "$all" && isOperatorObject(member)) {
          const keys = Object.keys(member);
          if (keys.length !== 1 || keys[0] !== "$elemMatch")
            throw invalidField(`${at}[${i}]`, "An '$all' member is a value or {$elemMatch: query}");
          walkElemMatch(member.$elemMatch, `${at}[${i}].$elemMatch`, path, walk);
        } else checkLiteral(member, `${at}[${i}]`, path, walk);
      });
    } else if (op === "$elemMatch") walkElemMatch(operand, at, path, walk);
    else if (op === "$not") {
      if (!isOperatorObject(operand)) throw invalidField(at, "'$not' takes an object of operators");
      walkCondition(operand, at, path, walk);
    } else if (op === "$exists") {
      if (typeof operand !== "boolean" && operand !== 0 && operand !== 1)
        throw invalidField(at, "'$exists' takes true or false");
    } else if (op === "$size") {
      if (!Number.isInteger(operand) || (operand as number) < 0)
        throw invalidField(at, "'$size' takes a whole number");
    } else if (op === "$regex") userRegex(operand, at, regexOptions(value.$options, `${field}.$options`));
    else if (op === "$options") {
      if (!("$regex" in value)) throw invalidField(at, "'$options' goes with '$regex'");
    } else throw invalidField(at, `Operator '${op}' is not allowed in a search query`);
  }
}

function regexOptions(options: unknown, field: string): string {
  if (options === undefined) return "";
  if (typeof options !== "string" || /[^ims]/.test(options))
    throw invalidField(field, "'$options' takes the letters i, m and s only", "regex");
  return options;
}

/** `$elemMatch`: a query on the members' fields, or operators on the members themselves. */
function walkElemMatch(operand: unknown, field: string, path: string[], walk: Walk): void {
  if (!isPlainObject(operand)) throw invalidField(field, "'$elemMatch' takes an object");
  const keys = Object.keys(operand);
  const onMembers = keys.length > 0 && keys.every((k) => k.startsWith("$") && !LOGICAL.has(k));
  if (onMembers) walkCondition(operand, field, path, walk);
  else walkQuery(operand, field, path, walk);
}

/** Throws 400 unless `query` passes the walk above; `hidden` names fields the API never answers. */
export function checkFilter(query: unknown, field = "options.query", hidden: HiddenFields = []): Filter {
  if (query === undefined) return {};
  walkQuery(query, field, [], { clauses: 0, hidden: hidden.map((h) => h.split(".")) });
  return query as Filter;
}

/** A client's `{field: 1 | -1}` sort: field paths only, none hidden or holding hidden ones, at most five keys. */
export function checkSort(
  sort: Record<string, 1 | -1> | undefined,
  field = "options.sort",
  hidden: HiddenFields = [],
): Sort | undefined {
  if (!sort) return undefined;
  const keys = Object.keys(sort);
  if (keys.length > FILTER_LIMITS.sortKeys)
    throw invalidField(field, `At most ${FILTER_LIMITS.sortKeys} sort keys`, "count");
  const walk: Walk = { clauses: 0, hidden: hidden.map((h) => h.split(".")) };
  for (const key of keys) {
    if (!isFieldPath(key)) throw invalidField(`${field}.${key}`, "Not a field path");
    const path = key.split(".");
    checkPath(path, `${field}.${key}`, walk);
    if (holdsHidden(path, walk.hidden))
      throw invalidField(
        `${field}.${key}`,
        `'${key}' holds fields the API never answers: sort by a member`,
        "hidden",
      );
  }
  return keys.length === 0 ? undefined : sort;
}

/** A client's `{field: 1}` or `{field: 0}` projection: one kind only (`_id` may differ), field paths only, none hidden. */
export function checkFields(
  fields: Record<string, 0 | 1 | boolean> | undefined,
  field = "options.fields",
  hidden: HiddenFields = [],
): Projection | undefined {
  if (!fields || Object.keys(fields).length === 0) return undefined;
  if (Object.keys(fields).length > FILTER_LIMITS.projectionKeys)
    throw invalidField(field, `At most ${FILTER_LIMITS.projectionKeys} fields`, "count");
  const walk: Walk = { clauses: 0, hidden: hidden.map((h) => h.split(".")) };
  const kinds = new Set<boolean>();
  for (const [key, value] of Object.entries(fields)) {
    if (!isFieldPath(key)) throw invalidField(`${field}.${key}`, "Not a field path");
    checkPath(key.split("."), `${field}.${key}`, walk);
    if (key !== "_id") kinds.add(Boolean(value));
  }
  if (kinds.size > 1) throw invalidField(field, "Fields must all be included (1) or all excluded (0)");
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v ? 1 : 0])) as Projection;
}

/** The real product's search body: `{query, limit, skip, sort, fields}`. */
export interface SearchOptions {
  query?: Record<string, unknown>;
  limit?: number;
  skip?: number;
  sort?: Record<string, 1 | -1>;
  fields?: Record<string, 0 | 1 | boolean>;
}

/**
 * One page of a client's search over `collection`, `{results, total, limit, skip}`: its query,
 * sort and fields checked as above (`hidden`: fields the answers never show), within `scope`
 * (what the caller may see) when there is one. `_id` breaks ties in the client's sort (or
 * `defaultSort`), so pages never overlap.
 */
export async function searchPage<T extends Doc>(
  collection: Collection,
  options: SearchOptions,
  defaultSort: Sort,
  scope?: Filter,
  hidden: HiddenFields = [],
): Promise<{ results: T[]; total: number; limit: number; skip: number }> {
  const query = checkFilter(options.query, "options.query", hidden);
  const filter = !scope ? query : Object.keys(query).length === 0 ? scope : { $and: [scope, query] };
  const sort = checkSort(options.sort, "options.sort", hidden) ?? defaultSort;
  const projection = checkFields(options.fields, "options.fields", hidden);
  const skip = options.skip ?? 0;
  const limit = pageLimit(options.limit);
  // The client's own filter and sort: no index plan foresees them (the store's index check).
  const scan =
    Object.keys(query).length > 0 || options.sort !== undefined
      ? { scan: "a search on the fields and order the client chose" }
      : {};
  const [results, total] = await Promise.all([
    collection.find(filter, {
      sort: { ...sort, _id: sort._id ?? 1 },
      skip,
      limit,
      ...(projection && { projection }),
      ...scan,
    }),
    collection.count(filter, scan),
  ]);
  return { results: results as T[], total, limit, skip };
}
