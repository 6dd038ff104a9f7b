/**
 * The embedded store's compiled filters answer exactly what mingo (MongoDB's semantics) answers,
 * on documents with nested objects, arrays, arrays of documents, missing fields and mixed types.
 */
import { Query } from "mingo";
import { compileFilter } from "../../shared/store/embedded/fast-filter";

const docs = [
  {
    _id: "1",
    name: "Core Router",
    n: 5,
    tags: ["a", "b"],
    meta: { site: "NYC", rack: 4 },
    at: "2026-01-02T00:00:00Z",
  },
  { _id: "2", name: "core switch", n: 10, tags: [], meta: { site: "nyc" }, at: "2026-03-01T00:00:00Z" },
  {
    _id: "3",
    name: "Edge",
    n: "5",
    tags: ["b"],
    items: [
      { k: "x", v: 1 },
      { k: "y", v: 7 },
    ],
    at: 20260101,
  },
  { _id: "4", name: null, n: [0, 10], meta: { site: ["LON", "PAR"] } },
  { _id: "5", description: "a.*( literal", n: 2.5, items: [{ k: "x", v: 9 }], flag: true },
  { _id: "6", name: "Core", n: -1, flag: false, meta: null, tags: "a" },
];

const filters: Record<string, unknown>[] = [
  { name: "Edge" },
  { n: 5 },
  { n: 10 },
  { tags: "b" },
  { tags: "a" },
  { "meta.site": "nyc" },
  { "meta.site": "PAR" },
  { "items.k": "x" },
  { "items.v": { $gt: 5 } },
  { "items.0.k": "y" },
  { "items.1.v": 7 },
  { flag: true },
  { flag: false },
  { name: { $regex: "^core", $options: "i" } },
  { name: { $regex: "core" } },
  { description: { $regex: "a\\.\\*\\(" } },
  { n: { $gt: 4 } },
  { n: { $gte: 5, $lte: 5 } },
  { n: { $gt: 5, $lt: 2 } },
  { n: { $lt: "6" } },
  { at: { $gte: "2026-02-01" } },
  { at: { $gte: 20250101 } },
  { n: { $in: [5, "5", 2.5] } },
  { tags: { $in: ["a", "zzz"] } },
  { n: { $eq: 10 } },
  { $or: [{ name: "Edge" }, { n: { $lt: 0 } }] },
  { $and: [{ name: { $regex: "core", $options: "i" } }, { n: { $gte: 5 } }] },
  { $or: [{ "meta.site": { $regex: "^ny", $options: "i" } }, { tags: "b" }], n: { $gt: 0 } },
  { missing: { $gt: 0 } },
  { missing: "x" },
  // What a client's search may write (shared/client-filter.ts), compiled too.
  { n: { $ne: 5 } },
  { tags: { $ne: "a" } },
  { missing: { $ne: 1 } },
  { tags: { $nin: ["a", "zzz"] } },
  { "items.k": { $all: ["x", "y"] } },
  { "items.k": { $all: ["x"] } },
  { "items.v": { $all: [1, 9] } },
  { tags: { $size: 0 } },
  { tags: { $size: 2 } },
  { items: { $size: 1 } },
  { name: { $exists: true } },
  { name: { $exists: false } },
  { "items.k": { $exists: true } },
  { "meta.site": { $exists: false } },
  { items: { $elemMatch: { k: "x", v: { $gt: 5 } } } },
  { items: { $elemMatch: { k: { $regex: "^[xy]$" } } } },
  { n: { $elemMatch: { $gt: 5 } } },
  { tags: { $elemMatch: { $in: ["b"] } } },
  { items: { $all: [{ $elemMatch: { k: "x" } }, { $elemMatch: { v: { $gte: 7 } } }] } },
  { n: { $not: { $gt: 4 } } },
  { name: { $not: { $regex: "^core", $options: "i" } } },
  { $nor: [{ n: 5 }, { tags: "b" }] },
  { $and: [{ n: { $ne: 5 } }, { n: { $ne: 10 } }, { tags: { $nin: ["b"] } }] },
];

test.each(filters.map((f) => [JSON.stringify(f), f]))("%s", (_name, filter) => {
  const compiled = compileFilter(filter);
  expect(compiled).toBeDefined();
  const expected = new Query(filter, {})
    .find<{ _id: string }>(docs)
    .all()
    .map((d) => d._id);
  expect(docs.filter((d) => compiled!(d)).map((d) => d._id)).toEqual(expected);
});

test("shapes outside the compiled set are left to mingo", () => {
  for (const filter of [
    { name: null },
    { n: { $ne: null } },
    { tags: ["a", "b"] },
    { meta: { site: "NYC", rack: 4 } },
    { items: { $elemMatch: { k: null } } },
    { tags: { $all: [["a", "b"]] } },
    { n: { $in: [[0, 10]] } },
    { name: { $regex: "x", $options: "x" } },
    { n: { $all: [] } },
    { $where: "1" },
  ]) {
    expect(compileFilter(filter)).toBeUndefined();
  }
});
