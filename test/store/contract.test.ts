/**
 * One contract, every backend: the same calls must give MongoDB's answers from the embedded
 * store, from the store service over a local broker and over real NATS, and from MongoDB itself
 * (MONGO_URL, or a throwaway mongo:7 container when Docker answers).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { ServiceBroker } from "moleculer";
import { MongoClient } from "mongodb";
import storeService from "../../services/store/store.service";
import { loadConfig } from "../../shared/config";
import { StoreRuleError } from "../../shared/errors";
import { EmbeddedBackend } from "../../shared/store/embedded/backend";
import { MongoBackend, mongoClientOptions } from "../../shared/store/mongo";
import { RemoteBackend } from "../../shared/store/remote";
import {
  chooseBackend,
  createStore,
  DuplicateKeyError,
  type Collection,
  type Doc,
  type Store,
} from "../../shared/store";

// This suite's collections are its own, not the platform's: the index plan's check (the run's
// STORE_QUERY_SHAPES, docs/architecture.md#indexes) is not for them. jest gives each suite its own env.
delete process.env.STORE_QUERY_SHAPES;

interface Harness {
  store: Store;
  teardown: () => Promise<void>;
}
interface Capabilities {
  /** insertMany/updateMany write all or nothing (MongoDB writes up to the failing document). */
  allOrNothingBatches: boolean;
}

const HEX24 = /^[0-9a-f]{24}$/;
const RUN = randomUUID().slice(0, 8);

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "store-contract-"));
}

const ids = (docs: Doc[]) => docs.map((d) => d._id).sort();
const inOrder = (docs: Doc[]) => docs.map((d) => d._id);

async function rejection(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error("expected a rejection");
}

