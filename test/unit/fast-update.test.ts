/**
 * The embedded store's fast update path answers exactly what mingo's updater (the general path)
 * answers: the same new document, key order included, the same "changed" verdict, and it never
 * answers where mingo throws. Anything it leaves to mingo (undefined) is mingo's to answer. It
 * never writes into the stored document it starts from: that one is frozen here. The patch it
 * answers (what the store logs) replays to the same new document, copied (replayPatch, the load)
 * or in place (replayPatchInPlace, a compaction).
 */
import { fastUpdate, patchJson } from "../../shared/store/embedded/fast-update";
import { replayPatch, replayPatchInPlace } from "../../shared/store/embedded/log-patch";
import { applyUpdate } from "../../shared/store/embedded/mongo";
import type { StoredDoc } from "../../shared/store/embedded/table";
import type { Doc, Update } from "../../shared/store/types";
import { deepFreeze, randomDoc, randomUpdate, seeded } from "../support/random-docs";

function general(doc: StoredDoc, update: Update): { doc?: StoredDoc; changed?: boolean; error?: string } {
  try {
    return applyUpdate(doc, update, {});
  } catch (err) {
    return { error: (err as Error).message };
  }
}

function expectSameAsMingo(doc: Doc, update: Update): "fast" | "mingo" {
  // Stored documents come from JSON.parse (and objects of jest's own realm compare unequal in mingo).
  const stored = deepFreeze(JSON.parse(JSON.stringify(doc))) as StoredDoc;
  const expected = general(stored, update);
  const fast = fastUpdate(stored, update);
  if (!fast) return "mingo";
  expect(expected.error).toBeUndefined();
  expect(JSON.stringify(fast.doc)).toBe(JSON.stringify(expected.doc));
  expect(fast.doc).toStrictEqual(expected.doc);
  expect(fast.changed).toBe(expected.changed);
  if (!fast.changed) expect(fast.doc).toBe(stored);
  // The log holds the patch, not the new image: replayed on the stored document, it gives the same.
  if (fast.changed) {
    const logged = JSON.parse(patchJson(fast.patch));
    expect(patchJson(fast.patch)).toBe(JSON.stringify(logged));
    expect(JSON.stringify(replayPatch(stored, logged))).toBe(JSON.stringify(fast.doc));
    // A compaction replays onto a document of its own, in place: the same image, key order included.
    const own = JSON.parse(JSON.stringify(stored)) as StoredDoc;
    expect(replayPatchInPlace(own, JSON.parse(patchJson(fast.patch)))).toBe(own);
    expect(JSON.stringify(own)).toBe(JSON.stringify(fast.doc));
  } else expect(fast.patch).toEqual([]);
  return "fast";
}

