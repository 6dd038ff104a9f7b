/**
 * MongoDB's rules, enforced by every backend before a call reaches its engine, so what passes on
 * the embedded store passes on a MongoDB server (docs/platform-rules.md#store-limits):
 *  - no `undefined` anywhere in a filter or pipeline: MongoDB's driver (`ignoreUndefined`) drops it,
 *    and the bus drops it too, so `{adapterId: undefined}` would become `{}`, a match-all;
 *  - regex options are MongoDB's (i, m, s, x, u);
 *  - an update's paths do not overlap (ConflictingUpdateOperators), `$inc`/`$mul` take numbers;
 *  - against the document it changes (updateTargetViolation): no field created through a scalar
 *    (PathNotViable), `$inc` only on numbers (TypeMismatch), `$push` only on arrays (BadValue);
 *  - documents stay within 16 MiB of BSON (size.ts) and 100 levels of nesting (depth.ts).
 * Each refusal is a StoreRuleError with MongoDB's code and message; values are never echoed.
 */
import { StoreRuleError } from "../errors";
import type { Doc, Filter, Pipeline, Update } from "./types";

/** MongoDB's BSONObjMaxUserSize: the largest document a write may leave. */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;
/** MongoDB's documented nesting bound; the root document is level 1. */
export const MAX_DOCUMENT_DEPTH = 100;

export const REGEX_OPTIONS = /^[imsxu]*$/;

export function documentTooLarge(size: number, updating: boolean): StoreRuleError {
  const message = updating
    ? `Resulting document after update is larger than ${MAX_DOCUMENT_BYTES}`
    : `object to insert too large. size in bytes: ${size}, max size: ${MAX_DOCUMENT_BYTES}`;
  return new StoreRuleError(message, 10334, "BSONObjectTooLarge");
}

export function documentTooDeep(path: string): StoreRuleError {
  return new StoreRuleError(
    `cannot store a document that nests deeper than ${MAX_DOCUMENT_DEPTH} levels (at '${path}')`,
    15,
    "Overflow",
  );
}

/**
 * Throws when `filter` holds `undefined` anywhere or a regex option MongoDB refuses; answers the
 * filter to run: `filter` itself, or, where a `$regex` has the `x` option (PCRE's extended mode,
 * which JavaScript lacks), a copy with that pattern's whitespace and `#` comments taken out.
 */
export function checkFilter<F extends Filter | undefined>(filter: F, what = "filter"): F {
  if (filter === undefined) return filter;
  return walkQuery(filter, what) ? (withoutExtendedMode(filter) as F) : filter;
}

/** The same for a pipeline: its `$match` stages and every expression in it. */
export function checkPipeline(pipeline: Pipeline): void {
  if (Array.isArray(pipeline)) walkQuery(pipeline, "pipeline");
}

/** Checks `root`; answers whether a `$regex` in it has the `x` or `u` option (rewritten for JavaScript). */
function walkQuery(root: unknown, what: string): boolean {
  let extended = false;
  const stack: { value: unknown; path: string }[] = [{ value: root, path: "" }];
  while (stack.length) {
    const { value, path } = stack.pop()!;
    if (value === undefined)
      throw new StoreRuleError(
        `The ${what} holds an undefined value at '${path || "(root)"}': a store never reads it as a match-all`,
        2,
        "BadValue",
      );
    if (value === null || typeof value !== "object") continue;
    if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push({ value: item, path: path ? `${path}.${i}` : String(i) }));
      continue;
    }
    if (value instanceof RegExp) {
      // A RegExp's own `g`, `y` and `d` mean nothing to a match (the driver drops them).
      checkRegexOptions(value.flags.replace(/[gdy]/g, ""));
      continue;
    }
    const entries = Object.entries(value as Doc);
    for (const [key, item] of entries) {
      if (key === "$options") extended = checkRegexOptions(item) || extended;
      stack.push({ value: item, path: path ? `${path}.${key}` : key });
    }
  }
  return extended;
}

