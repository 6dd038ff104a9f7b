/**
 * A faster path for the updates services send most: `$set`, `$inc`, `$push` and `$unset` on plain
 * dotted paths through objects (the engine's `{$set: {...}, $inc: {version: 1}}` on every task
 * transition). mingo's updater deep-clones the whole document and walks it generically; here only
 * the objects on the updated paths are copied, and the new image shares every untouched subtree
 * with the stored one. That is safe because stored documents are never mutated, only replaced
 * (table.ts), and every answer is a copy.
 *
 * Anything else answers `undefined` and goes the general way (mingo, after MongoDB's checks of
 * rules.ts): other operators, `$`/numeric/empty path segments, `$each` and other modifiers, paths
 * through arrays, null or scalars, overlapping paths, `$inc` on a non-number and `$push` on a
 * non-array (the general path refuses the last ones as MongoDB does: PathNotViable, TypeMismatch,
 * BadValue, ConflictingUpdateOperators). test/unit/fast-update.test.ts compares both paths.
 * It also answers how much the document may have grown, from the texts of the values written
 * (growth), and how to measure exactly what it grew (exactGrowth), so the 16 MiB bound costs no
 * full walk (size.ts updatedSize).
 */
import { frozenJsonNesting, frozenJsonText, keptJsonText, valuesFromMessage } from "../../frozen-json";
import { isEqual } from "mingo/util";
import { isPlainObject as isPlain } from "../../objects";
import type { Doc, RawUpdate, Update } from "../types";
import type { WrittenValue } from "./depth";
import { memberSize, textBound, utf8Length } from "./size";
import type { StoredDoc } from "./table";

type Op = "$set" | "$inc" | "$push" | "$unset";
interface Step {
  op: Op;
  parts: string[];
  /** `parts` joined with dots: the path as the update gave it (set when it is at hand). */
  path?: string;
  /** $set/$push: the value as given, as JSON text and as its parsed copy; $inc: the number. */
  raw?: unknown;
  json?: string;
  value?: unknown;
  /** How deeply the value nests, when known without scanning `json` (depth.ts WrittenValue). */
  nesting?: number;
}

export interface FastUpdate {
  /** The new image, or the stored document itself when nothing changed. */
  doc: StoredDoc;
  changed: boolean;
  /** Each written leaf and its path length, so the depth bound is checked on new values only. */
  written: WrittenValue[];
  /**
   * What changed, as the store logs it (backend.ts): the final value of each path set or
   * incremented, each path removed, each element pushed. Replayed on the same document by
   * replayPatch, it gives the same new image, without the whole document in the log.
   */
  patch: PatchOp[];
  /**
   * At most how many bytes of BSON the new image has more than the stored one: each value set or
   * pushed counted at its text's bound (size.ts textBound), what it replaced or removed not
   * subtracted, an increment's numbers measured.
   */
  growth: number;
  /** The growth measured so far (new objects on the paths, increments): exactGrowth adds the rest. */
  measured: number;
  /** Members set, pushed or removed, to measure for exactGrowth: member key, new value, old value. */
  unmeasured: SizeTerm[];
  /**
   * The top-level members of the document the update's paths go through (each path's first
   * segment, changed or not): every other member of the new image is the stored one's very value.
   */
  members: string[];
}

/** A member whose BSON size change exactGrowth measures: `next` added (if not undefined), `old` removed. */
interface SizeTerm {
  key: string;
  next: unknown;
  old: unknown;
}

/** How many bytes of BSON a fast update's new image has more than the stored one, exactly. */
export function exactGrowth(fast: FastUpdate): number {
  let delta = fast.measured;
  for (const { key, next, old } of fast.unmeasured) delta += memberSize(key, next) - memberSize(key, old);
  return delta;
}

/** At most the bytes of a member `key` whose value's JSON text is `json` (type byte, key, NUL, value). */
const memberBound = (key: string, json: string) => 2 + utf8Length(key) + textBound(json);

/**
 * One change: `["set", path, json]`, `["unset", path]` or `["push", path, json]`, values as JSON
 * text; or `["text", json]`, a set or an unset already written as its JSON text (pushMembers).
 */
export type PatchOp =
  ["set", string, string] | ["unset", string] | ["push", string, string] | ["text", string];

/**
 * The JSON text of `ops` as the log holds them (each value's text in place), the same text
 * JSON.stringify gives for the parsed ops; nothing is serialized twice.
 */
export function patchJson(ops: PatchOp[]): string {
  let text = "[";
  ops.forEach((op, i) => {
    if (i) text += ",";
    if (op[0] === "text") text += op[1];
    else text += `["${op[0]}",${JSON.stringify(op[1])}${op.length === 3 ? `,${op[2]}` : ""}]`;
  });
  return text + "]";
}

