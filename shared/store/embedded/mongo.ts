/** MongoDB semantics the embedded store reproduces: updates, projections, sorting, index keys, $count. */
import { indexName } from "../index-migration";
import { frozenJsonText, valuesFromMessage } from "../../frozen-json";
import { Query, update as applyUpdateOperators } from "mingo";
import { ObjectId } from "mongodb";
import { copyPlain, isPlainObject } from "../../objects";
import { compileFilter, pathValues } from "./fast-filter";
import { re2Filter } from "./regex";
import type { Doc, Filter, IndexSpec, Pipeline, Projection, Sort, Update } from "../types";
import type { NamedIndex, StoredDoc } from "./table";
import { checkUpdate, checkUpdateTarget } from "../rules";

export const DEEP = { cloneMode: "deep" as const };

/** mingo's update on a copy of `doc`: the new image, and whether it differs from `doc`. */
export function applyUpdate(
  doc: StoredDoc,
  update: Update,
  filter: Filter,
): { doc: StoredDoc; changed: boolean } {
  // mingo has no $setOnInsert; on a match it does nothing anyway.
  const { $setOnInsert: _onInsert, ...operators } = update;
  // mingo ignores what MongoDB refuses ($inc on a string, $set through a scalar): refuse it first.
  checkUpdateTarget(doc, operators);
  const next = copyDoc(doc) as StoredDoc;
  // The filter goes along so positional `$` paths resolve against the matched array element.
  if (Object.keys(operators).length) applyUpdateOperators(next, operators, undefined, filter, DEEP);
  // One JSON text serves both the round trip (memory and log replay agree) and the comparison.
  const text = JSON.stringify(next);
  return { doc: JSON.parse(text) as StoredDoc, changed: text !== JSON.stringify(doc) };
}

export function assertOperatorUpdate(update: Update): void {
  const keys = update && typeof update === "object" && !Array.isArray(update) ? Object.keys(update) : [];
  if (!keys.length || keys.some((k) => !k.startsWith("$"))) {
    throw new TypeError("update must be a non-empty document of update operators ($set, $inc, ...)");
  }
  checkUpdate(update);
}

export function withId(doc: Doc, takeFrozen = true): StoredDoc {
  return storedImage(doc, takeFrozen).doc;
}

/** A string `_id` as a JSON text's first member: `{"_id":"` opens the text. */
const ID_FIRST = '{"_id":"';

/**
 * The document as stored: after a JSON round trip (memory and log replay agree exactly), `_id`
 * first, a new ObjectId's hex when it has none (withId answers this image alone).
 *
 * With `machinery`, also the image's JSON text when it is already known: a frozen value's
 * own text, or the round trip's text when the document's first member is a string `_id`, so that the
 * image is the text parsed as it is (no members to re-order) and JSON.stringify of it gives that
 * text again. The insert's log line is then put together from it (backend.ts commit), not
 * serialized a second time. Any other document gets no text: its line is serialized as before.
 */
export function storedImage(doc: Doc, machinery: boolean): { doc: StoredDoc; text?: string } {
  if (doc === null || typeof doc !== "object" || Array.isArray(doc))
    throw new TypeError("a document must be an object");
  // A frozen JSON value with its text, `_id` first (shared/frozen-json.ts), is stored as given
  // (unless the performance machinery is off: backend.ts EmbeddedOptions.machinery).
  if (machinery && typeof doc._id === "string") {
    const frozenText = frozenJsonText(doc);
    if (frozenText !== undefined && Object.keys(doc)[0] === "_id")
      return { doc: doc as StoredDoc, text: frozenText };
  }
  const text = JSON.stringify(doc);
  // A document parsed from the write's message is its own round trip already (valuesFromMessage).
  const image = machinery && valuesFromMessage() ? doc : (JSON.parse(text) as Doc);
  if (machinery && text.startsWith(ID_FIRST)) return { doc: image as StoredDoc, text };
  const { _id, ...rest } = image;
  if (_id !== undefined && typeof _id !== "string") throw new TypeError("_id must be a string");
  return { doc: { _id: _id ?? new ObjectId().toHexString(), ...rest } };
}