function describeStoreContract(name: string, makeStore: () => Promise<Harness>, caps: Capabilities): void {
  describe(`Store contract: ${name}`, () => {
    let harness: Harness | undefined;
    let counter = 0;
    const fresh = <T extends Doc = Doc>(label: string): Collection<T> =>
      harness!.store.collection<T>(`${label}_${RUN}_${counter++}`);

    beforeAll(async () => {
      harness = await makeStore();
    }, 180_000);
    afterAll(async () => {
      await harness?.teardown();
    }, 60_000);

    const people = [
      {
        _id: "p1",
        name: "ann",
        age: 31,
        tags: ["admin", "dev"],
        address: { city: "Oslo", zip: "0150" },
        scores: [
          { subject: "math", score: 90 },
          { subject: "art", score: 70 },
        ],
        active: true,
      },
      {
        _id: "p2",
        name: "bob",
        age: 25,
        tags: ["dev"],
        address: { city: "Bergen" },
        scores: [{ subject: "math", score: 60 }],
        active: false,
      },
      {
        _id: "p3",
        name: "cid",
        age: 42,
        tags: [],
        address: { city: "Oslo", zip: "0151" },
        scores: [],
        active: true,
        nick: null,
      },
      {
        _id: "p4",
        name: "dee",
        age: 19,
        tags: ["ops"],
        scores: [{ subject: "art", score: 95 }],
        active: true,
      },
    ];
    async function peopleCollection(): Promise<Collection> {
      const c = fresh("people");
      await c.insertMany(people);
      return c;
    }

    test("ping answers", async () => {
      await expect(harness!.store.ping()).resolves.toBeUndefined();
    });

    test("_id: generated as 24-hex strings, caller-chosen string kept", async () => {
      const c = fresh("ids");
      const a = await c.insertOne({ name: "a" });
      expect(a._id).toMatch(HEX24);
      expect(a).toEqual({ _id: a._id, name: "a" });
      const b = await c.insertOne({ _id: "custom-1", name: "b" });
      expect(b._id).toBe("custom-1");
      const many = await c.insertMany([{ name: "c" }, { name: "d" }]);
      expect(many.map((d) => d.name)).toEqual(["c", "d"]);
      for (const d of many) expect(d._id).toMatch(HEX24);
      expect(new Set([a._id, ...many.map((d) => d._id)]).size).toBe(3);
      expect(await c.findOne({ _id: a._id })).toEqual({ _id: a._id, name: "a" });
      expect(await c.findOne({ _id: "custom-1" })).toEqual({ _id: "custom-1", name: "b" });
      expect(await c.count()).toBe(4);
    });

    test("documents returned are copies", async () => {
      const c = fresh("copies");
      const input = { _id: "c1", tags: ["x"], nested: { v: 1 } };
      const inserted = await c.insertOne(input);
      input.tags.push("from-input");
      inserted.tags.push("from-insert");
      inserted.nested.v = 2;
      const found = (await c.findOne({ _id: "c1" }))!;
      expect(found).toEqual({ _id: "c1", tags: ["x"], nested: { v: 1 } });
      found.tags.push("from-find");
      (await c.find({}))[0].nested.v = 3;
      const after = await c.findOneAndUpdate({ _id: "c1" }, { $set: { n: 1 } });
      after!.tags.push("from-fau");
      expect(await c.findOne({ _id: "c1" })).toEqual({ _id: "c1", tags: ["x"], nested: { v: 1 }, n: 1 });
    });

    test("a read-only find answers what a find answers, page after page, through writes", async () => {
      const c = await peopleCollection();
      const page = { sort: { age: -1 }, limit: 2, projection: { name: 1, tags: 1 } } as const;
      for (let i = 0; i < 3; i++) {
        const expected = await c.find({ active: true }, page);
        expect(await c.find({ active: true }, { ...page, readOnly: true })).toEqual(expected);
      }
      await c.updateOne({ _id: "p4" }, { $set: { age: 99 }, $push: { tags: "lead" } });
      const after = await c.find({ active: true }, { ...page, readOnly: true });
      expect(after[0]).toEqual({ _id: "p4", name: "dee", tags: ["ops", "lead"] });
      // A plain find after it still answers copies the caller may change.
      const mine = await c.find({ active: true }, page);
      mine[0].tags.push("mine");
      expect(await c.find({ active: true }, { ...page, readOnly: true })).toEqual(after);
    });

    test("Date-free JSON documents round trip unchanged", async () => {
      const c = fresh("json");
      const doc = {
        _id: "j1",
        s: 'héllo ☃ 😀 "quoted" \n newline',
        int: 42,
        neg: -7,
        big: 2 ** 53 - 1,
        float: 0.1,
        zero: 0,
        t: true,
        f: false,
        nil: null,
        empty: {},
        emptyList: [],
        list: [1, "two", null, { three: [3, { four: 4 }] }, [5, [6]]],
        deep: { a: { b: { c: { d: "e" } } } },
      };
      await c.insertOne(doc);
      expect(await c.findOne({ _id: "j1" })).toEqual(doc);
      expect(await c.find({ "deep.a.b.c.d": "e" })).toEqual([doc]);
    });

    test("filters: equality, comparison, $in/$nin", async () => {
      const c = await peopleCollection();
      expect(ids(await c.find({ age: 31 }))).toEqual(["p1"]);
      expect(ids(await c.find({ age: { $eq: 25 } }))).toEqual(["p2"]);
      expect(ids(await c.find({ name: { $ne: "ann" } }))).toEqual(["p2", "p3", "p4"]);
      expect(ids(await c.find({ age: { $gt: 30 } }))).toEqual(["p1", "p3"]);
      expect(ids(await c.find({ age: { $gte: 31 } }))).toEqual(["p1", "p3"]);
      expect(ids(await c.find({ age: { $lt: 25 } }))).toEqual(["p4"]);
      expect(ids(await c.find({ age: { $lte: 25 } }))).toEqual(["p2", "p4"]);
      expect(ids(await c.find({ age: { $gt: 20, $lt: 40 } }))).toEqual(["p1", "p2"]);
      expect(ids(await c.find({ name: { $in: ["ann", "dee", "zed"] } }))).toEqual(["p1", "p4"]);
      expect(ids(await c.find({ name: { $nin: ["ann", "dee"] } }))).toEqual(["p2", "p3"]);
      expect(ids(await c.find({ tags: { $in: ["ops", "admin"] } }))).toEqual(["p1", "p4"]);
      expect(ids(await c.find({ _id: { $in: ["p3", "p1", "nope"] } }))).toEqual(["p1", "p3"]);
      expect(ids(await c.find({ _id: "p2", active: true }))).toEqual([]);
    });

    test("filters: $regex, $exists, null", async () => {
      const c = await peopleCollection();
      expect(ids(await c.find({ name: { $regex: "^[ab]" } }))).toEqual(["p1", "p2"]);
      expect(ids(await c.find({ name: { $regex: "^B", $options: "i" } }))).toEqual(["p2"]);
      expect(ids(await c.find({ "address.zip": { $exists: true } }))).toEqual(["p1", "p3"]);
      expect(ids(await c.find({ address: { $exists: false } }))).toEqual(["p4"]);
      expect(ids(await c.find({ nick: { $exists: true } }))).toEqual(["p3"]);
      // null matches both null and missing, as in MongoDB
      expect(ids(await c.find({ nick: null }))).toEqual(["p1", "p2", "p3", "p4"]);
    });

    test("filters: $and, $or, $elemMatch, dot paths into objects and arrays", async () => {
      const c = await peopleCollection();
      expect(ids(await c.find({ $and: [{ age: { $gt: 20 } }, { active: true }] }))).toEqual(["p1", "p3"]);
      expect(ids(await c.find({ $or: [{ age: { $lt: 20 } }, { "address.city": "Bergen" }] }))).toEqual([
        "p2",
        "p4",
      ]);
      expect(ids(await c.find({ "address.city": "Oslo" }))).toEqual(["p1", "p3"]);
      expect(ids(await c.find({ tags: "dev" }))).toEqual(["p1", "p2"]);
      expect(ids(await c.find({ "tags.0": "dev" }))).toEqual(["p2"]);
      expect(ids(await c.find({ "scores.score": { $gt: 92 } }))).toEqual(["p4"]);
      expect(ids(await c.find({ "scores.0.subject": "art" }))).toEqual(["p4"]);
      // Without $elemMatch the two conditions may hold on different elements (p1); with it, on one.
      expect(ids(await c.find({ "scores.subject": "art", "scores.score": { $gte: 80 } }))).toEqual([
        "p1",
        "p4",
      ]);
      expect(ids(await c.find({ scores: { $elemMatch: { subject: "art", score: { $gte: 80 } } } }))).toEqual([
        "p4",
      ]);
      expect(ids(await c.find({ scores: { $elemMatch: { subject: "math", score: { $gte: 80 } } } }))).toEqual(
        ["p1"],
      );
    });

    test("sort (multi-key, nested, missing fields first), skip and limit", async () => {
      const c = await peopleCollection();
      expect(inOrder(await c.find({}, { sort: { active: -1, age: 1 } }))).toEqual(["p4", "p1", "p3", "p2"]);
      expect(inOrder(await c.find({}, { sort: { "address.city": 1, name: -1 } }))).toEqual([
        "p4",
        "p2",
        "p3",
        "p1",
      ]);
      expect(inOrder(await c.find({}, { sort: { age: 1 }, skip: 1, limit: 2 }))).toEqual(["p2", "p1"]);
      expect(inOrder(await c.find({}, { sort: { age: 1 }, limit: 1 }))).toEqual(["p4"]);
      expect(inOrder(await c.find({}, { sort: { age: 1 }, skip: 3 }))).toEqual(["p3"]);
      expect(inOrder(await c.find({ active: true }, { sort: { age: -1 }, skip: 1 }))).toEqual(["p1", "p4"]);
      expect((await c.findOne({ active: true }, { sort: { age: -1 } }))!._id).toBe("p3");
      expect(inOrder(await c.find({}, { sort: { "scores.score": 1 } }))).toEqual(["p3", "p2", "p1", "p4"]);
      expect(inOrder(await c.find({}, { sort: { "scores.score": -1 } }))).toEqual(["p4", "p1", "p2", "p3"]);
      // An array sorts by its smallest element ascending, by its largest descending.
      const arrays = fresh("arraysort");
      await arrays.insertMany([
        { _id: "x", v: [10, 100] },
        { _id: "y", v: [50] },
        { _id: "z", v: 20 },
        { _id: "w" },
      ]);
      expect(inOrder(await arrays.find({}, { sort: { v: 1 } }))).toEqual(["w", "x", "z", "y"]);
      expect(inOrder(await arrays.find({}, { sort: { v: -1 } }))).toEqual(["x", "y", "z", "w"]);
    });

    test("projection never changes the stored document (nested exclusion)", async () => {
      const c = fresh("projection_keeps");
      await c.insertOne({ _id: "k1", m: { user: "ann", n: 1 }, list: [{ a: 1, b: 2 }] });
      expect(await c.find({}, { projection: { "m.user": 0, "list.b": 0 } })).toEqual([
        { _id: "k1", m: { n: 1 }, list: [{ a: 1 }] },
      ]);
      expect(await c.findOne({ _id: "k1" })).toEqual({
        _id: "k1",
        m: { user: "ann", n: 1 },
        list: [{ a: 1, b: 2 }],
      });
      // A later write must not persist a projected shape either.
      await c.updateOne({ _id: "k1" }, { $set: { touched: true } });
      expect(await c.findOne({ _id: "k1" })).toEqual({
        _id: "k1",
        m: { user: "ann", n: 1 },
        list: [{ a: 1, b: 2 }],
        touched: true,
      });
    });

    test("projection: inclusion and exclusion", async () => {
      const c = await peopleCollection();
      expect(await c.findOne({ _id: "p1" }, { projection: { name: 1, "address.city": 1 } })).toEqual({
        _id: "p1",
        name: "ann",
        address: { city: "Oslo" },
      });
      expect(await c.find({ _id: "p1" }, { projection: { name: 1, _id: 0 } })).toEqual([{ name: "ann" }]);
      expect(await c.findOne({ _id: "p2" }, { projection: { scores: 0, tags: 0, address: 0 } })).toEqual({
        _id: "p2",
        name: "bob",
        age: 25,
        active: false,
      });
      expect(
        await c.findOne({ _id: "p1" }, { projection: { "address.zip": 0, scores: 0, tags: 0 } }),
      ).toEqual({
        _id: "p1",
        name: "ann",
        age: 31,
        address: { city: "Oslo" },
        active: true,
      });
      const sorted = await c.find({}, { sort: { age: -1 }, limit: 2, projection: { age: 1 } });
      expect(sorted).toEqual([
        { _id: "p3", age: 42 },
        { _id: "p1", age: 31 },
      ]);
    });

    test("count and findOne", async () => {
      const c = await peopleCollection();
      expect(await c.count()).toBe(4);
      expect(await c.count({ active: true })).toBe(3);
      expect(await c.count({ age: { $gt: 100 } })).toBe(0);
      expect(await fresh("empty").count()).toBe(0);
      expect(await fresh("empty").find()).toEqual([]);
      expect(await c.findOne({ name: "zed" })).toBeNull();
      expect((await c.findOne({ name: "bob" }))!.age).toBe(25);
    });

    test("update operators: $set/$unset/$inc with dot paths", async () => {
      const c = await peopleCollection();
      await c.updateOne(
        { _id: "p1" },
        { $set: { "profile.theme": "dark", name: "anna", "address.city": "Bergen" } },
      );
      await c.updateOne({ _id: "p1" }, { $unset: { "address.zip": "", tags: "" } });
      await c.updateOne({ _id: "p1" }, { $inc: { age: 2, "stats.logins": 1 } });
      await c.updateOne({ _id: "p1" }, { $inc: { "stats.logins": 5 } });
      await c.updateOne({ _id: "p1" }, { $set: { "scores.1.score": 71 } });
      expect(await c.findOne({ _id: "p1" })).toEqual({
        _id: "p1",
        name: "anna",
        age: 33,
        address: { city: "Bergen" },
        scores: [
          { subject: "math", score: 90 },
          { subject: "art", score: 71 },
        ],
        active: true,
        profile: { theme: "dark" },
        stats: { logins: 6 },
      });
    });

    test("update operators: $push/$pull/$addToSet and the positional $", async () => {
      const c = await peopleCollection();
      await c.updateOne({ _id: "p1" }, { $push: { tags: "new" } });
      await c.updateOne({ _id: "p1" }, { $push: { tags: { $each: ["a", "b"] } } });
      expect((await c.findOne({ _id: "p1" }))!.tags).toEqual(["admin", "dev", "new", "a", "b"]);
      await c.updateOne({ _id: "p1" }, { $pull: { tags: { $in: ["a", "b"] } } });
      await c.updateOne({ _id: "p1" }, { $pull: { scores: { score: { $lt: 80 } } } });
      expect(await c.updateOne({ _id: "p1" }, { $addToSet: { tags: "dev" } })).toEqual({
        matchedCount: 1,
        modifiedCount: 0,
      });
      await c.updateOne({ _id: "p1" }, { $addToSet: { tags: { $each: ["dev", "qa"] } } });
      await c.updateOne({ _id: "p2", "scores.subject": "math" }, { $set: { "scores.$.score": 99 } });
      await c.updateOne({ _id: "p3" }, { $push: { tags: "first" } });
      const p1 = await c.findOne({ _id: "p1" }, { projection: { tags: 1, scores: 1 } });
      expect(p1).toEqual({
        _id: "p1",
        tags: ["admin", "dev", "new", "qa"],
        scores: [{ subject: "math", score: 90 }],
      });
      expect((await c.findOne({ _id: "p2" }))!.scores).toEqual([{ subject: "math", score: 99 }]);
      expect((await c.findOne({ _id: "p3" }))!.tags).toEqual(["first"]);
    });

    test("updateOne / updateMany answer matched and modified counts", async () => {
      const c = await peopleCollection();
      const changed = await c.updateOne({ name: "ann" }, { $set: { age: 32 } });
      expect(changed).toEqual({ matchedCount: 1, modifiedCount: 1 });
      expect(changed.upsertedId).toBeUndefined();
      expect(await c.updateOne({ name: "ann" }, { $set: { age: 32 } })).toEqual({
        matchedCount: 1,
        modifiedCount: 0,
      });
      expect(await c.updateOne({ name: "zed" }, { $set: { age: 1 } })).toEqual({
        matchedCount: 0,
        modifiedCount: 0,
      });
      expect(await c.updateOne({ active: true }, { $inc: { visits: 1 } })).toEqual({
        matchedCount: 1,
        modifiedCount: 1,
      });
      expect(await c.count({ visits: 1 })).toBe(1);
      await c.updateOne({ _id: "p3" }, { $set: { flag: 1 } });
      expect(await c.updateMany({ active: true }, { $set: { flag: 1 } })).toEqual({
        matchedCount: 3,
        modifiedCount: 2,
      });
      expect(await c.updateMany({ active: true }, { $set: { flag: 1 } })).toEqual({
        matchedCount: 3,
        modifiedCount: 0,
      });
      expect(await c.updateMany({ age: { $gt: 100 } }, { $set: { flag: 2 } })).toEqual({
        matchedCount: 0,
        modifiedCount: 0,
      });
      expect(ids(await c.find({ flag: 1 }))).toEqual(["p1", "p3", "p4"]);
      expect(await c.updateMany({}, { $inc: { age: 1 } })).toEqual({ matchedCount: 4, modifiedCount: 4 });
      expect(
        (await c.find({}, { sort: { age: 1 }, projection: { age: 1, _id: 0 } })).map((d) => d.age),
      ).toEqual([20, 26, 33, 43]);
    });

    test("upsert answers upsertedId and applies $setOnInsert only on insert", async () => {
      const c = fresh("upsert");
      const first = await c.updateOne(
        { email: "new@example.com" },
        { $set: { name: "N" }, $setOnInsert: { createdBy: "upsert" } },
        { upsert: true },
      );
      expect(first.matchedCount).toBe(0);
      expect(first.modifiedCount).toBe(0);
      expect(first.upsertedId).toMatch(HEX24);
      expect(await c.findOne({ _id: first.upsertedId })).toEqual({
        _id: first.upsertedId,
        email: "new@example.com",
        name: "N",
        createdBy: "upsert",
      });
      const second = await c.updateOne(
        { email: "new@example.com" },
        { $set: { name: "N" }, $setOnInsert: { createdBy: "second" } },
        { upsert: true },
      );
      expect(second).toEqual({ matchedCount: 1, modifiedCount: 0 });
      expect((await c.findOne({ email: "new@example.com" }))!.createdBy).toBe("upsert");

      expect(await c.updateOne({ _id: "fixed" }, { $inc: { n: 1 } }, { upsert: true })).toEqual({
        matchedCount: 0,
        modifiedCount: 0,
        upsertedId: "fixed",
      });
      await c.updateOne({ _id: "fixed" }, { $inc: { n: 1 } }, { upsert: true });
      expect(await c.findOne({ _id: "fixed" })).toEqual({ _id: "fixed", n: 2 });

      const nested = await c.updateOne(
        { "owner.id": "u1", kind: { $eq: "k" }, score: { $gt: 5 } },
        { $set: { score: 10 } },
        { upsert: true },
      );
      expect(await c.findOne({ _id: nested.upsertedId })).toEqual({
        _id: nested.upsertedId,
        owner: { id: "u1" },
        kind: "k",
        score: 10,
      });
      expect(await c.count()).toBe(3);
    });

    test("a find answering more than one bus message holds (3 MiB) comes back whole, paged by skip and limit", async () => {
      const c = fresh("large");
      const blob = "x".repeat(128 * 1024);
      for (let i = 0; i < 24; i++) await c.insertOne({ _id: `d${String(i).padStart(2, "0")}`, i, blob });
      const all = await c.find({}, { sort: { i: 1 } });
      expect(all.map((d) => d.i)).toEqual(Array.from({ length: 24 }, (_, i) => i));
      expect(all.every((d) => d.blob.length === blob.length)).toBe(true);
      const some = await c.find({}, { sort: { i: 1 }, skip: 5, limit: 15 });
      expect(some.map((d) => d.i)).toEqual(Array.from({ length: 15 }, (_, i) => i + 5));
      expect((await c.find({ i: { $gte: 20 } }, { sort: { i: -1 } })).map((d) => d.i)).toEqual([
        23, 22, 21, 20,
      ]);
    });

    test("a read-only findOneAndUpdate answers what a findOneAndUpdate answers (update, upsert, before, projection)", async () => {
      const c = fresh("fau-ro");
      await c.insertMany([
        { _id: "a", spec: [{ words: ["x"] }], n: 0 },
        { _id: "b", spec: [], n: 0 },
      ]);
      const plain = fresh("fau-plain");
      await plain.insertMany([
        { _id: "a", spec: [{ words: ["x"] }], n: 0 },
        { _id: "b", spec: [], n: 0 },
      ]);
      const calls: [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>][] = [
        [{ _id: "a" }, { $set: { spec: [{ words: ["y"] }] }, $inc: { n: 1 } }, {}],
        [{ _id: "b" }, { $inc: { n: 5 } }, { returnDocument: "before" }],
        [{ _id: "a" }, { $set: { m: 1 } }, { projection: { spec: 0 } }],
        [{ path: "new" }, { $set: { spec: [{ words: ["z"] }] }, $setOnInsert: { n: 0 } }, { upsert: true }],
        [{ _id: "zz" }, { $set: { n: 1 } }, {}],
      ];
      for (const [filter, update, options] of calls) {
        const expected = await plain.findOneAndUpdate(filter as never, update as never, options);
        const answer = await c.findOneAndUpdate(filter as never, update as never, {
          ...options,
          readOnly: true,
        });
        if (expected && "_id" in expected && filter.path) expected._id = answer!._id;
        expect(answer).toEqual(expected);
      }
      // The stored documents are the same either way.
      expect(await c.find({}, { sort: { n: 1 }, projection: { _id: 0 } })).toEqual(
        await plain.find({}, { sort: { n: 1 }, projection: { _id: 0 } }),
      );
    });

    test("findOneAndUpdate: before/after, upsert, sort, projection", async () => {
      const c = fresh("fau");
      await c.insertMany([
        { _id: "a", queue: "q", priority: 1, counter: 0 },
        { _id: "b", queue: "q", priority: 5, counter: 0 },
        { _id: "c", queue: "q", priority: 3, counter: 0 },
      ]);
      const before = await c.findOneAndUpdate(
        { _id: "a" },
        { $inc: { counter: 1 } },
        { returnDocument: "before" },
      );
      expect(before).toEqual({ _id: "a", queue: "q", priority: 1, counter: 0 });
      const after = await c.findOneAndUpdate({ _id: "a" }, { $inc: { counter: 1 } });
      expect(after).toEqual({ _id: "a", queue: "q", priority: 1, counter: 2 });
      expect(await c.findOneAndUpdate({ _id: "zz" }, { $set: { x: 1 } })).toBeNull();
      expect(await c.count()).toBe(3);

      const top = await c.findOneAndUpdate(
        { queue: "q", taken: { $exists: false } },
        { $set: { taken: true } },
        { sort: { priority: -1 }, projection: { priority: 1, taken: 1 } },
      );
      expect(top).toEqual({ _id: "b", priority: 5, taken: true });
      const next = await c.findOneAndUpdate(
        { queue: "q", taken: { $exists: false } },
        { $set: { taken: true } },
        { sort: { priority: -1 } },
      );
      expect(next!._id).toBe("c");

      const upserted = await c.findOneAndUpdate({ name: "up" }, { $set: { v: 1 } }, { upsert: true });
      expect(upserted).toEqual({ _id: expect.stringMatching(HEX24), name: "up", v: 1 });
      const upsertedBefore = await c.findOneAndUpdate(
        { name: "up2" },
        { $set: { v: 2 } },
        { upsert: true, returnDocument: "before" },
      );
      expect(upsertedBefore).toBeNull();
      expect(await c.findOne({ name: "up2" }, { projection: { _id: 0 } })).toEqual({ name: "up2", v: 2 });
    });

    test("findOneAndUpdate is atomic: of 50 concurrent claims exactly one wins", async () => {
      const c = fresh("claims");
      await c.insertOne({ _id: "job", claimed: false });
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          c.findOneAndUpdate({ _id: "job", claimed: false }, { $set: { claimed: true, by: i } }),
        ),
      );
      const winners = results.filter((r) => r !== null);
      expect(winners).toHaveLength(1);
      expect(await c.findOne({ _id: "job" })).toEqual({ _id: "job", claimed: true, by: winners[0]!.by });

      await c.insertOne({ _id: "seq", n: 0 });
      const numbers = await Promise.all(
        Array.from({ length: 50 }, () => c.findOneAndUpdate({ _id: "seq" }, { $inc: { n: 1 } })),
      );
      expect(numbers.map((d) => d!.n).sort((x, y) => x - y)).toEqual(
        Array.from({ length: 50 }, (_, i) => i + 1),
      );
    });

    test("findOneAndDelete, deleteOne and deleteMany", async () => {
      const c = await peopleCollection();
      expect(await c.findOneAndDelete({ name: "bob" })).toEqual(people[1]);
      expect(await c.findOneAndDelete({ name: "bob" })).toBeNull();
      expect(await c.count()).toBe(3);
      expect(await c.deleteOne({ name: "zed" })).toBe(0);
      expect(await c.deleteOne({ active: true })).toBe(1);
      expect(await c.count()).toBe(2);
      expect(await c.deleteMany({ age: { $gt: 1000 } })).toBe(0);
      expect(await c.deleteMany({ active: true })).toBe(2);
      expect(await c.count()).toBe(0);
      await c.insertMany([{ x: 1 }, { x: 2 }, { x: 3 }]);
      expect(await c.deleteMany({})).toBe(3);
      expect(await c.find()).toEqual([]);
    });

    test("unique index: DuplicateKeyError on insert and on update, nothing written", async () => {
      const c = fresh("users");
      await c.createIndex({ keys: { email: 1 }, unique: true });
      await c.insertOne({ _id: "a", email: "a@x" });
      await c.insertOne({ _id: "b", email: "b@x" });

      const onInsert = await rejection(c.insertOne({ _id: "c", email: "a@x" }));
      expect(onInsert).toBeInstanceOf(DuplicateKeyError);
      expect(onInsert.collection).toBe(c.name);
      expect(onInsert.key).toEqual({ email: "a@x" });
      expect(await c.count()).toBe(2);

      const onId = await rejection(c.insertOne({ _id: "a", email: "other@x" }));
      expect(onId).toBeInstanceOf(DuplicateKeyError);
      expect(onId.key).toEqual({ _id: "a" });

      expect(
        await rejection(c.updateOne({ _id: "b" }, { $set: { email: "a@x", touched: true } })),
      ).toBeInstanceOf(DuplicateKeyError);
      expect(await rejection(c.findOneAndUpdate({ _id: "b" }, { $set: { email: "a@x" } }))).toBeInstanceOf(
        DuplicateKeyError,
      );
      expect(
        await rejection(c.updateOne({ email: "z@x" }, { $set: { email: "a@x" } }, { upsert: true })),
      ).toBeInstanceOf(DuplicateKeyError);
      expect(await c.find({}, { sort: { _id: 1 } })).toEqual([
        { _id: "a", email: "a@x" },
        { _id: "b", email: "b@x" },
      ]);

      // Keys are released by updates and deletes.
      await c.updateOne({ _id: "a" }, { $set: { email: "a2@x" } });
      await c.insertOne({ _id: "c", email: "a@x" });
      await c.deleteOne({ _id: "c" });
      await c.insertOne({ _id: "d", email: "a@x" });
      expect(ids(await c.find())).toEqual(["a", "b", "d"]);
    });

    test("unique index: a missing field indexes as null, so a second document without it clashes", async () => {
      const c = fresh("nulls");
      await c.createIndex({ keys: { email: 1 }, unique: true });
      await c.insertOne({ _id: "x" });
      const err = await rejection(c.insertOne({ _id: "y", name: "no email" }));
      expect(err).toBeInstanceOf(DuplicateKeyError);
      expect(ids(await c.find())).toEqual(["x"]);
    });

    test("compound unique index", async () => {
      const c = fresh("slugs");
      await c.createIndex({ keys: { tenant: 1, slug: 1 }, unique: true, name: "tenant_slug" });
      await c.insertOne({ tenant: "t1", slug: "x" });
      await c.insertOne({ tenant: "t2", slug: "x" });
      await c.insertOne({ tenant: "t1", slug: "y" });
      const err = await rejection(c.insertOne({ tenant: "t1", slug: "x" }));
      expect(err).toBeInstanceOf(DuplicateKeyError);
      expect(err.key).toEqual({ tenant: "t1", slug: "x" });
      expect(await c.count()).toBe(3);
    });

    test("createIndex is idempotent; non-unique indexes allow duplicates", async () => {
      const c = fresh("idx");
      await c.createIndex({ keys: { a: 1 }, name: "by_a" });
      await c.createIndex({ keys: { a: 1 }, name: "by_a" });
      await c.createIndex({ keys: { code: 1 }, unique: true });
      await c.createIndex({ keys: { code: 1 }, unique: true });
      await c.insertMany([
        { a: 1, code: "c1" },
        { a: 1, code: "c2" },
      ]);
      expect(await c.count({ a: 1 })).toBe(2);
      expect(await rejection(c.insertOne({ a: 2, code: "c1" }))).toBeInstanceOf(DuplicateKeyError);
    });

    test("dropIndex removes the index and its rule; an absent one, or a second drop, is nothing", async () => {
      const c = fresh("dropidx");
      await c.dropIndex("code_1"); // on a collection that does not exist yet
      await c.createIndex({ keys: { code: 1 }, unique: true });
      await c.insertOne({ code: "c1" });
      expect(await rejection(c.insertOne({ code: "c1" }))).toBeInstanceOf(DuplicateKeyError);
      await c.dropIndex("code_1");
      await c.dropIndex("code_1");
      await c.dropIndex("never_declared");
      await c.insertOne({ code: "c1" });
      expect(await c.count({ code: "c1" })).toBe(2);
    });

    test("expiry index: idempotent; expired documents go (MongoDB: its background pass; here: before a write)", async () => {
      const c = fresh("ttl");
      await c.createIndex({ keys: { expireAt: 1 }, expireAfterSeconds: 0 });
      await c.createIndex({ keys: { expireAt: 1 }, expireAfterSeconds: 0 });
      const past = new Date(Date.now() - 60_000);
      const future = new Date(Date.now() + 3_600_000);
      await c.insertMany([
        { _id: "old", expireAt: past },
        { _id: "new", expireAt: future },
      ]);
      // MongoDB removes expired documents about once a minute: only the index itself is checked there.
      if (harness!.store.backend === "mongo") return;
      await new Promise((r) => setTimeout(r, 1100));
      await c.insertOne({ _id: "later", expireAt: future });
      expect(ids(await c.find())).toEqual(["later", "new"]);
    });

    test("creating a unique index over existing duplicates fails", async () => {
      const c = fresh("dupes");
      await c.insertMany([{ k: 1 }, { k: 1 }]);
      expect(await rejection(c.createIndex({ keys: { k: 1 }, unique: true }))).toBeInstanceOf(
        DuplicateKeyError,
      );
      await c.insertOne({ k: 1 });
      expect(await c.count({ k: 1 })).toBe(3);
    });

    if (caps.allOrNothingBatches) {
      test("insertMany and updateMany write all or nothing on a unique clash", async () => {
        const c = fresh("batches");
        await c.createIndex({ keys: { n: 1 }, unique: true });
        await c.insertMany([
          { _id: "a", n: 1 },
          { _id: "b", n: 2 },
        ]);
        expect(
          await rejection(
            c.insertMany([
              { _id: "c", n: 3 },
              { _id: "d", n: 1 },
            ]),
          ),
        ).toBeInstanceOf(DuplicateKeyError);
        expect(
          await rejection(
            c.insertMany([
              { _id: "e", n: 5 },
              { _id: "e", n: 6 },
            ]),
          ),
        ).toBeInstanceOf(DuplicateKeyError);
        expect(await rejection(c.updateMany({}, { $set: { n: 7 } }))).toBeInstanceOf(DuplicateKeyError);
        expect(await c.find({}, { sort: { _id: 1 } })).toEqual([
          { _id: "a", n: 1 },
          { _id: "b", n: 2 },
        ]);
        // Every key of the batch is checked against the new images, not against the old ones being replaced.
        expect(await c.updateMany({}, { $mul: { n: -1 } })).toEqual({ matchedCount: 2, modifiedCount: 2 });
        expect((await c.find({}, { sort: { _id: 1 } })).map((d) => d.n)).toEqual([-1, -2]);
      });
    }

    describe("aggregate", () => {
      let orders: Collection;
      let customers: Collection;
      beforeAll(async () => {
        orders = fresh("orders");
        customers = fresh("customers");
        await orders.insertMany([
          {
            _id: "o1",
            customer: "c1",
            amount: 10,
            items: ["pen", "ink"],
            at: "2024-01-05T10:00:00.000Z",
            ship: { city: "Oslo" },
          },
          { _id: "o2", customer: "c1", amount: 30, items: ["pad"], at: "2024-01-05T18:30:00.000Z" },
          { _id: "o3", customer: "c2", amount: 20, items: ["pen"], at: "2024-01-06T09:00:00.000Z" },
          { _id: "o4", customer: "c3", amount: 5, items: [], at: "2024-02-01T00:00:00.000Z" },
        ]);
        await customers.insertMany([
          { _id: "c1", name: "Ann" },
          { _id: "c2", name: "Bob" },
        ]);
      });

      test("$match, $group with $sum/$avg/$min/$max/$push, $sort", async () => {
        const out = await orders.aggregate([
          { $match: { amount: { $gte: 10 } } },
          { $sort: { _id: 1 } },
          {
            $group: {
              _id: "$customer",
              total: { $sum: "$amount" },
              n: { $sum: 1 },
              avg: { $avg: "$amount" },
              min: { $min: "$amount" },
              max: { $max: "$amount" },
              orders: { $push: "$_id" },
            },
          },
          { $sort: { _id: 1 } },
        ]);
        expect(out).toEqual([
          { _id: "c1", total: 40, n: 2, avg: 20, min: 10, max: 30, orders: ["o1", "o2"] },
          { _id: "c2", total: 20, n: 1, avg: 20, min: 20, max: 20, orders: ["o3"] },
        ]);
      });

      test("$sort, $skip, $limit, $project, $addFields", async () => {
        expect(
          await orders.aggregate([
            { $sort: { amount: -1 } },
            { $skip: 1 },
            { $limit: 2 },
            { $addFields: { double: { $multiply: ["$amount", 2] } } },
            { $project: { _id: 0, id: "$_id", amount: 1, double: 1 } },
          ]),
        ).toEqual([
          { id: "o3", amount: 20, double: 40 },
          { id: "o1", amount: 10, double: 20 },
        ]);
      });

      test("$unwind and $count (no document when nothing is counted)", async () => {
        expect(
          await orders.aggregate([
            { $unwind: "$items" },
            { $group: { _id: "$items", n: { $sum: 1 } } },
            { $sort: { _id: 1 } },
          ]),
        ).toEqual([
          { _id: "ink", n: 1 },
          { _id: "pad", n: 1 },
          { _id: "pen", n: 2 },
        ]);
        expect(await orders.aggregate([{ $match: { amount: { $gte: 10 } } }, { $count: "n" }])).toEqual([
          { n: 3 },
        ]);
        expect(await orders.aggregate([{ $match: { amount: { $gte: 1000 } } }, { $count: "n" }])).toEqual([]);
      });

      test("$lookup between two collections", async () => {
        expect(
          await orders.aggregate([
            { $match: { _id: { $in: ["o1", "o4"] } } },
            { $lookup: { from: customers.name, localField: "customer", foreignField: "_id", as: "cust" } },
            { $project: { cust: 1 } },
            { $sort: { _id: 1 } },
          ]),
        ).toEqual([
          { _id: "o1", cust: [{ _id: "c1", name: "Ann" }] },
          { _id: "o4", cust: [] },
        ]);
      });

      test("$facet", async () => {
        expect(
          await orders.aggregate([
            {
              $facet: {
                total: [{ $group: { _id: null, s: { $sum: "$amount" } } }],
                top: [{ $sort: { amount: -1 } }, { $limit: 1 }, { $project: { _id: 1 } }],
                none: [{ $match: { amount: { $gt: 1000 } } }, { $count: "n" }],
              },
            },
          ]),
        ).toEqual([{ total: [{ _id: null, s: 65 }], top: [{ _id: "o2" }], none: [] }]);
      });

      test("date bucketing on ISO strings: $substr and $dateToString of $toDate", async () => {
        expect(
          await orders.aggregate([
            { $group: { _id: { $substr: ["$at", 0, 10] }, n: { $sum: 1 }, total: { $sum: "$amount" } } },
            { $sort: { _id: 1 } },
          ]),
        ).toEqual([
          { _id: "2024-01-05", n: 2, total: 40 },
          { _id: "2024-01-06", n: 1, total: 20 },
          { _id: "2024-02-01", n: 1, total: 5 },
        ]);
        expect(
          await orders.aggregate([
            {
              $group: {
                _id: { $dateToString: { format: "%Y-%m", date: { $toDate: "$at" } } },
                n: { $sum: 1 },
              },
            },
            { $sort: { _id: 1 } },
          ]),
        ).toEqual([
          { _id: "2024-01", n: 3 },
          { _id: "2024-02", n: 1 },
        ]);
      });

      test("aggregation leaves stored documents alone", async () => {
        await orders.aggregate([
          { $addFields: { "ship.city": "changed", "extra.flag": true, amount: 0 } },
          { $unwind: "$items" },
          { $lookup: { from: customers.name, localField: "customer", foreignField: "_id", as: "c" } },
          { $unwind: "$c" },
          { $addFields: { "c.name": "changed" } },
        ]);
        expect(await orders.findOne({ _id: "o1" }, { projection: { amount: 1, ship: 1, extra: 1 } })).toEqual(
          {
            _id: "o1",
            amount: 10,
            ship: { city: "Oslo" },
          },
        );
        expect(await customers.findOne({ _id: "c1" })).toEqual({ _id: "c1", name: "Ann" });
      });
    });

    // MongoDB's rules (shared/store/rules.ts; test/store/mongo-rules.test.ts pins their words):
    // every backend refuses the same writes with MongoDB's code, so what passes here passes there.
    describe("MongoDB's rules", () => {
      const refused = async (promise: Promise<unknown>, storeCode: number, status = 400) => {
        const err = await rejection(promise);
        expect(err).toBeInstanceOf(StoreRuleError);
        expect({ storeCode: err.storeCode, code: err.code }).toEqual({ storeCode, code: status });
      };

      test("a document grown past 16 MiB is refused (BSONObjectTooLarge, 413); it keeps what it had", async () => {
        const c = fresh("big");
        await c.insertOne({ _id: "job", parts: {} });
        // Half-MiB steps: every call fits a bus message, the document does not fit MongoDB.
        const half = "p".repeat(512 * 1024);
        let step = 0;
        let err: any;
        for (; step < 40 && !err; step++)
          err = await c.updateOne({ _id: "job" }, { $set: { [`parts.p${step}`]: half } }).then(
            () => undefined,
            (e: unknown) => e,
          );
        expect(err).toBeInstanceOf(StoreRuleError);
        expect({ storeCode: err.storeCode, code: err.code }).toEqual({ storeCode: 10334, code: 413 });
        // 16 MiB holds 31 such members beside the rest, not 32.
        expect(step).toBe(32);
        const kept = await c.findOne({ _id: "job" }, { projection: { _id: 1 } });
        expect(kept).toEqual({ _id: "job" });
        expect(await c.count({ "parts.p30": { $exists: true }, "parts.p31": { $exists: false } })).toBe(1);
      }, 60_000);

      test("undefined in a filter is an error on every method, never a match-all: nothing is deleted", async () => {
        const c = fresh("undef");
        await c.insertMany([{ _id: "a", adapterId: "x" }, { _id: "b" }]);
        await refused(c.deleteMany({ adapterId: undefined }), 2);
        await refused(c.find({ adapterId: undefined }), 2);
        await refused(c.count({ $or: [{ adapterId: undefined }] }), 2);
        await refused(c.updateMany({ adapterId: { $in: [undefined] } }, { $set: { hit: 1 } }), 2);
        await refused(c.aggregate([{ $match: { adapterId: undefined } }]), 2);
        expect(ids(await c.find({}))).toEqual(["a", "b"]);
      });

      test("$inc on a string (TypeMismatch), $set through a scalar (PathNotViable), overlapping paths (ConflictingUpdateOperators)", async () => {
        const c = fresh("strict");
        await c.insertOne({ _id: "d", s: "text", nil: null, a: 1 });
        await refused(c.updateOne({ _id: "d" }, { $inc: { s: 1 } }), 14);
        await refused(c.updateOne({ _id: "d" }, { $inc: { nil: 1 } }), 14);
        await refused(c.updateOne({ _id: "d" }, { $set: { "a.b": 2 } }), 28);
        await refused(c.findOneAndUpdate({ _id: "d" }, { $set: { "nil.b": 2 } }), 28);
        await refused(c.updateOne({ _id: "d" }, { $set: { x: 1, "x.y": 2 } }), 40);
        await refused(c.updateMany({}, { $set: { x: 1 }, $inc: { x: 1 } }), 40);
        expect(await c.findOne({ _id: "d" })).toEqual({ _id: "d", s: "text", nil: null, a: 1 });
      });

      test("mixed types sort in MongoDB's order; an empty array below null and missing", async () => {
        const c = fresh("mixed");
        await c.insertMany([
          { _id: "t", v: true },
          { _id: "o", v: { x: 1 } },
          { _id: "s", v: "a" },
          { _id: "z", v: null },
          { _id: "n", v: 1 },
          { _id: "e", v: [] },
          { _id: "r", v: [2] },
        ]);
        expect(inOrder(await c.find({}, { sort: { v: 1 } }))).toEqual(["e", "z", "n", "r", "s", "o", "t"]);
        expect(inOrder(await c.find({}, { sort: { v: -1 } }))).toEqual(["t", "o", "s", "r", "n", "z", "e"]);
      });

      test("regex options: i, m, s, x and u are taken; another is refused", async () => {
        const c = fresh("regex");
        await c.insertMany([
          { _id: "a", s: "Hello\nWorld" },
          { _id: "b", s: "hello world" },
        ]);
        expect(ids(await c.find({ s: { $regex: "^ w o r l d # second line", $options: "imx" } }))).toEqual([
          "a",
        ]);
        expect(ids(await c.find({ s: { $regex: "hello.world", $options: "isu" } }))).toEqual(["a", "b"]);
        await refused(c.find({ s: { $regex: "x", $options: "g" } }), 51108);
      });
    });
  });
}

