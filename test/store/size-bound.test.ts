/**
 * The embedded store keeps an upper bound of a document's BSON size from its JSON text's length
 * instead of measuring it (shared/store/embedded/size.ts textBound, insertedSize, updatedSize).
 * The bound must never let a document past MongoDB's 16 MiB: documents just under and just over
 * it, of the kinds where JSON is shortest beside BSON (many small ints with long array indexes,
 * nested empty arrays, long keys), inserted and grown by updates through the store's API, are
 * stored or refused exactly as MongoDB would, with the exact size in the error and nothing kept.
 */
import { BSON } from "mongodb";
import { BSON_BYTES_PER_CHAR, textBound } from "../../shared/store/embedded/size";
import { MAX_DOCUMENT_BYTES } from "../../shared/store/rules";
import type { Doc } from "../../shared/store";
import { refusal, rulesStore } from "../support/rules-store";
import { randomDoc, seeded } from "../support/random-docs";

// Documents of 16 MiB: seconds each on a quiet machine, far more on a busy one.
jest.setTimeout(600_000);

const fresh = rulesStore("bound");

/** The kinds of filler whose JSON text is shortest beside their BSON. */
const fillers: Record<string, (n: number) => unknown[]> = {
  "small ints": (n) => new Array<number>(n).fill(7),
  "nested empty arrays": (n) => Array.from({ length: n }, () => []),
  "empty strings": (n) => new Array<string>(n).fill(""),
};

/** Decimal digits of the array index `i`: its key's length in BSON. */
const digits = (i: number): number => String(i).length;

/**
 * `{_id, a: filler(n), pad: "pp..."}` of exactly `bytes` of BSON: as many elements of the filler
 * as fit (an element's bytes: type, index digits, NUL, its value), then a string padding the rest.
 */
function docOfSize(id: string, bytes: number, filler: (n: number) => unknown[]): Doc {
  const value = BSON.calculateObjectSize({ a: filler(1) }) - BSON.calculateObjectSize({ a: [] }) - 3;
  const budget = bytes - BSON.calculateObjectSize({ _id: id, a: [], pad: "" }) - 16;
  let n = 0;
  for (let used = 0; used + 2 + digits(n) + value <= budget; n++) used += 2 + digits(n) + value;
  const doc = { _id: id, a: filler(n), pad: "" };
  doc.pad = "p".repeat(bytes - BSON.calculateObjectSize(doc));
  expect(BSON.calculateObjectSize(doc)).toBe(bytes);
  return doc;
}

describe("the bound a JSON text gives", () => {
  test("is at least the BSON size: random documents and the kinds where BSON outgrows JSON most", () => {
    const r = seeded(20261128);
    const docs: unknown[] = Array.from({ length: 2000 }, (_, i) => randomDoc(r, `d${i}`));
    // A million-and-more elements: seven-digit indexes, each int's element 13 bytes for 2 characters.
    for (const filler of Object.values(fillers))
      docs.push({ a: filler(1_100_000) }, { a: filler(3) }, filler(1));
    docs.push({ ["k".repeat(300)]: 1, é: "é".repeat(1000), "🙂": ["🙂"] }, { a: [[[[[]]]]], b: {} }, {});
    for (const doc of docs) {
      const json = JSON.stringify(doc);
      expect(textBound(json)).toBeGreaterThanOrEqual(BSON.calculateObjectSize(JSON.parse(json) as Doc));
    }
    // The worst kind is close to the factor: it is not loose by much (6 bytes a character).
    const ints = { a: fillers["small ints"](1_100_000) };
    expect(BSON.calculateObjectSize(ints) / JSON.stringify(ints).length).toBeGreaterThan(
      BSON_BYTES_PER_CHAR * 0.7,
    );
  });
});

