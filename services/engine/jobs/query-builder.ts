/**
 * The job query (docs/platform-rules.md#object-parameters-on-get) as a store query: every `queryParameters` member becomes
 * a filter clause, the projection, the sort or the page. User text is always data: field names are
 * checked dot paths (fields.ts), regex text is escaped, values are scalars (the contract's schema
 * allows nothing else), so no query can carry an operator of its own.
 */
import type { engine } from "../../../shared/contracts/engine";
import type { Infer } from "../../../shared/contracts/schema";
import { invalidField } from "../../../shared/errors";
import type { Filter, Projection, Sort } from "../../../shared/store/types";
import { escapeRegex } from "../../../shared/text";
import { alternatives, checkPath, coerceTo, kindOf, rangeValue, type Scalar } from "./query-fields";
import { DEFAULT_PAGE_SIZE as DEFAULT_LIMIT, MAX_PAGE_SIZE as MAX_LIMIT } from "../../../shared/paging";

export type JobQueryParameters = NonNullable<
  Infer<typeof engine.actions.adminJobs.params>["queryParameters"]
>;

/** Reference fields `dereference` can expand (./handlers.ts does the expanding). */
export const DEREFERENCEABLE = ["workflow", "groups"] as const;
export type Dereference = (typeof DEREFERENCEABLE)[number];

export interface JobStoreQuery {
  filter: Filter;
  sort: Sort;
  skip: number;
  limit: number;
  projection?: Projection;
  dereference: Dereference[];
  hints: string[];
  /**
   * Set when the client chose the filter's fields or the sort (FindOptions.scan): no index plan
   * foresees those. Without them a list is served by the jobs' indexes (engine/jobs.repository.ts).
   */
  scan?: string;
}

const P = "queryParameters";

type TextOp = "contains" | "starts-with" | "ends-with";
type RangeOp = "gt" | "gte" | "lt" | "lte";
const RANGE_OPS: RangeOp[] = ["gt", "gte", "lt", "lte"];
const TEXT_PATTERNS: Record<TextOp, (escaped: string) => string> = {
  contains: (t) => t,
  "starts-with": (t) => `^${t}`,
  "ends-with": (t) => `${t}$`,
};