// --- the backends ---------------------------------------------------------------------------

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) fs.rmSync(dir, { recursive: true, force: true });
});
function newDataDir(): string {
  const dir = tempDir();
  temps.push(dir);
  return dir;
}

/** A broker running the store service on a data directory of its own (read by loadConfig). */
async function startStoreBroker(
  options: ConstructorParameters<typeof ServiceBroker>[0],
): Promise<ServiceBroker> {
  const broker = new ServiceBroker({ logger: false, ...options });
  broker.createService(storeService);
  const saved = process.env.DATA_DIR;
  process.env.DATA_DIR = newDataDir();
  try {
    await broker.start();
  } finally {
    if (saved === undefined) delete process.env.DATA_DIR;
    else process.env.DATA_DIR = saved;
  }
  return broker;
}

describeStoreContract(
  "embedded",
  async () => {
    const store = new EmbeddedBackend({ dataDir: newDataDir() });
    return { store, teardown: () => store.close() };
  },
  { allOrNothingBatches: true },
);

// Every document cold once its write is whole (doc-map.ts): each read parses it back from its text.
describeStoreContract(
  "embedded, documents held as text",
  async () => {
    const store = new EmbeddedBackend({ dataDir: newDataDir(), hotDocuments: 0 });
    return { store, teardown: () => store.close() };
  },
  { allOrNothingBatches: true },
);