describe("fast update path", () => {
  test("randomised documents and updates: the same answer as mingo", () => {
    const r = seeded(20261124);
    const taken = { fast: 0, mingo: 0 };
    for (let i = 0; i < 20_000; i++) taken[expectSameAsMingo(randomDoc(r, `d${i}`), randomUpdate(r))]++;
    // Both paths must be well exercised (random paths often cross arrays, nulls or scalars: mingo's).
    expect(taken.fast).toBeGreaterThan(3_000);
    expect(taken.mingo).toBeGreaterThan(3_000);
  });

  const base = {
    _id: "x",
    a: 1,
    s: "str",
    arr: [1, 2],
    o: { p: 1, q: { r: 2 } },
    n: null,
    big: Number.MAX_VALUE,
  };
  const fastCases: [string, Update][] = [
    ["$set creates intermediate objects", { $set: { "new.deep.leaf": 1 } }],
    ["$set into an existing object keeps key order", { $set: { "o.p": 5, "o.z": 1 } }],
    ["$set of an equal value changes nothing", { $set: { a: 1, o: { p: 1, q: { r: 2 } } } }],
    [
      "$set of an equal value in another key order keeps the stored one",
      { $set: { o: { q: { r: 2 }, p: 1 } } },
    ],
    ["$set of a Date over equal text", { $set: { o: { p: 1, q: { r: new Date(0) } } } }],
    ["$set of a Date stores its JSON text", { $set: { when: new Date(0) } }],
    ["$inc on a missing field sets it", { $inc: { missing: 2, "o.q.count": 1 } }],
    ["$inc by 0 changes nothing", { $inc: { a: 0 } }],
    ["$inc by -0 on a missing field stores 0", { $inc: { z: -0 } }],
    ["$push on a missing field creates the array", { $push: { list: { k: 1 }, "o.items": 1 } }],
    ["$push of an array pushes one element", { $push: { arr: [3, 4] } }],
    ["$unset of present and missing fields", { $unset: { a: "", "o.q.r": "", nope: "", "none.x": "" } }],
    ["operators apply in the order given", { $inc: { y: 1 }, $set: { x: 1 }, $unset: { s: "" } }],
    ["$setOnInsert is ignored on a match", { $setOnInsert: { created: 1 }, $set: { a: 2 } }],
  ];
  test.each(fastCases)("fast: %s", (_label, update) => {
    expect(expectSameAsMingo(base, update)).toBe("fast");
  });

  const mingoCases: [string, Update][] = [
    ["$inc on a string (mingo leaves it)", { $inc: { s: 1 } }],
    ["$inc on null", { $inc: { n: 1 } }],
    ["$inc by a non-number (mingo throws)", { $inc: { a: "1" } }],
    ["$inc by NaN (mingo throws)", { $inc: { a: NaN } }],
    ["$inc overflowing to Infinity", { $inc: { big: Number.MAX_VALUE } }],
    ["$push on a non-array", { $push: { a: 1 } }],
    ["$push with $each", { $push: { arr: { $each: [3, 4] } } }],
    ["positional $", { $set: { "arr.$": 9 } }],
    ["a numeric segment", { $set: { "arr.0": 9 } }],
    ["a path through an array", { $set: { "arr.x": 9 } }],
    ["a path through a scalar", { $set: { "a.b": 9 } }],
    ["a path through null (mingo creates an object there)", { $set: { "n.b": 9 } }],
    ["overlapping paths (mingo throws)", { $set: { o: 1, "o.p": 2 } }],
    ["the same path under two operators (mingo throws)", { $inc: { a: 1 }, $set: { a: 2 } }],
    ["_id (mingo throws)", { $set: { _id: "y" } }],
    ["$unset of _id (mingo throws)", { $unset: { _id: "" } }],
    ["an empty segment", { $set: { "a..b": 1 } }],
    ["a $-prefixed field (mingo throws)", { $set: { $x: 1 } }],
    ["__proto__", JSON.parse('{"$set": {"__proto__": {"polluted": true}}}')],
    ["a name Object.prototype has", { $set: { "o.toString": 1 } }],
    ["an undefined value", { $set: { a: undefined } }],
    ["another operator", { $set: { a: 2 }, $addToSet: { arr: 3 } }],
    ["an empty operator document", { $set: {} }],
    ["an operator that is not a document", { $set: 5 }],
  ];
  test.each(mingoCases)("left to mingo: %s", (_label, update) => {
    expect(expectSameAsMingo(base, update)).toBe("mingo");
  });

  test("the new image shares untouched subtrees and copies the touched path", () => {
    const stored = deepFreeze({ _id: "x", keep: { deep: [1] }, o: { p: 1, q: { r: 2 } } });
    const { doc } = fastUpdate(stored as StoredDoc, { $set: { "o.q.s": 3 } })!;
    expect(doc.keep).toBe(stored.keep);
    expect(doc.o).not.toBe(stored.o);
    expect(doc.o.q).not.toBe(stored.o.q);
    expect(stored.o.q).toEqual({ r: 2 });
  });
});
