/**
 * The embedded store's answers to reads it has just given, for a collection that has not changed
 * since: a page of accounts, forms or workflows is read far more often than written, and its filter,
 * sort and projection cost more than the copy every answer gets anyway.
 *
 * An answer is kept under its query's JSON text with the version of its table (table.ts counts
 * every change), and is only given again while that version holds. Only plain JSON queries are
 * kept: JSON text would make a RegExp, a Date, `undefined` or NaN look like something else. Bounds:
 * a query's text, the documents per answer and the answers per collection (the oldest go first).
 */
import type { Doc } from "../types";

/** Answers kept per collection. */
export const READ_CACHE_ANSWERS = 64;
/** Larger answers (lists, not pages) are not kept. */
export const READ_CACHE_MAX_DOCS = 100;
/** Longer query texts (long `$in` lists) are not kept. */
const MAX_KEY_CHARS = 2048;
/** Nodes of a query looked at before it counts as too large to key. */
const MAX_KEY_NODES = 256;

type Entry = { version: number; value: Doc[] | number };

export class ReadCache {
  private readonly entries = new Map<string, Entry>();

  /** The answer kept under `key` at `version`, if any (a stale one is dropped). */
  get(key: string, version: number): Doc[] | number | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.version === version) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, version: number, value: Doc[] | number): void {
    if (Array.isArray(value) && value.length > READ_CACHE_MAX_DOCS) return;
    // Re-set keys move to the end: the first one in the map is the oldest.
    this.entries.delete(key);
    this.entries.set(key, { version, value });
    if (this.entries.size > READ_CACHE_ANSWERS) this.entries.delete(this.entries.keys().next().value!);
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * The key of a read (`kind` tells a find from a count), or undefined when some part of it is not
 * plain JSON or is too large to be worth keying.
 */
export function readKey(kind: string, ...parts: unknown[]): string | undefined {
  const budget = { nodes: MAX_KEY_NODES };
  if (!parts.every((part) => plainJson(part, budget, 0))) return undefined;
  const key = kind + JSON.stringify(parts);
  return key.length <= MAX_KEY_CHARS ? key : undefined;
}

/** True when JSON text says exactly what `value` is: no undefined, NaN, Date, RegExp, class. */
function plainJson(value: unknown, budget: { nodes: number }, depth: number): boolean {
  if (--budget.nodes < 0 || depth > 16) return false;
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!plainJson(value[i], budget, depth + 1)) return false;
    return true;
  }
  if (typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key of Object.keys(value))
    if (!plainJson((value as Record<string, unknown>)[key], budget, depth + 1)) return false;
  return true;
}