const OPS = new Set(["$set", "$inc", "$push", "$unset"]);
// Not empty, not `$`-led, not an array index (integer-like keys are mingo's to place).
const PLAIN_SEGMENT = /^(?!\d+$)[^$.][^.]*$/;
// Names Object.prototype has (toString, __proto__, ...): mingo's walk trips on them, so it keeps them.
const plainSegment = (part: string) => PLAIN_SEGMENT.test(part) && !(part in Object.prototype);

/** The steps of `update`, or undefined when it is not a shape this path handles. */
function stepsOf(update: RawUpdate): Step[] | undefined {
  const steps: Step[] = [];
  for (const op of Object.keys(update)) {
    if (op === "$setOnInsert") continue; // only an upsert's insert applies it
    const fields = update[op];
    if (!OPS.has(op) || !isPlain(fields) || Object.keys(fields).length === 0) return undefined;
    for (const [path, operand] of Object.entries(fields)) {
      const parts = path.split(".");
      if (parts[0] === "_id" || !parts.every(plainSegment)) return undefined;
      const step: Step = { op: op as Op, parts, path };
      if (op === "$inc") {
        if (typeof operand !== "number" || !Number.isFinite(operand)) return undefined;
        step.value = operand + 0; // -0 is stored as 0, as a JSON round trip leaves it
      } else if (op === "$set" || op === "$push") {
        if (op === "$push" && isPlain(operand) && Object.keys(operand).some((k) => k.startsWith("$")))
          return undefined; // $each, $slice, $sort, $position
        const value = setStep(op, parts, operand, path);
        if (!value) return undefined;
        steps.push(value);
        continue;
      }
      steps.push(step);
    }
  }
  return conflicting(steps) ? undefined : steps;
}

/** Two paths where one is the other or inside it: mingo refuses those, so it should say so. */
function conflicting(steps: Step[]): boolean {
  const paths = new Set<string>();
  const lengths = new Set<number>();
  for (const { parts, path = parts.join(".") } of steps) {
    if (paths.has(path)) return true;
    paths.add(path);
    lengths.add(path.length);
  }
  const has = (prefix: string) => paths.has(prefix);
  return steps.some(({ parts, path = parts.join(".") }) => underAnother(path, dotsOf(path), lengths, has));
}

/**
 * Whether a prefix of `path` that ends at one of its `dots` is a path of the same update (`has`).
 * A prefix is sliced and looked up only at a length one of the update's paths has (`lengths`):
 * a lookup hashes the whole prefix, so looking up every prefix of a long path grew with the square
 * of its length (16,000 segments: about 1.8 s of the event loop).
 */
function underAnother(
  path: string,
  dots: readonly number[],
  lengths: ReadonlySet<number>,
  has: (prefix: string) => boolean,
): boolean {
  for (let i = 0; i < dots.length; i++) if (lengths.has(dots[i]) && has(path.slice(0, dots[i]))) return true;
  return false;
}

/** `update` applied to `doc` as mingo would, or undefined when mingo must do it. */
export function fastUpdate(doc: StoredDoc, update: Update): FastUpdate | undefined {
  const steps = stepsOf(update);
  return steps && applySteps(doc, steps, true);
}

/** A `$set` step of `value` (frozen with its text, or any value JSON takes), or undefined. */
function setStep(op: "$set" | "$push", parts: string[], operand: unknown, path: string): Step | undefined {
  const step: Step = { op, parts, path, raw: operand };
  // A frozen value with its text (shared/frozen-json.ts: for the moment, or kept for its life) is
  // kept as given: nobody can change it.
  const known = frozenJsonText(operand) ?? keptJsonText(operand);
  step.json = known ?? JSON.stringify(operand);
  if (step.json === undefined) return undefined;
  // A scalar nests 0 deep; a frozen value's maker may have counted its nesting (frozen-json.ts).
  step.nesting = typeof operand !== "object" || operand === null ? 0 : frozenJsonNesting(operand);
  // A value parsed from the write's message is its own round trip already (valuesFromMessage).
  step.value =
    known !== undefined || typeof operand === "string" || valuesFromMessage()
      ? operand
      : JSON.parse(step.json);
  return step;
}

/**
 * A plain path's segments, and where each object above its leaf ends in it (`tasks` and
 * `tasks.t1` of `tasks.t1.status`: the positions of its dots): versionedUpdate looks each of those
 * prefixes up in the update, and joining them from the segments cost an array and a string per
 * prefix of every path of every compare-and-set. Positions, not the prefixes' strings: a memo
 * entry stays as large as its path (a path of n segments has n prefixes, together up to n times
 * its length).
 */