function commaList(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

function equalsClause(path: string, value: Scalar, field: string): Filter {
  const kind = kindOf(path);
  if (kind === "any") {
    const values = alternatives(value);
    return { [path]: values.length === 1 ? values[0] : { $in: values } };
  }
  return { [path]: coerceTo(kind, value, field) };
}

function listClause(op: "$in" | "$nin", path: string, raw: string | Scalar[], field: string): Filter {
  const items: Scalar[] = typeof raw === "string" ? commaList(raw) : raw;
  const kind = kindOf(path);
  const values =
    kind === "any" ? items.flatMap((v) => alternatives(v)) : items.map((v) => coerceTo(kind, v, field));
  return { [path]: { [op]: [...new Set(values)] } };
}

function textClause(op: TextOp, path: string, value: Scalar, field: string): Filter {
  const kind = kindOf(path);
  if (kind === "number")
    throw invalidField(
      field,
      `'${op}' matches text; '${path}' is a number field (use gt/gte/lt/lte or equals)`,
      "text",
    );
  return { [path]: { $regex: TEXT_PATTERNS[op](escapeRegex(String(value))), $options: "i" } };
}

function rangeClause(op: RangeOp, path: string, value: Scalar, field: string): Filter {
  const kind = kindOf(path);
  const coerced = kind === "any" ? rangeValue(value) : coerceTo(kind, value, field);
  return { [path]: { [`$${op}`]: coerced } };
}

/** `include`/`exclude` text as a projection; a path under another listed path is dropped (MongoDB refuses the pair). */
function projectionOf(params: JobQueryParameters): Projection | undefined {
  const include = params.include !== undefined ? commaList(params.include) : [];
  const exclude = params.exclude !== undefined ? commaList(params.exclude) : [];
  include.forEach((p) => checkPath(p, `${P}.include`));
  exclude.forEach((p) => checkPath(p, `${P}.exclude`));
  if (include.length > 0 && exclude.some((p) => p !== "_id")) {
    throw invalidField(
      `${P}.exclude`,
      "include and exclude cannot be combined (except exclude=_id): list the fields you want in include",
      "projection",
    );
  }
  const listed = include.length > 0 ? include : exclude;
  if (listed.length === 0) return undefined;
  const kept = [...new Set(listed)].filter((p) => !listed.some((q) => q !== p && p.startsWith(`${q}.`)));
  const projection: Projection = Object.fromEntries(kept.map((p) => [p, include.length > 0 ? 1 : 0]));
  if (include.length > 0 && exclude.includes("_id")) projection._id = 0;
  return projection;
}

function dereferenceOf(text: string | undefined): Dereference[] {
  if (text === undefined) return [];
  const names = commaList(text);
  const unknown = names.filter((n) => !(DEREFERENCEABLE as readonly string[]).includes(n));
  if (unknown.length > 0)
    throw invalidField(
      `${P}.dereference`,
      `Cannot dereference ${unknown.map((u) => `'${u}'`).join(", ")}: expandable fields are ${DEREFERENCEABLE.join(", ")}`,
      "dereference",
    );
  return [...new Set(names)] as Dereference[];
}

/** The store query of a job query; `scope` (group-based access) is AND-ed with the caller's filters. */
export function jobStoreQuery(params: JobQueryParameters = {}, scope?: Filter): JobStoreQuery {
  const clauses: Filter[] = scope ? [scope] : [];
  const each = <V>(
    op: string,
    map: Record<string, V> | undefined,
    build: (path: string, value: V, field: string) => Filter,
  ) => {
    for (const [path, value] of Object.entries(map ?? {})) {
      const field = `${P}.${op}.${path}`;
      clauses.push(build(checkPath(path, field), value, field));
    }
  };

  // A plain string (the spec's type, Itential.py 2023.1's `equals=<workflow name>`): the job's name.
  if (typeof params.equals === "string") clauses.push({ name: params.equals });
  else each("equals", params.equals, (path, v: Scalar, field) => equalsClause(path, v, field));
  for (const op of ["contains", "starts-with", "ends-with"] as const)
    each(op, params[op], (path, v: Scalar, field) => textClause(op, path, v, field));
  for (const op of RANGE_OPS)
    each(op, params[op], (path, v: Scalar, field) => rangeClause(op, path, v, field));
  each("in", params.in, (path, v: string | Scalar[], field) => listClause("$in", path, v, field));
  each("not-in", params["not-in"], (path, v: string | Scalar[], field) => listClause("$nin", path, v, field));
  if (params.q !== undefined && params.q.trim() !== "") {
    const text = { $regex: escapeRegex(params.q.trim()), $options: "i" };
    clauses.push({ $or: [{ name: text }, { description: text }] });
  }

  const hints: string[] = [];
  const requested = params.limit ?? DEFAULT_LIMIT;
  const limit = Math.min(requested, MAX_LIMIT);
  if (requested > MAX_LIMIT)
    hints.push(`limit ${requested} is over the largest page: capped at ${MAX_LIMIT}`);

  // Without a sort, newest jobs first. _id breaks ties in the same direction, so pages never overlap.
  const sortPath = params.sort !== undefined ? checkPath(params.sort, `${P}.sort`) : undefined;
  const order = params.order ?? (sortPath ? 1 : -1);
  const sort: Sort = sortPath
    ? { [sortPath]: order, ...(sortPath !== "_id" && { _id: order }) }
    : { "metrics.start_time": order, _id: order };

  const clientShaped = clauses.length > (scope ? 1 : 0) || sortPath !== undefined;
  return {
    filter: clauses.length === 0 ? {} : clauses.length === 1 ? clauses[0] : { $and: clauses },
    sort,
    ...(clientShaped && {
      scan: "a job list filtered or sorted on fields the client chose: walked in the sort's order, counted by reading the matches",
    }),
    skip: params.skip ?? 0,
    limit,
    projection: projectionOf(params),
    dereference: dereferenceOf(params.dereference),
    hints,
  };
}
