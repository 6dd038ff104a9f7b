/**
 * Seeded random JSON documents, update documents, filters and sorts, for the tests that check the
 * embedded store's fast paths against mingo. The same seed gives the same cases, so a failure
 * reproduces.
 */
import type { Doc, Filter, RawUpdate, Sort, Update } from "../../shared/store/types";

export type Rand = () => number;

/** mulberry32: small, fast, good enough for test cases. */
export function seeded(seed: number): Rand {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(r: Rand, items: readonly T[]): T => items[Math.floor(r() * items.length)];
export const int = (r: Rand, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));

const KEYS = ["a", "b", "c", "n", "arr", "o"] as const;

export function randomValue(r: Rand, depth = 0): unknown {
  const kind = int(r, 0, depth >= 3 ? 5 : 8);
  switch (kind) {
    case 0:
      return int(r, -3, 3);
    case 1:
      return int(r, -3, 3) + 0.5;
    case 2:
      return pick(r, ["x", "y", "z", "10"]);
    case 3:
      return null;
    case 4:
      return r() < 0.5;
    case 5:
      return int(r, 0, 9);
    case 6:
    case 7:
      return Array.from({ length: int(r, 0, 3) }, () => randomValue(r, depth + 1));
    default:
      return randomObject(r, depth + 1);
  }
}

export function randomObject(r: Rand, depth = 0): Doc {
  const out: Doc = {};
  for (let i = int(r, 0, 4); i > 0; i--) out[pick(r, KEYS)] = randomValue(r, depth);
  return out;
}

export function randomDoc(r: Rand, id: string): Doc {
  return { _id: id, ...randomObject(r) };
}

/** Mostly plain paths; now and then one the fast path must leave to mingo. */
export function randomPath(r: Rand): string {
  const odd = ["0", "1", "$", "", "_id", "__proto__", "toString", "$x"];
  const parts = Array.from({ length: int(r, 1, 3) }, () => (r() < 0.06 ? pick(r, odd) : pick(r, KEYS)));
  return parts.join(".");
}

function operand(r: Rand, op: string): unknown {
  if (op === "$inc") return r() < 0.9 ? pick(r, [1, -1, 0, 2.5, -0, 7]) : pick(r, ["x", null, NaN, 1e308]);
  if (op === "$push") return r() < 0.9 ? randomValue(r, 1) : { $each: [1, 2] };
  if (op === "$unset") return "";
  if (op === "$set" && r() < 0.05) return pick(r, [undefined, new Date(0), { u: undefined }]);
  return randomValue(r, 1);
}

const FAST_OPS = ["$set", "$inc", "$push", "$unset"];
const OTHER_OPS = ["$pull", "$addToSet", "$min", "$setOnInsert", "$pop"];

export function randomUpdate(r: Rand): Update {
  const update: RawUpdate = {};
  for (let i = int(r, 1, 3); i > 0; i--) {
    const op = r() < 0.93 ? pick(r, FAST_OPS) : pick(r, OTHER_OPS);
    const fields: Doc = (update[op] ??= {});
    for (let j = int(r, 1, 3); j > 0; j--) {
      fields[randomPath(r)] = op === "$pop" ? 1 : operand(r, op);
    }
  }
  return update;
}

/** Filters the store sees: equalities (indexable), $in, ranges, and a few mingo-only shapes. */
export function randomFilter(r: Rand): Filter {
  const field = pick(r, ["g", "u", "a", "n", "o.a", "arr"]);
  const value = () => pick(r, ["x", "y", "z", 1, 2, 3, true, null]);
  switch (int(r, 0, 6)) {
    case 0:
      return {};
    case 1:
      return { [field]: value() };
    case 2:
      return { [field]: { $in: [value(), value()] } };
    case 3:
      return { g: value(), [field]: { $eq: value() } };
    case 4:
      return { g: value(), h: value() };
    case 5:
      return { n: { $gte: int(r, -3, 3) }, g: { $in: ["x", "y"] } };
    default:
      return { $or: [{ g: value() }, { u: value() }], a: { $ne: "x" } };
  }
}

export function randomSort(r: Rand): Sort {
  const sort: Sort = {};
  for (let i = int(r, 1, 2); i > 0; i--)
    sort[pick(r, ["n", "a", "g", "arr", "o.a", "_id"])] = pick(r, [1, -1]);
  return sort;
}

/** Freezes every object and array of `value`, so a write into it throws. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/**
 * `old` changed as a writer would: members kept (the same value), replaced, dropped, a new one
 * now and then before kept ones, and up to two of `added` set (a key not a plain path segment
 * among them tests the way that keeps the whole value).
 */
export function editedObject(r: Rand, old: Doc, added: readonly string[]): Doc {
  const next: Doc = {};
  const keys = Object.keys(old);
  if (r() < 0.1) keys.reverse();
  for (const key of keys) {
    if (r() < 0.05) next.z = randomValue(r); // a new member before kept ones
    const roll = r();
    if (roll < 0.5) next[key] = old[key];
    else if (roll < 0.75) next[key] = randomValue(r);
    else if (roll < 0.8) next[key] = JSON.parse(JSON.stringify(old[key]));
  }
  for (let i = int(r, 0, 2); i > 0; i--) next[pick(r, added)] = randomValue(r);
  return next;
}
