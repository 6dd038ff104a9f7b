/**
 * A stored document's BSON size, the one MongoDB bounds at 16 MiB (rules.ts). It is exact: what
 * the driver's own calculateObjectSize answers for the JSON data the store keeps (a whole number in
 * int32 range is an int32, any other number a double, as the driver sends them; an `undefined`
 * member is left out, an `undefined` array element is a null), computed by a walk of its own for plain data: the driver's generic one costs
 * ~100 ms for a 10,000-line config spec on the shared loop, this one a fraction of it. Anything
 * that is not plain JSON data (a Date, a Buffer, a BSON type) is measured by the driver.
 * test/unit/bson-size.test.ts compares both on random documents.
 *
 * Measuring a whole job on each task transition would cost more than the transition, so each
 * stored document's size is kept beside it (its table's `sizes`, by `_id`: table.ts) and a fast
 * update (fast-update.ts) adds what it wrote and subtracts what it replaced, measuring only those
 * values.
 *
 * Most documents are far below the bound, and for them even that measuring is spared: a JSON text
 * of `n` characters is at most `BSON_BYTES_PER_CHAR * n` bytes of BSON (textBound), so a document
 * inserted from its text, or updated with values whose texts are known (a fast update always has
 * them), keeps an upper bound of its size instead of the size. Only when the bound could reach
 * the 16 MiB is the document measured exactly, and refused with its exact size as before.
 * test/store/size-bound.test.ts holds documents just under and just over the bound to it.
 */
import { BSON } from "mongodb";
import type { Doc } from "../types";

/**
 * What is known of a stored document's size: the exact size (>= 0), or an upper bound `b` kept as
 * `-b - 1` (one number in one map). Kept by `_id`, not in a WeakMap keyed by each stored image as
 * it was: that map grew by an entry a write, kept those of images that had outlived a scavenge
 * until the next full GC, and each time it grew, rehashed every one of them inside a write:
 * 5-15 ms stalls of the engine's writes (docs/performance-rounds.md, twenty-second round).
 */
export type KnownSize = number;

/** The size, or the bound, that `known` says. */
export const sizeOf = (known: KnownSize): number => (known < 0 ? -known - 1 : known);

/**
 * BSON bytes per JSON character, at most. Per value: a number's text is at least 1 character (an
 * int32, 4 bytes) or 3 (a double: "0.5", "1e+21"); a string's text its UTF-16 units plus 2 quotes,
 * its BSON 4 + 1 + at most 3 bytes a unit; `{}` and `[]` are 2 characters for 5 bytes; an object's
 * member adds its quoted key, a colon and a comma (4 + units) for 2 + at most 3 bytes a unit; an
 * array's element adds a comma (1) for a type byte, its index's digits and a NUL (2 + digits).
 * With 8, every value's BSON is at least 4 bytes below 8 times its text (an int32: 4 and 8), so an
 * array element's 2 + digits fit in the comma's 8 and that slack while the index has at most 10
 * digits: any array a text can hold. test/store/size-bound.test.ts checks it on random documents
 * and on the kinds where BSON outgrows JSON most.
 */
export const BSON_BYTES_PER_CHAR = 8;

/** An upper bound of the BSON size of the value whose JSON text is `json` (a document's too). */
export const textBound = (json: string): number => BSON_BYTES_PER_CHAR * json.length;

/**
 * Up to this bound, a document's size is kept as a bound (the insert's text, an update's texts);
 * past it the document is measured. Far below 16 MiB, so that a bound that grows with each update
 * (what a value replaced is not subtracted) is measured seldom.
 */
const BOUND_LIMIT = 4 * 1024 * 1024;
/**
 * A document measured at more than this keeps its exact size through its updates (the values
 * written and replaced measured, as before): for it, bounds would soon reach BOUND_LIMIT and each
 * time cost a walk of the whole document.
 */
const EXACT_FROM = 1024 * 1024;

/**
 * A new document's size known from its JSON text `text` (JSON.parse(text) gives `doc`): its bound
 * when that is within BOUND_LIMIT, else its exact size (measured). At most MAX bytes when the
 * answer is a bound, so the caller's refusal past 16 MiB always names the exact size.
 */
export function insertedSize(doc: Doc, text: string | undefined): KnownSize {
  if (text !== undefined) {
    const bound = textBound(text);
    if (bound <= BOUND_LIMIT) return -bound - 1;
  }
  return bsonDocumentSize(doc);
}

/**
 * The size of `next`, a document after a fast update that added at most `growth` bytes, whose size
 * before was `known` (undefined: not known): a bound while that stays within BOUND_LIMIT (and the
 * document is not one measured large), else exact: the exact size before and `exactGrowth()` (the
 * changed members measured), or `next` measured whole when only a bound was known. A bound is at
 * most BOUND_LIMIT, so an answer past 16 MiB is the exact size.
 */
export function updatedSize(
  known: KnownSize | undefined,
  next: Doc,
  growth: number,
  exactGrowth: () => number,
): KnownSize {
  if (known !== undefined) {
    const base = sizeOf(known);
    if ((known < 0 || known <= EXACT_FROM) && base + growth <= BOUND_LIMIT) return -(base + growth) - 1;
    if (known >= 0) return known + exactGrowth();
  }
  return bsonDocumentSize(next);
}

/** The bytes one member `key: value` takes inside its document (type byte, key, value). */
export function memberSize(key: string, value: unknown): number {
  return value === undefined ? 0 : elementSize(utf8Length(key), key, value);
}

/** The BSON size of an object as a document: its length, its members, its terminating byte. */
export function bsonDocumentSize(doc: object): number {
  let size = 4 + 1;
  if (Array.isArray(doc))
    for (let i = 0; i < doc.length; i++) size += elementSize(digits(i), undefined, doc[i], i);
  else
    for (const key in doc)
      if (Object.hasOwn(doc, key)) size += memberSize(key, (doc as Record<string, unknown>)[key]);
  return size;
}

/**
 * Type byte, key (a C string of `keyLength` bytes) and value of one element; an array's element
 * passes its index instead of a key string (made only if the driver has to measure the value).
 */
function elementSize(keyLength: number, key: string | undefined, value: unknown, index = 0): number {
  const head = 1 + keyLength + 1;
  switch (typeof value) {
    case "string":
      return head + 4 + utf8Length(value) + 1;
    case "number": // -0 is a double: an int32 would lose its sign
      return (
        head +
        (Number.isInteger(value) && value >= -0x80000000 && value <= 0x7fffffff && !Object.is(value, -0)
          ? 4
          : 8)
      );
    case "boolean":
      return head + 1;
    case "undefined":
      return head; // an array's: a null (an object's is left out: memberSize)
    case "object":
      if (value === null) return head;
      if (Array.isArray(value) || isPlain(value)) return head + bsonDocumentSize(value);
  }
  // A Date, a Buffer, a BSON type, or what the driver leaves out (functions, symbols): its rules.
  return BSON.calculateObjectSize({ [key ?? String(index)]: value }) - 5;
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return (
    (proto === Object.prototype || proto === null) &&
    typeof (value as { toBSON?: unknown }).toBSON !== "function"
  );
}

/** The length of an array key ("0", "1", ... "10000"): its decimal digits. */
function digits(i: number): number {
  let n = 1;
  for (let v = i; v >= 10; v = Math.floor(v / 10)) n++;
  return n;
}

/** UTF-8 bytes of a string: one per ASCII character, without a native call for short ones. */
export function utf8Length(text: string): number {
  if (text.length > 64) return Buffer.byteLength(text, "utf8");
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return Buffer.byteLength(text, "utf8");
  return text.length;
}