interface PlainPath {
  parts: string[];
  dots: number[];
}

/** The positions of the dots in `path`. */
function dotsOf(path: string): number[] {
  const dots: number[] = [];
  for (let dot = path.indexOf("."); dot !== -1; dot = path.indexOf(".", dot + 1)) dots.push(dot);
  return dots;
}

/** Each path's PlainPath, or null when not a plain path (fast path refused); a bounded memo. */
const pathMemo = new Map<string, PlainPath | null>();
const PATH_MEMO_SIZE = 4096;

function plainPath(path: string): PlainPath | null {
  let plain = pathMemo.get(path);
  if (plain !== undefined) return plain;
  const parts = path.split(".");
  plain =
    parts[0] === "_id" || parts[0] === "version" || !parts.every(plainSegment)
      ? null
      : { parts, dots: dotsOf(path) };
  if (pathMemo.size >= PATH_MEMO_SIZE) pathMemo.clear();
  pathMemo.set(path, plain);
  return plain;
}

/**
 * A versioned compare-and-set's update (Collection.updateVersioned: `{$set: set, $unset: unset,
 * $inc: {version: 1}}`) applied to `doc` without the generic checks and parsing: paths split once
 * (a memo), no conflict search but a prefix lookup, and no comparison of each value set with the
 * one it replaces (the caller sets what changed; MongoDB writes an equal value too). Undefined when
 * the generic path must take it: a path not plain, through `_id` or `version`, two paths where
 * one is the other or inside it, `version` not a number, or anything fastUpdate refuses.
 */
export function versionedUpdate(
  doc: StoredDoc,
  set: Record<string, unknown>,
  unset: Record<string, unknown> | undefined,
): FastUpdate | undefined {
  if (typeof doc.version !== "number") return undefined;
  const steps: Step[] = [];
  const setPaths = Object.keys(set);
  const unsetPaths = unset ? Object.keys(unset) : [];
  const lengths = new Set<number>();
  for (const path of setPaths) lengths.add(path.length);
  for (const path of unsetPaths) lengths.add(path.length);
  const has = (prefix: string) =>
    Object.hasOwn(set, prefix) || (unset !== undefined && Object.hasOwn(unset, prefix));
  // A path inside another one of the update (`a` and `a.b`), or set and unset: the generic path refuses it.
  const taken = ({ dots }: PlainPath, path: string) =>
    underAnother(path, dots, lengths, has) ||
    (unset !== undefined && Object.hasOwn(set, path) && Object.hasOwn(unset, path));
  for (const path of setPaths) {
    const plain = plainPath(path);
    if (!plain || taken(plain, path)) return undefined;
    const step = setStep("$set", plain.parts, set[path], path);
    if (!step) return undefined;
    steps.push(step);
  }
  // In the generic update's order ($set, $inc, $unset): the same patch, the same log line.
  steps.push({ op: "$inc", parts: VERSION, path: "version", value: 1 });
  for (const path of unsetPaths) {
    const plain = plainPath(path);
    if (!plain || taken(plain, path)) return undefined;
    steps.push({ op: "$unset", parts: plain.parts, path });
  }
  return applySteps(doc, steps, false);
}

const VERSION = ["version"];

/**
 * `steps` applied to `doc` as mingo would. `keepEqual`: a `$set` of a value equal (mingo's
 * isEqual) to the stored one keeps the stored one, as mingo does; without it the value given is
 * written (versionedUpdate).
 */
