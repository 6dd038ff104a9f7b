/**
 * The embedded store's index keys (mongo.ts indexKeys): one value per field takes a short way, a
 * field reaching an array (or through one) the general walk. Both against the general walk on
 * random documents (arrays, nulls, scalars and missing members on the paths) and random indexes:
 * the same keys, in the same order.
 */
import { indexKeys, indexKeysOfMany } from "../../shared/store/embedded/mongo";
import type { IndexSpec } from "../../shared/store";
import { int, pick, randomDoc, seeded } from "../support/random-docs";

const PATHS = [
  "a",
  "b",
  "c",
  "n",
  "arr",
  "o",
  "o.a",
  "o.b",
  "arr.a",
  "o.arr",
  "a.b.c",
  "toString",
  "o.0",
  "arr.0",
];

describe("indexKeys", () => {
  it("gives the general walk's keys for random documents and indexes", () => {
    const r = seeded(26);
    let short = 0;
    for (let i = 0; i < 3000; i++) {
      const doc = randomDoc(r, `d${i}`);
      const keys: Record<string, 1 | -1> = {};
      for (let k = int(r, 1, 3); k > 0; k--) keys[pick(r, PATHS)] = r() < 0.5 ? 1 : -1;
      const spec: IndexSpec = { keys };
      const expected = indexKeysOfMany(doc, spec);
      expect({ doc, keys, got: indexKeys(doc, spec) }).toEqual({ doc, keys, got: expected });
      if (expected.length === 1 && !JSON.stringify(doc).includes("[")) short++;
    }
    expect(short).toBeGreaterThan(100);
  });

  it("keys a job under its status and sweep time, and a multikey field under each element", () => {
    const spec: IndexSpec = { keys: { status: 1, sweepAt: 1 } };
    expect(indexKeys({ _id: "j", status: "running", sweepAt: 5 }, spec)).toEqual(['["running",5]']);
    expect(indexKeys({ _id: "j", status: "running" }, spec)).toEqual(['["running",null]']);
    expect(indexKeys({ _id: "j", status: ["a", "b"], sweepAt: 1 }, spec)).toEqual(['["a",1]', '["b",1]']);
    expect(indexKeys({ _id: "j", status: [], sweepAt: 1 }, spec)).toEqual(["[null,1]"]);
  });

  it("keys an index of one field reaching an array (a form's tags) under each value once", () => {
    const spec: IndexSpec = { keys: { tags: 1 } };
    expect(indexKeys({ _id: "f", tags: [] }, spec)).toEqual(["[null]"]);
    expect(indexKeys({ _id: "f", tags: ["t1"] }, spec)).toEqual(['["t1"]']);
    expect(indexKeys({ _id: "f", tags: ["t1", "t2", "t1", null] }, spec)).toEqual([
      '["t1"]',
      '["t2"]',
      "[null]",
    ]);
    expect(indexKeys({ _id: "f", tags: [[1], { a: 1 }] }, spec)).toEqual(["[[1]]", '[{"a":1}]']);
    const nested: IndexSpec = { keys: { "arr.a": 1 } };
    expect(indexKeys({ _id: "f", arr: [{ a: 1 }, { a: [2, 1] }, {}] }, nested)).toEqual(["[1]", "[2]"]);
  });
});
