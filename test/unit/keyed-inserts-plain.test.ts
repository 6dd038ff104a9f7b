/**
 * shared/keyed-inserts.ts outside a keyed call: the wrapped collection's insertOne is the store's
 * own (no wrapper promise, no note, no made id), and its failures still arrive as rejections; every
 * other method runs on the backend's collection itself (not through the wrapper), the method as it
 * is at the call.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { notingKeyedInserts } from "../../shared/keyed-inserts";
import { openEmbeddedStore } from "../../shared/store";
import { DuplicateKeyError, type Store } from "../../shared/store/types";

let dir: string;
let store: Store;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "keyed-plain-"));
  store = await openEmbeddedStore(dir);
  await store.collection("plain").createIndex({ keys: { name: 1 }, unique: true, name: "name" });
});
afterAll(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test("a key-less insert stores the document as given and answers it; nothing else is written", async () => {
  const coll = notingKeyedInserts(store).collection("plain");
  const doc = { _id: "p-1", name: "one", tags: ["a"] };
  const answer = await coll.insertOne(doc);
  expect(answer).toEqual(doc);
  expect(await store.collection("plain").findOne({ _id: "p-1" })).toEqual(doc);
  expect(await store.collection("idempotency").count({})).toBe(0);
  // Without an _id the store makes one (no made id outside a keyed call).
  const made = await coll.insertOne({ name: "two" });
  expect(typeof made._id).toBe("string");
  expect(await store.collection("plain").findOne({ name: "two" })).toEqual(made);
});

test("a key-less insert that fails is a rejected promise, and stores nothing", async () => {
  const coll = notingKeyedInserts(store).collection("plain");
  const before = await store.collection("plain").count({});
  const pending = coll.insertOne({ _id: "p-dup", name: "one" });
  expect(pending).toBeInstanceOf(Promise);
  await expect(pending).rejects.toBeInstanceOf(DuplicateKeyError);
  expect(await store.collection("plain").count({})).toBe(before);
});

test("the wrapped collection's other methods run on the backend's collection, as they are at the call", async () => {
  const backend = store.collection("plain");
  const coll = notingKeyedInserts(store).collection("plain");
  const seen: unknown[] = [];
  const own = backend.findOne;
  const spy = jest.spyOn(backend, "findOne").mockImplementation(function (this: unknown, ...args) {
    seen.push(this);
    return own.apply(this as typeof backend, args as never);
  });
  try {
    await coll.insertOne({ _id: "p-this", name: "this" });
    expect(await coll.findOne({ _id: "p-this" })).toEqual({ _id: "p-this", name: "this" });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBe(backend); // not the wrapper: its reads would all go through it
  } finally {
    spy.mockRestore();
  }
  // Restored: the backend's own method again, the spy no longer called.
  expect(await coll.findOne({ _id: "p-this" })).toEqual({ _id: "p-this", name: "this" });
  expect(seen).toHaveLength(1);
  expect(coll.name).toBe("plain");
});

test("a wrapped collection's members that can never change are answered as they are", () => {
  const fixed = () => "fixed";
  class Odd {
    readonly name = "odd";
  }
  const backend = Object.defineProperty(new Odd(), "fixed", {
    value: fixed,
    writable: false,
    configurable: false,
  });
  const odd = notingKeyedInserts({ collection: () => backend } as unknown as Store).collection("odd");
  // A Proxy answering a bound copy of a non-configurable, read-only member would throw a TypeError.
  expect((odd as unknown as { fixed: unknown }).fixed).toBe(fixed);
  expect((odd as unknown as { constructor: unknown }).constructor).toBe(Odd);
  expect(odd.name).toBe("odd");
});