describeStoreContract(
  "remote over a local broker",
  async () => {
    const broker = await startStoreBroker({ nodeID: `store-local-${RUN}` });
    return { store: new RemoteBackend(broker), teardown: () => broker.stop() };
  },
  { allOrNothingBatches: true },
);

describeStoreContract(
  "remote over NATS",
  async () => {
    const common = {
      transporter: {
        type: "NATS" as const,
        options: { url: process.env.NATS_URL ?? "nats://127.0.0.1:4222" },
      },
      namespace: `store-test-${RUN}`,
    };
    const server = await startStoreBroker({ ...common, nodeID: `store-server-${RUN}` });
    const client = new ServiceBroker({ logger: false, ...common, nodeID: `store-client-${RUN}` });
    await client.start();
    await client.waitForServices("store", 10_000);
    return {
      store: new RemoteBackend(client),
      teardown: async () => {
        await client.stop();
        await server.stop();
      },
    };
  },
  { allOrNothingBatches: true },
);

/** Whether testcontainers finds a Docker engine; asked in a child so that the suite can be declared synchronously. */
function dockerAvailable(): boolean {
  const probe =
    "require('testcontainers').getContainerRuntimeClient().then(() => process.exit(0), () => process.exit(1))";
  const res = spawnSync(process.execPath, ["-e", probe], {
    cwd: path.resolve(__dirname, "../.."),
    timeout: 30_000,
  });
  return res.status === 0;
}