export function idsOf(idCondition: unknown): string[] | undefined {
  if (typeof idCondition === "string") return [idCondition];
  if (!idCondition || typeof idCondition !== "object" || Array.isArray(idCondition)) return undefined;
  const ops = Object.entries(idCondition);
  if (ops.length !== 1) return undefined;
  const [op, value] = ops[0];
  if (op === "$eq" && typeof value === "string") return [value];
  if (op === "$in" && Array.isArray(value) && value.every((v) => typeof v === "string"))
    return [...new Set(value)];
  return undefined;
}

/**
 * Every field path `filter` looks at, through `$and`, `$or` and `$nor`; undefined when it holds an
 * operator that looks at the whole document (`$expr`, `$where`, `$text`, any other top-level `$`).
 * A field's condition, whatever its operators (`$elemMatch` and `$not` included), reads only the
 * value at its path.
 */
export function filterFields(filter: Filter, into: string[] = []): string[] | undefined {
  for (const key of Object.keys(filter)) {
    if (key === "$and" || key === "$or" || key === "$nor") {
      const branches: unknown = filter[key];
      if (!Array.isArray(branches)) return undefined;
      for (const branch of branches)
        if (!isPlainObject(branch) || !filterFields(branch as Filter, into)) return undefined;
    } else if (key.startsWith("$")) {
      return undefined;
    } else {
      into.push(key);
    }
  }
  return into;
}

/** The fields an upsert takes from its filter: plain equalities, `$eq`, one-value `$in`, through `$and`. */
export function equalitiesOf(filter: Filter, seed: Doc = {}): Doc {
  for (const [key, cond] of Object.entries(filter)) {
    if (key === "$and" && Array.isArray(cond)) cond.forEach((f) => equalitiesOf(f, seed));
    if (key.startsWith("$")) continue;
    const isOperator = cond && typeof cond === "object" && Object.keys(cond).some((k) => k.startsWith("$"));
    if (!isOperator) setPath(seed, key, cond);
    else if ("$eq" in cond) setPath(seed, key, cond.$eq);
    else if (Array.isArray(cond.$in) && cond.$in.length === 1 && Object.keys(cond).length === 1)
      setPath(seed, key, cond.$in[0]);
  }
  return seed;
}

export function setPath(target: Doc, dotted: string, value: unknown): void {
  const parts = dotted.split(".");
  let node = target;
  for (const part of parts.slice(0, -1)) {
    if (node[part] === null || typeof node[part] !== "object") node[part] = {};
    node = node[part];
  }
  node[parts[parts.length - 1]] = structuredClone(value);
}

/**
 * A deep copy of a stored document. Stored documents are plain JSON data, so copyPlain is exact:
 * 5-8 times faster than a JSON round trip on an accounts page, itself twice structuredClone's speed.
 */
export const copyDoc = (doc: Doc): Doc => copyPlain(doc);

/**
 * A projection of plain top-level fields, all included or all excluded (`_id` either way), as a
 * function; undefined for anything else (dot paths, operators), which mingo handles.
 */
export function compileProjection(projection: Projection): ((doc: Doc) => Doc) | undefined {
  // A frozen projection (a module's constant) cannot change: it is compiled once.
  if (!Object.isFrozen(projection)) return compileProjectionOnce(projection);
  if (compiledProjections.has(projection)) return compiledProjections.get(projection);
  const pick = compileProjectionOnce(projection);
  compiledProjections.set(projection, pick);
  return pick;
}

const compiledProjections = new WeakMap<Projection, ((doc: Doc) => Doc) | undefined>();

function compileProjectionOnce(projection: Projection): ((doc: Doc) => Doc) | undefined {
  const entries = Object.entries(projection);
  if (entries.some(([key, value]) => key.includes(".") || key.startsWith("$") || typeof value === "object"))
    return undefined;
  const shown = (value: unknown) => value !== 0 && value !== false;
  const hideId = projection._id !== undefined && !shown(projection._id);
  const included = new Set(
    entries.filter(([key, value]) => key !== "_id" && shown(value)).map(([key]) => key),
  );
  const excluded = new Set(
    entries.filter(([key, value]) => key !== "_id" && !shown(value)).map(([key]) => key),
  );
  if (included.size > 0 && excluded.size > 0) return undefined;
  // `{_id: 1}` alone is an inclusion of `_id` only, as MongoDB reads it.
  if (included.size === 0 && excluded.size === 0 && !hideId) return (doc) => ({ _id: doc._id });
  // Fields keep the document's order, as MongoDB answers them.
  if (included.size > 0) {
    return (doc) => {
      const out: Doc = {};
      for (const key of Object.keys(doc))
        if (included.has(key) || (key === "_id" && !hideId)) out[key] = doc[key];
      return out;
    };
  }
  return (doc) => {
    const out: Doc = {};
    for (const key of Object.keys(doc))
      if (!excluded.has(key) && !(key === "_id" && hideId)) out[key] = doc[key];
    return out;
  };
}

