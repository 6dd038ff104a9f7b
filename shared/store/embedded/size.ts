/**
 * A stored document's BSON size, the one MongoDB bounds at 16 MiB (rules.ts). It is exact: the
 * driver's own calculateObjectSize, on the JSON data the store keeps (a whole number in int32 range
 * is an int32, any other number a double, as the driver sends them). Measuring a whole job on each
 * task transition would cost more than the transition, so each stored document's size is kept
 * beside it (a WeakMap: it goes with the document) and a fast update (fast-update.ts) adds what it
 * wrote and subtracts what it replaced, measuring only those values.
 */
import { BSON } from "mongodb";
import type { Doc } from "../types";

const sizes = new WeakMap<object, number>();

/** The BSON size of `doc`, measured once per stored image. */
export function documentSize(doc: Doc): number {
  let size = sizes.get(doc);
  if (size === undefined) {
    size = BSON.calculateObjectSize(doc);
    sizes.set(doc, size);
  }
  return size;
}

/** Records the size of a new image computed from its predecessor's (fast updates). */
export function rememberSize(doc: Doc, size: number): void {
  sizes.set(doc, size);
}

/** The bytes one member `key: value` takes inside its document (type byte, key, value). */
export function memberSize(key: string, value: unknown): number {
  return value === undefined ? 0 : BSON.calculateObjectSize({ [key]: value }) - 5;
}