const mongoDb = `store_contract_${RUN}`;
async function mongoHarness(url: string, stopContainer?: () => Promise<unknown>): Promise<Harness> {
  const store = await MongoBackend.connect(url, mongoDb, mongoClientOptions(loadConfig({}).mongo));
  return {
    store,
    teardown: async () => {
      await store.close();
      const admin = new MongoClient(url);
      await admin.db(mongoDb).dropDatabase();
      await admin.close();
      await stopContainer?.();
    },
  };
}

if (process.env.MONGO_URL) {
  describeStoreContract("mongo (MONGO_URL)", () => mongoHarness(process.env.MONGO_URL!), {
    allOrNothingBatches: false,
  });
} else if (dockerAvailable()) {
  describeStoreContract(
    "mongo (mongo:7 container)",
    async () => {
      const { GenericContainer, Wait } = await import("testcontainers");
      const container = await new GenericContainer("mongo:7")
        .withExposedPorts(27017)
        .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
        .start();
      const url = `mongodb://${container.getHost()}:${container.getMappedPort(27017)}/?directConnection=true`;
      return mongoHarness(url, () => container.stop());
    },
    { allOrNothingBatches: false },
  );
} else {
  describe.skip("Store contract: mongo — skipped: MONGO_URL is unset and no Docker engine is reachable", () => {
    test("needs MONGO_URL or Docker", () => undefined);
  });
}