/**
 * Copies of `docs`, projected: callers never hold the stored objects.
 */
export function project(docs: Doc[], projection?: Projection): Doc[] {
  return projectShared(docs, projection).map(copyDoc);
}

/**
 * `docs` projected, still sharing members with the stored documents (or the stored documents
 * themselves): to be copied before any caller holds them. A compiled projection picks fields
 * without copying; mingo gets copies, since its exclusion of a nested field (`{"a.b": 0}`) deletes
 * the field from the object it is given.
 */
export function projectShared(docs: Doc[], projection?: Projection): Doc[] {
  if (!projection || Object.keys(projection).length === 0) return docs;
  const pick = compileProjection(projection);
  if (pick) return docs.map(pick);
  return new Query({}, {}).find<Doc>(docs.map(copyDoc), projection).all();
}

/** The filter as a predicate: compiled when it is a common shape, mingo otherwise; none for `{}`. */
export function predicateOf(filter: Filter): ((doc: Doc) => boolean) | undefined {
  if (Object.keys(filter).length === 0) return undefined;
  const compiled = compileFilter(filter);
  if (compiled) return compiled;
  const re2 = re2Filter(filter);
  const query = new Query(re2.filter, re2.options);
  return (doc) => query.test(doc);
}

/** Each index's fields split into their path segments, worked out once per spec. */
const indexFieldParts = new WeakMap<IndexSpec, string[][]>();

/** Not one value: an array on the path or at its end (a multikey entry), for the general walk. */
const MANY = Symbol("many values");

/**
 * The value at `parts` when no array is on the way or at its end, undefined when missing (a
 * scalar or null on the way, as pathValues finds nothing there), MANY otherwise.
 */
function singlePathValue(doc: Doc, parts: string[]): unknown {
  let value: unknown = doc;
  for (const part of parts) {
    if (Array.isArray(value)) return MANY;
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Doc)[part];
  }
  return Array.isArray(value) ? MANY : value;
}

/**
 * Index key tuples of a document as JSON; a missing field indexes as null, like MongoDB. Every
 * write re-keys the indexes whose fields it changed (a job's `status` and `sweepAt` on each task
 * transition): one value per field, the usual case, is one tuple made without the general walk's
 * arrays (the same key: test/store/index-keys.test.ts compares both).
 */
export function indexKeys(doc: Doc, spec: IndexSpec): string[] {
  let fields = indexFieldParts.get(spec);
  if (!fields) indexFieldParts.set(spec, (fields = Object.keys(spec.keys).map((f) => f.split("."))));
  const tuple = new Array<unknown>(fields.length);
  for (let i = 0; i < fields.length; i++) {
    const value = singlePathValue(doc, fields[i]);
    if (value === MANY)
      return fields.length === 1 ? oneFieldKeys(doc, fields[0]) : indexKeysOfMany(doc, spec);
    tuple[i] = value === undefined ? null : value;
  }
  return [JSON.stringify(tuple)];
}

/**
 * The general walk's keys for an index of one field: one tuple per value the path reaches, without
 * the walk's tuple arrays (a form's `tags`, an empty array the usual case, keys search's index).
 */
function oneFieldKeys(doc: Doc, parts: string[]): string[] {
  const values = pathValues(doc, parts);
  if (values.length === 0) return [EMPTY_KEY];
  // `values` is then the one tuple itself.
  if (values.length === 1) return [JSON.stringify(values)];
  const keys = new Set<string>();
  for (const value of values) keys.add(JSON.stringify([value]));
  return [...keys];
}

/** The key of a field that reaches no value: null, as MongoDB indexes a missing field. */
const EMPTY_KEY = "[null]";