function applySteps(doc: StoredDoc, steps: Step[], keepEqual: boolean): FastUpdate | undefined {
  const root: Doc = { ...doc };
  // Objects of the new image that are ours (copied or created here), so they may be written in place.
  const owned = new Set<object>([root]);
  const written: FastUpdate["written"] = [];
  const patch: PatchOp[] = [];
  let changed = false;
  let growth = 0;
  let measured = 0;
  const unmeasured: SizeTerm[] = [];
  // $set steps that wrote a value unequal to mingo (a Date over its text) but maybe equal as JSON.
  const unsure: { old: unknown; json: string }[] = [];
  const members: string[] = [];
  for (const step of steps) {
    const { op, parts } = step;
    members.push(parts[0]);
    let node = root;
    let reached = true;
    for (let p = 0; p < parts.length - 1; p++) {
      const part = parts[p];
      let child = Object.hasOwn(node, part) ? node[part] : undefined;
      if (child === undefined) {
        if (op === "$unset") {
          reached = false;
          break;
        }
        child = {};
        owned.add(child);
        node[part] = child;
        const size = memberSize(part, child);
        growth += size;
        measured += size;
      } else if (!isPlain(child)) {
        return undefined;
      } else if (!owned.has(child)) {
        child = { ...child };
        owned.add(child);
        node[part] = child;
      }
      node = child;
    }
    if (!reached) continue;
    const key = parts[parts.length - 1];
    const has = Object.hasOwn(node, key);
    const old = has ? node[key] : undefined;
    if (op === "$unset") {
      if (has) {
        delete node[key];
        unmeasured.push({ key, next: undefined, old });
        changed = true;
        patch.push(["unset", step.path ?? parts.join(".")]);
      }
      continue;
    }
    let next: unknown;
    if (op === "$set") {
      // mingo keeps the stored value when it is equal (in any key order) to the one given.
      if (keepEqual && has && isEqual(old, step.raw)) continue;
      next = step.value;
      if (has && typeof old === "object" && old !== null) unsure.push({ old, json: step.json! });
      else changed ||= !has || old !== next;
    } else if (op === "$inc") {
      if (has && typeof old !== "number") return undefined;
      next = has ? (old as number) + (step.value as number) : step.value;
      if (!Number.isFinite(next)) return undefined;
      changed ||= !has || next !== old;
    } else {
      if (has && !Array.isArray(old)) return undefined;
      next = has ? [...(old as unknown[]), step.value] : [step.value];
      changed = true;
    }
    node[key] = next;
    if (op === "$inc") {
      const size = memberSize(key, next) - (has ? memberSize(key, old) : 0);
      growth += size;
      measured += size;
    } else if (op === "$push" && has) {
      const index = String((old as unknown[]).length);
      growth += memberBound(index, step.json!);
      unmeasured.push({ key: index, next: step.value, old: undefined });
    } else {
      // A new array's text is its element's and two brackets.
      growth += memberBound(key, op === "$push" ? `[${step.json!}]` : step.json!);
      unmeasured.push({ key, next, old });
    }
    const path = step.path ?? parts.join(".");
    if (op === "$push") patch.push(["push", path, step.json!]);
    else if (op === "$inc") patch.push(["set", path, JSON.stringify(next)]);
    else if (!(has && pushMembers(patch, path, old, next, step.json!))) patch.push(["set", path, step.json!]);
    // A pushed element sits one level below its array; the array's older elements were measured.
    const { json, nesting } = step;
    if (op === "$push") written.push({ depth: parts.length + 1, json, nesting });
    else written.push({ depth: parts.length, json, nesting });
  }
  // The store writes only what changed as JSON; compared only when nothing else decided it.
  changed ||= unsure.some(({ old, json }) => JSON.stringify(old) !== json);
  return changed
    ? { doc: root as StoredDoc, changed, written, patch, growth, measured, unmeasured, members }
    : { doc, changed, written: [], patch: [], growth: 0, measured: 0, unmeasured: [], members: [] };
}

/** What `next` changed of `old`, member by member (memberChanges). */
export interface MemberChanges {
  /** `next`'s keys and values, by position. */
  keys: string[];
  values: unknown[];
  /** The positions in `keys` of the members set anew: changed, or new (after every kept one). */
  changed: number[];
  /** `old`'s keys that `next` has not. */
  dropped: string[];
}

/**
 * `next` as the members that changed of `old`, when both are plain objects and those members,
 * set and unset one by one over `old`, give `next` exactly, member order included: the members
 * `next` kept are in `old`'s order and its new ones after them. A member is unchanged when it is
 * the very same value (a scalar, or an object the writer shared: services/engine/run/jobs.ts
 * storedTask). Undefined when not so (or a member is undefined, which JSON leaves out), and when
 * more members change (set or dropped) than stay: each member's op repeats the path, so the whole
 * value is then rarely longer. The one rule of the log's member ops (pushMembers) and of a remote
 * versioned write's member sets (../member-writes.ts). Test: test/unit/member-patch.test.ts.
 */
