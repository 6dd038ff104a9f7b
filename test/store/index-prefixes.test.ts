/**
 * The embedded store looks documents up by an index's leading fields (shared/store/embedded/table.ts
 * `prefixes`), as MongoDB's planner uses an index's prefix: the engine's sweep pins `status` of
 * `{status, sweepAt}` and ranges over `sweepAt`; it must not scan every job ever run. The lookup only
 * narrows what is tested: every answer is the one a scan gives, in the same order, through inserts,
 * updates that move a document between keys, deletes and index changes.
 */
import { freshStorePerTest } from "../support/fresh-store";
import type { Doc, Filter } from "../../shared/store/types";
import { lookedUp } from "../support/index-lookups";
import { int, pick, seeded, type Rand } from "../support/random-docs";

const fixture = freshStorePerTest("store-prefix");

test("the sweep's filter finds the running jobs among the running, not among every job", async () => {
  const jobs = fixture.store.collection("jobs");
  await jobs.createIndex({ keys: { status: 1, sweepAt: 1 } });
  await jobs.insertMany(
    Array.from({ length: 2000 }, (_, i) => ({ _id: `done${i}`, status: "complete", sweepAt: null })),
  );
  await jobs.insertMany([
    { _id: "r1", status: "running", sweepAt: 500 },
    { _id: "r2", status: "running", sweepAt: 1500 },
    { _id: "r3", status: "running", sweepAt: 100 },
  ]);
  let due: Doc[] = [];
  const answers = await lookedUp(async () => {
    due = await jobs.find({ status: "running", sweepAt: { $lte: 1000 } }, { projection: { _id: 1 } });
  });
  expect(due.map((d) => d._id)).toEqual(["r1", "r3"]);
  expect(answers).toEqual([["r1", "r2", "r3"]]);

  // A job that ends leaves the running ones' key; one that starts joins it.
  await jobs.updateOne({ _id: "r1" }, { $set: { status: "complete", sweepAt: null } });
  await jobs.insertOne({ _id: "r4", status: "running", sweepAt: 0 });
  const later = await lookedUp(async () => {
    due = await jobs.find({ status: "running", sweepAt: { $lte: 1000 } });
  });
  expect(due.map((d) => d._id)).toEqual(["r3", "r4"]);
  expect(later).toEqual([["r2", "r3", "r4"]]);
});

test("a lookup naming more than a quarter of the collection is left to a scan", async () => {
  const jobs = fixture.store.collection("jobs");
  await jobs.createIndex({ keys: { status: 1, sweepAt: 1 } });
  await jobs.insertMany(
    Array.from({ length: 100 }, (_, i) => ({ _id: `j${i}`, status: i < 30 ? "a" : "b" })),
  );
  const answers = await lookedUp(async () => {
    expect(await jobs.count({ status: "a" })).toBe(30);
    expect(await jobs.count({ status: "b" })).toBe(70);
  });
  expect(answers).toEqual([undefined, undefined]);
  const few = await lookedUp(() => jobs.count({ status: { $in: ["a", "c"] }, sweepAt: null }));
  expect(few).toEqual([undefined]);
  await jobs.insertMany(Array.from({ length: 100 }, (_, i) => ({ _id: `k${i}`, status: "c" })));
  const fewer = await lookedUp(async () => expect(await jobs.count({ status: "a" })).toBe(30));
  expect(fewer[0]).toHaveLength(30);
});

test("prefixes follow the declared indexes: never listed or stored, gone with their index", async () => {
  const reports = fixture.store.collection("reports");
  await reports.createIndex({ keys: { deviceName: 1, timestamp: -1 } });
  await reports.insertMany(
    Array.from({ length: 40 }, (_, i) => ({ _id: `r${i}`, deviceName: `d${i % 10}` })),
  );
  const table = fixture.store.table("reports");
  expect([...table.indexes.keys()]).toEqual(["deviceName_1_timestamp_-1"]);
  expect(table.candidates({ deviceName: "d3" })).toEqual(["r3", "r13", "r23", "r33"]);

  await reports.dropIndex("deviceName_1_timestamp_-1");
  expect(table.candidates({ deviceName: "d3" })).toBeUndefined();

  // After a restart the store holds what its log says: the declared index, its prefix derived again.
  await reports.createIndex({ keys: { deviceName: 1, timestamp: -1 } });
  const reopened = (await fixture.reopen()).table("reports");
  expect([...reopened.indexes.keys()]).toEqual(["deviceName_1_timestamp_-1"]);
  expect(reopened.candidates({ deviceName: "d3" })).toEqual(["r3", "r13", "r23", "r33"]);
});

const VALUES = ["x", "y", 1, 2, true, null];

function randomJob(r: Rand, id: string): Doc {
  const doc: Doc = { _id: id };
  if (r() < 0.9) doc.a = r() < 0.15 ? [pick(r, VALUES), pick(r, VALUES)] : pick(r, VALUES);
  if (r() < 0.9) doc.b = pick(r, VALUES);
  if (r() < 0.5) doc.o = { c: pick(r, VALUES) };
  return doc;
}

function randomPinning(r: Rand): Filter {
  const value = () =>
    pick(
      r,
      VALUES.filter((v) => v !== null),
    );
  const pin = () => (r() < 0.6 ? value() : r() < 0.5 ? { $eq: value() } : { $in: [value(), value()] });
  switch (int(r, 0, 3)) {
    case 0:
      return { a: pin() };
    case 1:
      return { a: pin(), b: pin() };
    case 2:
      return { b: pin(), "o.c": { $gte: 1 } };
    default:
      return { a: pin(), n: { $exists: false } };
  }
}

test("every answer by prefix is the scan's answer, in its order, through 3,000 random writes", async () => {
  const r = seeded(2611);
  const indexed = fixture.store.collection("indexed");
  const scanned = fixture.store.collection("scanned");
  await indexed.createIndex({ keys: { a: 1, b: 1, "o.c": 1 } });
  await indexed.createIndex({ keys: { b: -1, a: 1 } });
  let ids = 0;
  let servedByPrefix = 0;
  for (let step = 0; step < 3000; step++) {
    const both = async (write: (c: typeof indexed) => Promise<unknown>) => {
      await write(indexed);
      await write(scanned);
    };
    const roll = r();
    if (roll < 0.35 || ids < 20) {
      const doc = randomJob(r, `d${ids++}`);
      await both((c) => c.insertOne({ ...doc }));
    } else if (roll < 0.75) {
      const id = `d${int(r, 0, ids - 1)}`;
      const set = randomJob(r, id);
      delete set._id;
      await both((c) => c.updateOne({ _id: id }, { $set: set }));
    } else if (roll < 0.82) {
      const id = `d${int(r, 0, ids - 1)}`;
      await both((c) => c.deleteOne({ _id: id }));
    } else {
      const filter = randomPinning(r);
      let got: Doc[] = [];
      const answers = await lookedUp(async () => {
        got = await indexed.find(filter);
      });
      if (answers[0] !== undefined) servedByPrefix++;
      expect({ filter, got: got.map((d) => d._id) }).toEqual({
        filter,
        got: (await scanned.find(filter)).map((d) => d._id),
      });
    }
  }
  // The lookups did serve: the comparison above is of prefix answers, not of two scans.
  expect(servedByPrefix).toBeGreaterThan(100);
});