/** indexKeys by the general walk: every value each path reaches, arrays entered (multikey). */
export function indexKeysOfMany(doc: Doc, spec: IndexSpec): string[] {
  let tuples: unknown[][] = [[]];
  for (const field of Object.keys(spec.keys)) {
    const values = pathValues(doc, field.split("."));
    const choices = values.length ? values : [null];
    tuples = tuples.flatMap((t) => choices.map((v) => [...t, v]));
  }
  return [...new Set(tuples.map((t) => JSON.stringify(t)))];
}

export function keyObject(spec: IndexSpec, key: string): Record<string, unknown> {
  const values = JSON.parse(key) as unknown[];
  return Object.fromEntries(Object.keys(spec.keys).map((field, i) => [field, values[i]]));
}

export function validIndex(spec: IndexSpec): NamedIndex {
  const entries = Object.entries(spec?.keys ?? {});
  if (!entries.length || entries.some(([, dir]) => dir !== 1 && dir !== -1)) {
    throw new TypeError("index keys must map field paths to 1 or -1");
  }
  const name = indexName(spec);
  const ttl = spec.expireAfterSeconds;
  if (ttl !== undefined && (entries.length !== 1 || typeof ttl !== "number" || !(ttl >= 0))) {
    throw new TypeError("an expiry index has one key and expireAfterSeconds >= 0");
  }
  return {
    keys: { ...spec.keys },
    ...(spec.unique ? { unique: true } : {}),
    ...(ttl !== undefined ? { expireAfterSeconds: ttl } : {}),
    name,
  };
}

/** The sort key of a field holding an empty array: MongoDB sorts it below null and a missing field. */
const EMPTY_ARRAY = Symbol("empty array");

/**
 * A value's place in MongoDB's comparison order of BSON types: (MinKey,) an empty array's key, null
 * and missing, numbers, strings, objects, arrays, binData, ObjectId, booleans, dates, (timestamps,)
 * regular expressions.
 */
function bsonRank(v: unknown): number {
  if (v === EMPTY_ARRAY) return 0;
  if (v === null || v === undefined) return 1;
  switch (typeof v) {
    case "number":
    case "bigint":
      return 2;
    case "string":
      return 3;
    case "boolean":
      return 8;
    case "object":
      if (Array.isArray(v)) return 5;
      if (v instanceof Uint8Array) return 6;
      if (v instanceof ObjectId) return 7;
      if (v instanceof Date) return 9;
      if (v instanceof RegExp) return 11;
      return 4;
    default:
      return 12;
  }
}

/** MongoDB's comparison of two values (test/store/mongo-rules.test.ts pins the order of types). */
export function compareValues(a: unknown, b: unknown): number {
  // The usual sort keys, two strings or two numbers, without ranking them first.
  if ((typeof a === "string" && typeof b === "string") || (typeof a === "number" && typeof b === "number"))
    return a === b ? 0 : a < b ? -1 : 1;
  const ra = bsonRank(a);
  const rb = bsonRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 4: {
      // Objects: member by member, each by its value's type, then its name, then its value.
      const ea = Object.entries(a as Doc);
      const eb = Object.entries(b as Doc);
      for (let i = 0; i < Math.min(ea.length, eb.length); i++) {
        const c =
          Math.sign(bsonRank(ea[i][1]) - bsonRank(eb[i][1])) ||
          (ea[i][0] === eb[i][0] ? 0 : ea[i][0] < eb[i][0] ? -1 : 1) ||
          compareValues(ea[i][1], eb[i][1]);
        if (c) return c;
      }
      return Math.sign(ea.length - eb.length);
    }
    case 5: {
      const ea = a as unknown[];
      const eb = b as unknown[];
      for (let i = 0; i < Math.min(ea.length, eb.length); i++) {
        const c = compareValues(ea[i], eb[i]);
        if (c) return c;
      }
      return Math.sign(ea.length - eb.length);
    }
    case 7:
      return compareValues((a as ObjectId).toHexString(), (b as ObjectId).toHexString());
    case 9:
      return compareValues((a as Date).getTime(), (b as Date).getTime());
    case 2:
    case 8:
      return a === b ? 0 : (a as number) < (b as number) ? -1 : 1;
    case 6:
      return Math.sign(Buffer.compare(Buffer.from(a as Uint8Array), Buffer.from(b as Uint8Array)));
    default:
      return ra <= 1 ? 0 : compareValues(String(a), String(b));
  }
}