export function memberChanges(old: unknown, next: unknown): MemberChanges | undefined {
  if (!isPlain(old) || !isPlain(next)) return undefined;
  // Both objects' members by position (Object.keys and Object.values): a lookup of each key in
  // the other object (a keyed load that has seen every shape of document, and a hasOwn) cost more
  // than the whole walk (callgrind, twenty-third round).
  const oldKeys = Object.keys(old);
  const keys = Object.keys(next);
  // More than twice the members: more are new than `old` has, so more change than stay, whatever
  // they are (a task's start: the members a run adds to the workflow's task). Decided before the
  // walk, which that write's whole value would pay for nothing.
  if (keys.length > 2 * oldKeys.length) return undefined;
  const oldValues = Object.values(old);
  const values = Object.values(next);
  const changed: number[] = [];
  const dropped: string[] = [];
  let kept = 0;
  let cursor = 0;
  let appending = false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const value = values[i];
    if (value === undefined) return undefined;
    // Where `key` is among the old members: next in order most often, else further on (the ones
    // between were dropped); behind the last one kept, a reorder the replay could not make.
    const at = cursor < oldKeys.length && oldKeys[cursor] === key ? cursor : oldKeys.indexOf(key, cursor);
    if (at < 0 && cursor > 0 && oldKeys.indexOf(key) >= 0) return undefined;
    if (at >= 0) {
      if (appending) return undefined; // a kept member after a new one: the replay would reorder them
      for (; cursor < at; cursor++) dropped.push(oldKeys[cursor]);
      cursor = at + 1;
      if (value === oldValues[at]) {
        kept++;
        continue;
      }
    } else appending = true;
    changed.push(i);
  }
  for (; cursor < oldKeys.length; cursor++) dropped.push(oldKeys[cursor]);
  if (changed.length + dropped.length > kept) return undefined;
  return { keys, values, changed, dropped };
}

/**
 * Logs `$set path = next` over `old` as the members that changed, when both are plain objects and
 * that takes fewer bytes than the whole value (`json`): a task transition changes a few members of
 * two tasks (status, claim, times), and whole tasks made most of the log, so most of what a
 * compaction parses. Pushes the ops and answers true, or answers false (nothing pushed): the caller
 * logs the whole value. Replayed (replayPatch: the object copied, members set and unset), the ops
 * must give `next` exactly: which members changed, and whether the order allows it, is
 * memberChanges' rule. Keys that are not plain path segments (a dot, `$`, a digit-only name,
 * `__proto__`) keep the whole value.
 * Test: test/unit/member-patch.test.ts.
 */
function pushMembers(patch: PatchOp[], path: string, old: unknown, next: unknown, json: string): boolean {
  const members = memberChanges(old, next);
  if (!members) return false;
  const { keys, values, changed, dropped } = members;
  // The whole value's op is `["set",<path>,<json>]`: the members' ops must come to less.
  let budget = json.length + path.length + 10;
  const ops: PatchOp[] = [];
  for (const key of dropped) {
    if (!plainMember(key)) return false;
    const op = `["unset",${JSON.stringify(`${path}.${key}`)}]`;
    budget -= op.length + 1;
    ops.push(["text", op]);
  }
  for (const i of changed) {
    const key = keys[i];
    if (!plainMember(key)) return false;
    const value = values[i];
    const start = memberSetStart(path, key);
    const text =
      typeof value === "object" && value !== null
        ? (frozenJsonText(value) ?? keptJsonText(value) ?? JSON.stringify(value))
        : JSON.stringify(value);
    budget -= start.length + text.length + 2;
    if (budget <= 0) return false;
    ops.push(["text", `${start}${text}]`]);
  }
  if (budget <= 0) return false;
  for (const op of ops) patch.push(op);
  return true;
}

/**
 * `["set","<path>.<key>",`: the start of a member's op as the log holds it, remembered by path and
 * key, as the same tasks' same members are written job after job. Bounded: SET_START_PATHS paths
 * of MEMBERS_REMEMBERED members each (about 32,000 short strings at most).
 */
const setStarts = new Map<string, Map<string, string>>();
const SET_START_PATHS = 1024;
const MEMBERS_REMEMBERED = 32;

function memberSetStart(path: string, key: string): string {
  let byKey = setStarts.get(path);
  if (byKey === undefined) {
    if (setStarts.size >= SET_START_PATHS) setStarts.clear();
    setStarts.set(path, (byKey = new Map()));
  }
  let start = byKey.get(key);
  if (start === undefined) {
    start = `["set",${JSON.stringify(`${path}.${key}`)},`;
    if (byKey.size < MEMBERS_REMEMBERED) byKey.set(key, start);
  }
  return start;
}

/** plainSegment of a member's key, remembered (a bounded memo): the same few keys come every time. */
const memberMemo = new Map<string, boolean>();

export function plainMember(key: string): boolean {
  let plain = memberMemo.get(key);
  if (plain !== undefined) return plain;
  plain = plainSegment(key);
  if (memberMemo.size >= PATH_MEMO_SIZE) memberMemo.clear();
  memberMemo.set(key, plain);
  return plain;
}
