/**
 * The index plan's check (shared/store/embedded/query-shapes.ts): which query shapes an index
 * serves, as MongoDB's planner would use it.
 */
import { isServed, shapesOf } from "../../shared/store/embedded/query-shapes";

const jobsIndexes: { keys: Record<string, 1 | -1> }[] = [
  { keys: { status: 1, sweepAt: 1 } },
  { keys: { "metrics.start_time": -1, _id: -1 } },
  { keys: { groups: 1, "metrics.start_time": -1 } },
];
const served = (filter: Record<string, unknown>, sort?: Record<string, 1 | -1>) =>
  shapesOf(filter, sort).every((shape) => isServed(shape, jobsIndexes));

test("the index's first key constrained by an equality, $in or a range serves the query", () => {
  expect(served({ status: "running", sweepAt: { $lt: 5 } })).toBe(true);
  expect(served({ status: { $in: ["running", "paused"] } })).toBe(true);
  expect(served({ "metrics.start_time": { $gte: 1 } })).toBe(true);
  expect(served({ _id: "j1" })).toBe(true);
});

test("a sort that follows the index after its equality prefix serves the query", () => {
  expect(served({ groups: "g1" }, { "metrics.start_time": -1, _id: -1 })).toBe(true);
  expect(served({ name: "x" }, { "metrics.start_time": -1 })).toBe(true); // walked in index order
  expect(served({}, { "metrics.start_time": -1 })).toBe(true);
  expect(served({}, { name: 1 })).toBe(false);
});

test("a field no index leads with is not served", () => {
  expect(served({ name: "x" })).toBe(false);
  expect(served({ sweepAt: { $lt: 5 } })).toBe(false); // second key only
  expect(served({ name: "x", status: { $ne: "done" } })).toBe(false);
});

test("each $or branch must be served; $and members count as the filter's", () => {
  expect(served({ $or: [{ groups: "g" }, { status: "running" }] })).toBe(true);
  expect(served({ $or: [{ groups: "g" }, { created_by: "u" }] })).toBe(false);
  expect(served({ $and: [{ name: "x" }, { status: "running" }] })).toBe(true);
});

test("reading a whole collection is no finding: no index helps it", () => {
  expect(served({})).toBe(true);
  // Operators that select by exclusion or pattern read (nearly) everything on any backend.
  expect(served({ description: { $regex: "core" } })).toBe(true);
  expect(served({ status: { $ne: "done" } })).toBe(true);
  expect(served({ status: { $exists: true } })).toBe(true);
});
