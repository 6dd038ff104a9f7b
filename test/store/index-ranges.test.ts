/**
 * A range on an index's leading field is answered from the index's keys (shared/store/embedded/
 * index-ranges.ts): the idempotency sweep's `expiresAt < now` parsed every record of the
 * collection on every node every minute. The keys only narrow what is tested: every answer must be
 * the one a scan gives, in the same order, whatever the values' types (ranges compare within one),
 * arrays (any element may meet any operator) and missing fields, through inserts, updates and
 * deletes.
 */
import { freshStorePerTest } from "../support/fresh-store";
import { Table } from "../../shared/store/embedded/table";
import type { Doc, Filter } from "../../shared/store/types";
import { lookedUp } from "../support/index-lookups";
import { int, pick, seeded, type Rand } from "../support/random-docs";

const fixture = freshStorePerTest("store-range");

test("the idempotency sweep's range names the expired records from the index, none of the rest", async () => {
  const records = fixture.store.collection("idempotency");
  await records.createIndex({ keys: { expiresAt: 1 }, name: "expiresAt" });
  const now = 1_000_000;
  await records.insertMany(
    Array.from({ length: 2000 }, (_, i) => ({ _id: `r${i}`, state: "done", expiresAt: now + 1 + i })),
  );
  await records.insertMany([
    { _id: "old1", state: "done", expiresAt: now - 5 },
    { _id: "old2", state: "running", expiresAt: now - 1 },
  ]);
  const answers = await lookedUp(async () => {
    expect(await records.deleteMany({ expiresAt: { $lt: now } })).toBe(2);
  });
  expect(answers).toEqual([["old1", "old2"]]);
  expect(await records.count({})).toBe(2000);
  const none = await lookedUp(async () => {
    expect(await records.deleteMany({ expiresAt: { $lt: now } })).toBe(0);
  });
  expect(none).toEqual([[]]);
});

test("a read's range reads an index of at most 65,536 keys (a slice's worth), a write's any", async () => {
  const records = fixture.store.collection("idempotency");
  await records.createIndex({ keys: { expiresAt: 1 }, name: "expiresAt" });
  await records.insertMany(Array.from({ length: 40 }, (_, i) => ({ _id: `r${i}`, expiresAt: i })));
  const bounds: unknown[] = [];
  const candidates = Table.prototype.candidates;
  jest.spyOn(Table.prototype, "candidates").mockImplementation(function (this: Table, filter, keys) {
    bounds.push(keys);
    return candidates.call(this, filter, keys);
  });
  expect(await records.count({ expiresAt: { $lt: 3 } })).toBe(3);
  expect(await records.deleteMany({ expiresAt: { $lt: 2 } })).toBe(2);
  expect(bounds).toEqual([65_536, Infinity]);
  // Past its bound the index is not read: the read scans (in slices) instead.
  const table = fixture.store.table("idempotency");
  expect(table.candidates({ expiresAt: { $lt: 5 } }, 38)).toEqual(["r2", "r3", "r4"]);
  expect(table.candidates({ expiresAt: { $lt: 5 } }, 37)).toBeUndefined();
});

const NUMBERS = [-3, -0.5, 0, 1, 2, 2.5, 7, 1e9];
const STRINGS = ["", "a", "ab", "b", "Z", "2026-11-30T20:00:00Z"];
const OTHERS = [true, false, null, { n: 1 }, [1, 2], [["a"]]];

function randomValue(r: Rand): unknown {
  const roll = r();
  if (roll < 0.4) return pick(r, NUMBERS);
  if (roll < 0.7) return pick(r, STRINGS);
  if (roll < 0.85) return pick(r, OTHERS);
  // An array of mixed values: each element may meet another operator.
  return [pick(r, NUMBERS), pick(r, STRINGS), pick(r, NUMBERS)];
}

function randomDoc(r: Rand, id: string, u: number): Doc {
  const doc: Doc = { _id: id, u };
  if (r() < 0.85) doc.v = randomValue(r);
  if (r() < 0.8) doc.a = r() < 0.3 ? [{ b: randomValue(r) }, { b: randomValue(r) }] : { b: randomValue(r) };
  if (r() < 0.9) doc.w = pick(r, ["x", "y"]);
  return doc;
}

function randomRange(r: Rand): Record<string, unknown> {
  const ops = ["$gt", "$gte", "$lt", "$lte"];
  const strings = r() < 0.35;
  const range: Record<string, unknown> = {};
  for (let i = int(r, 1, 3); i > 0; i--) range[pick(r, ops)] = strings ? pick(r, STRINGS) : pick(r, NUMBERS);
  // Now and then operands of two types: not a range the keys answer, still the scan's answer.
  if (r() < 0.05) range.$lte = strings ? 5 : "m";
  return range;
}

function randomFilter(r: Rand, u: number): Filter {
  switch (int(r, 0, 4)) {
    case 0:
      return { v: randomRange(r) };
    case 1:
      return { "a.b": randomRange(r) };
    case 2:
      return { v: randomRange(r), w: pick(r, ["x", "y"]) };
    case 3:
      return { u: { $gte: int(r, 0, u), $lt: int(r, 0, u + 10) } };
    default:
      return { "a.b": randomRange(r), v: { $exists: true } };
  }
}

test("every range answered from the keys is the scan's answer, in its order, through 3,000 random writes", async () => {
  const r = seeded(3030);
  const indexed = fixture.store.collection("indexed");
  const scanned = fixture.store.collection("scanned");
  await indexed.createIndex({ keys: { v: 1 } });
  await indexed.createIndex({ keys: { "a.b": 1, w: 1 } });
  await indexed.createIndex({ keys: { u: 1 }, unique: true });
  let ids = 0;
  let served = 0;
  for (let step = 0; step < 3000; step++) {
    const both = async <T>(write: (c: typeof indexed) => Promise<T>): Promise<[T, T]> => [
      await write(indexed),
      await write(scanned),
    ];
    const roll = r();
    if (roll < 0.3 || ids < 40) {
      const doc = randomDoc(r, `d${ids}`, ids);
      ids++;
      await both((c) => c.insertOne({ ...doc }));
    } else if (roll < 0.55) {
      const id = `d${int(r, 0, ids - 1)}`;
      const { _id: _unusedId, u: _unusedU, ...set } = randomDoc(r, id, 0);
      await both((c) => c.updateOne({ _id: id }, { $set: set }));
    } else if (roll < 0.6) {
      const filter = randomFilter(r, ids);
      const [a, b] = await both((c) => c.deleteMany(filter));
      expect({ filter, deleted: a }).toEqual({ filter, deleted: b });
    } else {
      const filter = randomFilter(r, ids);
      let got: Doc[] = [];
      const answers = await lookedUp(async () => {
        got = await indexed.find(filter);
      });
      if (answers[0] !== undefined) served++;
      const want = await scanned.find(filter);
      expect({ filter, got: got.map((d) => d._id) }).toEqual({ filter, got: want.map((d) => d._id) });
      expect(await indexed.count(filter)).toBe(want.length);
    }
  }
  // The keys did answer: the comparison above is of their answers, not of two scans.
  expect(served).toBeGreaterThan(300);
});
