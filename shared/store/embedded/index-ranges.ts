/**
 * A range on an index's leading field, read from the index's keys instead of the documents.
 *
 * Why: the embedded store's indexes map key tuples to `_id`s and served only pinned values
 * (equality, `$in`); a range (`expiresAt < now`) scanned the collection, parsing every cold
 * document it passed (about 10 µs each). The idempotency sweep runs that range on every node every
 * minute: 20,000 records took the store's thread 150-280 ms a sweep. The keys are short JSON
 * tuples: read them, and only the documents they name are tested.
 *
 * What must hold: no document the filter matches is left out. Ranges compare within a type
 * (fast-filter.ts, MongoDB's rule: numbers with numbers, strings with strings), and a field's
 * values are what its path reaches, arrays entered: exactly the values the index keys (mongo.ts
 * indexKeys, the same walk). Each operator may be met by another of a document's values
 * ({$gt: 5, $lt: 2} matches [0, 10]), so a document is a candidate when each operator is met by
 * one of its keys; the filter's own test then decides, as for every candidate.
 */
import { isPlainObject as isPlain } from "../../objects";
import type { Filter } from "../types";
import { RANGE as COMPARE } from "./fast-filter";

type RangeOp = keyof typeof COMPARE;

/** A field's range: its operators with their operands, all numbers or all strings. */
export interface Range {
  type: "number" | "string";
  ops: [RangeOp, number | string][];
}

/** The range `filter` puts on `field`, when its condition there is only range operators of one type. */
export function rangeOn(filter: Filter, field: string): Range | undefined {
  if (!Object.hasOwn(filter, field) || field.split(".").some((p) => /^\d+$/.test(p))) return undefined;
  const cond: unknown = filter[field];
  if (!isPlain(cond)) return undefined;
  const entries = Object.entries(cond as Record<string, unknown>);
  if (entries.length === 0 || entries.length > 4) return undefined;
  const type = typeof entries[0]![1];
  if (type !== "number" && type !== "string") return undefined;
  const ops: Range["ops"] = [];
  for (const [op, operand] of entries) {
    if (!Object.hasOwn(COMPARE, op) || typeof operand !== type) return undefined;
    if (typeof operand === "number" && Number.isNaN(operand)) return undefined;
    ops.push([op as RangeOp, operand as number | string]);
  }
  return { type, ops };
}

/**
 * Which of `range`'s operators the leading value of index key `key` (a JSON tuple) meets, as a bit
 * per operator; 0 when it meets none or is of another type.
 */
export function opsMet(range: Range, key: string): number {
  const value: unknown = (JSON.parse(key) as unknown[])[0];
  if (typeof value !== range.type) return 0;
  let met = 0;
  for (let i = 0; i < range.ops.length; i++) {
    const [op, operand] = range.ops[i]!;
    if (COMPARE[op](value as number | string, operand)) met |= 1 << i;
  }
  return met;
}