/** Throws on an option MongoDB refuses; answers whether `x` or `u` is among them. */
function checkRegexOptions(options: unknown): boolean {
  const flags = options;
  if (typeof flags !== "string" || !REGEX_OPTIONS.test(flags)) {
    const bad = typeof flags === "string" ? [...flags].find((f) => !"imsxu".includes(f)) : String(flags);
    throw new StoreRuleError(`invalid flag in regex options: ${bad}`, 51108, "Location51108");
  }
  return flags.includes("x") || flags.includes("u");
}

/**
 * `value` with every `{$regex, $options}` holding `x` or `u` rewritten to the same match in
 * JavaScript's terms: `x` by taking the pattern's whitespace and comments out; `u` dropped, since
 * MongoDB's patterns are always Unicode (PCRE2's UTF mode) and JavaScript's `u` would refuse escapes
 * PCRE takes.
 */
function withoutExtendedMode(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutExtendedMode);
  if (value === null || typeof value !== "object" || value instanceof RegExp) return value;
  const doc = value as Doc;
  if (typeof doc.$regex === "string" && typeof doc.$options === "string" && /[xu]/.test(doc.$options))
    return {
      ...doc,
      $regex: doc.$options.includes("x") ? stripExtended(doc.$regex) : doc.$regex,
      $options: doc.$options.replace(/[xu]/g, ""),
    };
  return Object.fromEntries(Object.entries(doc).map(([k, v]) => [k, withoutExtendedMode(v)]));
}

/** A PCRE extended-mode pattern as a plain one: unescaped whitespace and `#` comments outside classes dropped. */
export function stripExtended(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      out += pattern.slice(i, i + 2);
      i++;
    } else if (inClass) {
      if (c === "]") inClass = false;
      out += c;
    } else if (c === "[") {
      inClass = true;
      out += c;
    } else if (c === "#") {
      while (i < pattern.length && pattern[i] !== "\n") i++;
    } else if (!/\s/.test(c)) out += c;
  }
  return out;
}

const CREATING_OPS = new Set(["$set", "$setOnInsert", "$inc", "$mul", "$min", "$max", "$push", "$addToSet"]);
const NUMERIC_OPS = new Set(["$inc", "$mul"]);
const ARRAY_OPS = new Set(["$push", "$addToSet"]);

/**
 * An update's own shape, whatever it meets: no two paths where one is the other or inside it
 * (MongoDB refuses `{$set: {a: 1, "a.b": 2}}` and `{$set: {a: 1}, $inc: {a: 1}}` alike), and
 * numeric operands for `$inc` and `$mul`.
 */
export function checkUpdate(update: Update): void {
  if (Array.isArray(update)) return; // a pipeline update: MongoDB's own checks
  // Keys, not entries: the store's node runs this on every generic update of every service.
  const seen = new PathNode();
  for (const op of Object.keys(update)) {
    const fields = (update as Doc)[op];
    if (fields === null || typeof fields !== "object" || Array.isArray(fields)) continue;
    const numeric = NUMERIC_OPS.has(op);
    for (const path of Object.keys(fields as Doc)) {
      const operand = (fields as Doc)[path];
      if (numeric && typeof operand !== "number")
        throw new StoreRuleError(
          `Cannot ${op === "$inc" ? "increment" : "multiply"} with non-numeric argument: {${path}: <${bsonType(operand)}>}`,
          14,
          "TypeMismatch",
        );
      claimPath(path, seen);
      if (op === "$rename" && typeof operand === "string") claimPath(operand, seen);
    }
  }
}

/**
 * The update's paths so far, segment by segment: a node where a path ends holds it. A path is
 * looked up once, segment by segment, so the check costs what the paths' lengths add up to: no
 * prefix cut out as a string of its own, no path compared with every earlier one (a 16,000-segment
 * path or thousands of paths no longer cost the square of their size). A node keeps its one child
 * in place and makes a Map only for a second: a long path's nodes are a chain, with no Map each.
 */
class PathNode {
  ends: string | undefined = undefined;
  /** The one segment under this node, and its node (until a second segment comes: then `next`). */
  only: string | undefined = undefined;
  onlyNode: PathNode | undefined = undefined;
  next: Map<string, PathNode> | undefined = undefined;
}