// --- backend choice and sharing within one process ------------------------------------------------

describe("createStore", () => {
  const config = (env: Record<string, string>) => loadConfig({ DATA_DIR: newDataDir(), ...env });

  test("chooses: STORE, else mongo with MONGO_URL, else embedded when hosting the store service, else remote", () => {
    expect(
      chooseBackend(config({ STORE: "remote", MONGO_URL: "mongodb://x" }), { hostsStoreService: true }),
    ).toBe("remote");
    expect(chooseBackend(config({ MONGO_URL: "mongodb://x" }), { hostsStoreService: true })).toBe("mongo");
    expect(chooseBackend(config({}), { hostsStoreService: true })).toBe("embedded");
    expect(chooseBackend(config({}), { hostsStoreService: false })).toBe("remote");
  });

  test("remote needs a broker", async () => {
    await expect(createStore(config({}), { hostsStoreService: false })).rejects.toThrow(/broker/);
  });

  test("one embedded store per data directory, shared and reference-counted", async () => {
    const cfg = config({});
    const a = await createStore(cfg, { hostsStoreService: true });
    const b = await createStore(cfg, { hostsStoreService: true });
    expect(a.backend).toBe("embedded");
    await a.collection("shared").insertOne({ _id: "1" });
    expect(await b.collection("shared").findOne({ _id: "1" })).toEqual({ _id: "1" });
    await a.close();
    await a.close(); // a handle's second close must not release someone else's reference
    await b.collection("shared").insertOne({ _id: "2" });
    await expect(a.ping()).rejects.toThrow(/closed/);
    // Opened twice in this process without the registry would corrupt the log: refused.
    expect(() => new EmbeddedBackend({ dataDir: cfg.dataDir })).toThrow(`held by process ${process.pid}`);
    await b.close();
    const reopened = new EmbeddedBackend({ dataDir: cfg.dataDir });
    expect(ids(await reopened.collection("shared").find())).toEqual(["1", "2"]);
    await reopened.close();
  });

  test("the store service and the services beside it share one embedded store", async () => {
    const dataDir = newDataDir();
    const broker = new ServiceBroker({ logger: false, nodeID: `store-share-${RUN}` });
    broker.createService(storeService);
    process.env.DATA_DIR = dataDir;
    try {
      await broker.start();
      const local = await createStore(loadConfig(), { hostsStoreService: true });
      const remote = new RemoteBackend(broker);
      await remote.collection("things").insertOne({ _id: "via-service" });
      expect(await local.collection("things").findOne({ _id: "via-service" })).toEqual({
        _id: "via-service",
      });
      await local.collection("things").createIndex({ keys: { k: 1 }, unique: true });
      await local.collection("things").insertOne({ _id: "x", k: 1 });
      const err = await rejection(remote.collection("things").insertOne({ k: 1 }));
      expect(err).toBeInstanceOf(DuplicateKeyError);
      expect(err.key).toEqual({ k: 1 });
      await local.close();
      await expect(remote.ping()).resolves.toBeUndefined();
    } finally {
      delete process.env.DATA_DIR;
      await broker.stop();
    }
    expect(fs.existsSync(path.join(dataDir, "store", "LOCK"))).toBe(false);
  });
});