// The edge itself is measured exactly (a bound is kept only up to 4 MiB); test/store/mongo-rules.test.ts
// and contract.test.ts hold it for other shapes. One filler here, the cheapest to build at 16 MiB:
// each of the others costs the suite tens of seconds of CPU.
describe.each([["empty strings", fillers["empty strings"]]])(
  "%s, just under and just over 16 MiB",
  (_kind, filler) => {
    test("an insert of exactly 16 MiB is stored; one byte more is refused with its size, nothing kept", async () => {
      const c = fresh();
      await c.insertOne(docOfSize("max", MAX_DOCUMENT_BYTES, filler));
      const over = MAX_DOCUMENT_BYTES + 1;
      const err = await refusal(c.insertOne(docOfSize("over", over, filler)));
      expect(err.message).toBe(`object to insert too large. size in bytes: ${over}, max size: 16777216`);
      expect(err.codeName).toBe("BSONObjectTooLarge");
      expect((await c.find({}, { projection: { _id: 1 } })).map((d) => d._id)).toEqual(["max"]);
    });

    test("updates that grow a small document to exactly 16 MiB are taken; one byte more is refused, the document stays", async () => {
      const c = fresh();
      const target = docOfSize("d", MAX_DOCUMENT_BYTES, filler) as { a: unknown[]; pad: string };
      await c.insertOne({ _id: "d", version: 1, pad: "" });
      // The filler in slices of 500,000 elements (each its own member: a bound per value set), then the padding.
      const slices = Math.ceil(target.a.length / 500_000);
      for (let i = 0; i < slices; i++) {
        const slice = target.a.slice(i * 500_000, (i + 1) * 500_000);
        expect(await c.updateVersioned!("d", i + 1, { [`s${i}`]: slice })).toBe(true);
      }
      const grown = (await c.findOne({ _id: "d" }))!;
      const room = MAX_DOCUMENT_BYTES - BSON.calculateObjectSize(grown);
      expect(room).toBeGreaterThan(1000);
      // One byte too many: the string member takes 4 + 1 + its length, the key "pad" is there already.
      const err = await refusal(c.updateVersioned!("d", slices + 1, { pad: "p".repeat(room + 1) }));
      expect(err.message).toBe(`Resulting document after update is larger than ${MAX_DOCUMENT_BYTES}`);
      expect(JSON.stringify(await c.findOne({ _id: "d" }))).toBe(JSON.stringify(grown));
      expect(await c.updateVersioned!("d", slices + 1, { pad: "p".repeat(room) })).toBe(true);
      const full = (await c.findOne({ _id: "d" }))!;
      expect(BSON.calculateObjectSize(full)).toBe(MAX_DOCUMENT_BYTES);
      // Full: a one-element push is refused on the fast path's $push too.
      await refusal(c.updateOne({ _id: "d" }, { $push: { more: 0 } }));
      expect(JSON.stringify(await c.findOne({ _id: "d" }))).toBe(JSON.stringify(full));
    });
  },
);

test("a bound that grows with each replacement never refuses a document that is small", async () => {
  const c = fresh();
  await c.insertOne({ _id: "d", version: 1 });
  // Each write replaces 1.1 MB of BSON (100,000 small ints) with as much: bounds (1.6 MB each), and
  // sizes that forgot what a write replaced, add up to past 16 MiB; the document holds one of them.
  const ints = fillers["small ints"](100_000);
  for (let version = 1; version <= 18; version++)
    expect(await c.updateVersioned!("d", version, { a: ints, n: version })).toBe(true);
  expect((await c.findOne({ _id: "d" }))!.n).toBe(18);
});

test("a document's known size follows its _id through every kind of write: a delete, a generic update, an upsert", async () => {
  const c = fresh();
  const filler = fillers["empty strings"];
  const MiB = 1024 * 1024;
  // 15 MiB, measured exactly (past the bound's 4 MiB), then deleted; a small one under the same _id.
  await c.insertOne(docOfSize("d", 15 * MiB, filler));
  await c.deleteOne({ _id: "d" });
  await c.insertOne({ _id: "d", version: 1 });
  // 2 MiB on the fast path: taken (the deleted document's size must not be the new one's).
  expect(await c.updateVersioned!("d", 1, { pad: "p".repeat(2 * MiB) })).toBe(true);

  // A small document, its bound known, made 50 KiB short of 16 MiB by a generic update ($max is
  // not a fast op). 100 KiB more is past 16 MiB, though its bound (800 KiB) would keep a small
  // document's bound within 4 MiB: only the size noted by the generic update refuses it.
  await c.insertOne({ _id: "e", version: 1, n: 0 });
  const big = docOfSize("e", MAX_DOCUMENT_BYTES - 50 * 1024, filler) as { a: unknown[]; pad: string };
  await c.updateOne({ _id: "e" }, { $max: { n: 1 }, $set: { a: big.a, pad: big.pad } });
  const more = "m".repeat(100 * 1024);
  const err = await refusal(c.updateVersioned!("e", 1, { more }));
  expect(err.message).toBe(`Resulting document after update is larger than ${MAX_DOCUMENT_BYTES}`);
  expect((await c.findOne({ _id: "e" }, { projection: { more: 1 } }))!.more).toBeUndefined();

  // The same through an upsert's insert: its size is noted, and 100 KiB more refused.
  await c.updateOne({ _id: "u" }, { $set: { version: 1, a: big.a, pad: big.pad } }, { upsert: true });
  await refusal(c.updateVersioned!("u", 1, { more }));
  expect((await c.findOne({ _id: "u" }, { projection: { more: 1 } }))!.more).toBeUndefined();
});