/** Whether following `parts` from `value` ends on (or passes through) an empty array. */
function reachesEmptyArray(value: unknown, parts: string[]): boolean {
  if (Array.isArray(value)) return value.length === 0;
  if (parts.length === 0 || value === null || typeof value !== "object") return false;
  return reachesEmptyArray((value as Doc)[parts[0]], parts.slice(1));
}

/**
 * MongoDB's sort, which mingo gets wrong for arrays: an array sorts by its smallest element
 * ascending and its largest descending; a missing field sorts as null, an empty array below null
 * (either way round). Types sort in MongoDB's order (compareValues). Ties keep insertion order.
 * With `limit` (the end of the page: skip + limit) at least the first `limit` come back, in a small
 * page picked by bounded insertion instead of sorting every match: 10 of thousands costs one pass.
 */
export function sortDocs<T extends Doc>(docs: T[], sort: Sort, limit = Infinity): T[] {
  const fields = Object.entries(sort).map(([field, dir]) => ({ parts: field.split("."), dir }));
  const sortKey = (doc: T, parts: string[], dir: number) => {
    // The usual case, a top-level scalar, without pathValues' arrays.
    if (parts.length === 1) {
      const value = doc[parts[0]];
      if (value === null || (value !== undefined && typeof value !== "object")) return value;
    }
    const values = pathValues(doc, parts);
    if (values.length) return values.reduce((best, v) => (compareValues(v, best) * dir < 0 ? v : best));
    return reachesEmptyArray(doc, parts) ? EMPTY_ARRAY : null;
  };
  type Entry = { doc: T; keys: unknown[] };
  const compare = (a: Entry, b: Entry) => {
    for (let i = 0; i < fields.length; i++) {
      const c = compareValues(a.keys[i], b.keys[i]) * fields[i].dir;
      if (c) return c;
    }
    return 0;
  };
  /** `e` made the entry of `doc` (a new one, or a spare one reused). */
  const fill = (e: Entry, doc: T): Entry => {
    e.doc = doc;
    for (let i = 0; i < fields.length; i++) e.keys[i] = sortKey(doc, fields[i].parts, fields[i].dir);
    return e;
  };
  const entry = (doc: T): Entry => fill({ doc, keys: new Array(fields.length) }, doc);
  // A sort of everything is as cheap once the page is a good part of the matches.
  if (!(limit >= 1) || limit * 4 >= docs.length)
    return docs
      .map(entry)
      .sort(compare)
      .map((e) => e.doc);
  const best: Entry[] = [];
  // Entries of documents that did not make the page (or fell off it) are reused: most do not.
  let spare: Entry | undefined;
  for (const doc of docs) {
    const e = spare ? fill(spare, doc) : entry(doc);
    spare = undefined;
    // A later document equal to the last kept one stays behind it, as the stable sort keeps it.
    if (best.length === limit && compare(e, best[limit - 1]) >= 0) {
      spare = e;
      continue;
    }
    let lo = 0;
    let hi = best.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(best[mid], e) <= 0) lo = mid + 1;
      else hi = mid;
    }
    best.splice(lo, 0, e);
    if (best.length > limit) spare = best.pop();
  }
  return best.map((e) => e.doc);
}

/** mingo answers `[{count: 0}]` for `$count` on nothing; MongoDB answers no document. Use MongoDB's own expansion. */
export function withMongoCount(pipeline: Pipeline): Pipeline {
  return pipeline.flatMap((stage) => {
    if (typeof stage.$count === "string") {
      return [{ $group: { _id: null, [stage.$count]: { $sum: 1 } } }, { $project: { _id: 0 } }];
    }
    if (stage.$facet && typeof stage.$facet === "object") {
      const facets = Object.entries(stage.$facet as Record<string, Pipeline>);
      return [{ $facet: Object.fromEntries(facets.map(([name, sub]) => [name, withMongoCount(sub)])) }];
    }
    if (Array.isArray(stage.$lookup?.pipeline)) {
      return [{ $lookup: { ...stage.$lookup, pipeline: withMongoCount(stage.$lookup.pipeline) } }];
    }
    return [stage];
  });
}
