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
 * stored document's size is kept beside it (a WeakMap: it goes with the document) and a fast update
 * (fast-update.ts) adds what it wrote and subtracts what it replaced, measuring only those values.
 */
import { BSON } from "mongodb";
import type { Doc } from "../types";

const sizes = new WeakMap<object, number>();

/** The BSON size of `doc`, measured once per stored image. */
export function documentSize(doc: Doc): number {
  let size = sizes.get(doc);
  if (size === undefined) {
    size = bsonDocumentSize(doc);
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
function utf8Length(text: string): number {
  if (text.length > 64) return Buffer.byteLength(text, "utf8");
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return Buffer.byteLength(text, "utf8");
  return text.length;
}