/**
 * Notes `path` among the update's paths, or refuses it for the one it clashes with: itself or a
 * prefix of it up to a dot already there (`a` or `a.c` of `a.c.d`), or `path` when it holds one.
 * The paths noted never clash with each other, so at most one of these can be met.
 */
function claimPath(path: string, root: PathNode): void {
  let node = root;
  for (let start = 0; ;) {
    const dot = path.indexOf(".", start);
    node = childOf(node, dot === -1 ? path.slice(start) : path.slice(start, dot));
    if (dot === -1) break;
    if (node.ends !== undefined) throw conflictAt(path, node.ends);
    start = dot + 1;
  }
  if (node.ends !== undefined || node.onlyNode !== undefined || node.next !== undefined)
    throw conflictAt(path, path);
  node.ends = path;
}

/** The node under `node` for `segment`, made when there is none. */
function childOf(node: PathNode, segment: string): PathNode {
  if (node.next !== undefined) {
    let child = node.next.get(segment);
    if (child === undefined) node.next.set(segment, (child = new PathNode()));
    return child;
  }
  if (node.onlyNode === undefined) {
    node.only = segment;
    return (node.onlyNode = new PathNode());
  }
  if (node.only === segment) return node.onlyNode;
  const child = new PathNode();
  const next = new Map<string, PathNode>();
  next.set(node.only!, node.onlyNode);
  next.set(segment, child);
  node.next = next;
  node.only = node.onlyNode = undefined;
  return child;
}

function conflictAt(path: string, clash: string): StoreRuleError {
  return new StoreRuleError(
    `Updating the path '${path}' would create a conflict at '${clash}'`,
    40,
    "ConflictingUpdateOperators",
  );
}

/**
 * What MongoDB would refuse when applying `update` (a checked one) to `doc`: a field created
 * through a scalar, null or an array (PathNotViable), `$inc`/`$mul` on a non-number
 * (TypeMismatch), `$push`/`$addToSet` on a non-array (BadValue). Positional segments (`$`,
 * `$[]`, `$[id]`) stop the walk: the updater resolves them against the matched elements.
 */
export function checkUpdateTarget(doc: Doc, update: Update, upserting = false): void {
  for (const [op, fields] of Object.entries(update)) {
    if (!CREATING_OPS.has(op) || (op === "$setOnInsert" && !upserting)) continue;
    if (fields === null || typeof fields !== "object") continue;
    for (const path of Object.keys(fields as Doc)) checkPath(doc, op, path);
  }
}

function checkPath(doc: Doc, op: string, path: string): void {
  const parts = path.split(".");
  let node: unknown = doc;
  let key = "";
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (part.startsWith("$")) return;
    const viable = Array.isArray(node) ? /^\d+$/.test(part) : node !== null && typeof node === "object";
    if (!viable)
      throw new StoreRuleError(
        `Cannot create field '${part}' in element {${key}: <${bsonType(node)}>}`,
        28,
        "PathNotViable",
      );
    const child = Object.hasOwn(node as Doc, part) ? (node as Doc)[part] : undefined;
    if (i === parts.length - 1) {
      checkLeaf(doc, op, path, child);
      return;
    }
    if (child === undefined) return; // the rest of the path is created
    node = child;
    key = part;
  }
}

function checkLeaf(doc: Doc, op: string, path: string, value: unknown): void {
  if (value === undefined) return;
  if (NUMERIC_OPS.has(op) && typeof value !== "number")
    throw new StoreRuleError(
      `Cannot apply ${op} to a value of non-numeric type. {_id: ${JSON.stringify(doc._id)}} has the field '${path.split(".").pop()}' of non-numeric type ${bsonType(value)}`,
      14,
      "TypeMismatch",
    );
  if (ARRAY_OPS.has(op) && !Array.isArray(value))
    throw new StoreRuleError(
      `The field '${path}' must be an array but is of type ${bsonType(value)} in document {_id: ${JSON.stringify(doc._id)}}`,
      2,
      "BadValue",
    );
}

/** MongoDB's name for the BSON type a JSON value is stored as. */
export function bsonType(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "missing";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "double";
  if (typeof value === "boolean") return "bool";
  if (value instanceof Date) return "date";
  return typeof value === "object" ? "object" : typeof value;
}
