/**
 * The embedded store's fast paths (fast updates, top-k pages, index lookups, single copies, the read
 * cache that half the reads repeat into) against a model that uses only the general paths: a scan,
 * a full sort, mingo's updater.
 * Randomised collections and operations, compared after every step, again after the store is
 * reopened from its log, and with every answer scribbled over to prove callers hold copies.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { boundsViolation } from "../../shared/input-bounds";
import { EmbeddedBackend, STORED_DOCUMENT_LIMITS } from "../../shared/store/embedded/backend";
import { applyUpdate, predicateOf, sortDocs } from "../../shared/store/embedded/mongo";
import type { StoredDoc } from "../../shared/store/embedded/table";
import { checkUpdate } from "../../shared/store/rules";
import {
  DuplicateKeyError,
  type Collection,
  type Doc,
  type Filter,
  type FindOptions,
  type Sort,
} from "../../shared/store";
import {
  int,
  pick,
  randomFilter,
  randomObject,
  randomSort,
  randomUpdate,
  seeded,
  type Rand,
} from "../support/random-docs";

// This suite's collections are its own, not the platform's: the index plan's check (the run's
// STORE_QUERY_SHAPES, docs/architecture.md#indexes) is not for them. jest gives each suite its own env.
delete process.env.STORE_QUERY_SHAPES;

const tempDirs: string[] = [];
afterAll(() => tempDirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));
function openStore(dir?: string): EmbeddedBackend {
  const dataDir = dir ?? fs.mkdtempSync(path.join(os.tmpdir(), "store-fast-"));
  if (!dir) tempDirs.push(dataDir);
  return new EmbeddedBackend({ dataDir });
}

/** Writes into every object and array of an answer: a caller doing so must not reach stored state. */
function scribble(value: unknown): void {
  if (Array.isArray(value)) {
    value.forEach(scribble);
    value.push("scribbled");
  } else if (value && typeof value === "object") {
    Object.values(value).forEach(scribble);
    (value as Doc).scribbled = true;
  }
}

const GROUPS = ["x", "y", "z", 1, 2, 3, true, null];

/** The general paths only: what the store answered before it had fast ones. */
class Model {
  docs: StoredDoc[] = [];
  /** A scan with the store's own matcher (fast-filter.test.ts holds that one to mingo). */
  matching(filter: Filter): StoredDoc[] {
    const test = predicateOf(filter);
    return test ? this.docs.filter(test) : this.docs;
  }
  find(filter: Filter, options: FindOptions): StoredDoc[] {
    let docs = this.matching(filter);
    if (options.sort) docs = sortDocs(docs, options.sort);
    const skip = options.skip ?? 0;
    return docs.slice(skip, options.limit ? skip + options.limit : undefined);
  }
  /** The new images, or the error the update must fail with; nothing changes on an error. */
  update(targets: StoredDoc[], filter: Filter, update: Doc): string | undefined {
    const next = new Map<string, StoredDoc>();
    try {
      // The update's own shape is checked whether or not it matches (MongoDB's ConflictingUpdateOperators).
      checkUpdate(update);
      for (const doc of targets) next.set(doc._id, applyUpdate(doc, update, filter).doc);
    } catch (err) {
      return (err as Error).message;
    }
    // `u` is unique (always a string here); a batch must not clash with others or with itself.
    const owners = new Map(this.docs.filter((d) => !next.has(d._id)).map((d) => [d.u, d._id]));
    for (const doc of next.values()) {
      if (owners.has(doc.u)) return "duplicate";
      owners.set(doc.u, doc._id);
    }
    this.docs = this.docs.map((d) => next.get(d._id) ?? d);
    return undefined;
  }
}

const json = (value: unknown) => JSON.stringify(value);

/** The first document that differs, and the operation before it, rather than two whole collections. */
async function expectSameState(c: Collection, model: Model, after = ""): Promise<void> {
  const stored = await c.find({});
  const at = Array.from({ length: Math.max(stored.length, model.docs.length) }).findIndex(
    (_, i) => json(stored[i]) !== json(model.docs[i]),
  );
  if (at >= 0) throw new Error(`${after}: stored ${json(stored[at])}, expected ${json(model.docs[at])}`);
}

/** One random operation on both; answers compared, then scribbled over. */
type Read = { filter: Filter; options: FindOptions };
type Serial = { n: number; recent: Read[] };

function randomRead(r: Rand): Read {
  const filter = randomFilter(r);
  const options: FindOptions = r() < 0.7 ? { sort: randomSort(r), limit: int(r, 1, 10) } : {};
  if (options.sort && r() < 0.5) options.skip = int(r, 0, 5);
  return { filter, options };
}

async function step(r: Rand, c: Collection, model: Model, serial: Serial): Promise<void> {
  const kind = int(r, 0, 9);
  let what = `step ${kind}`;
  if (kind <= 2) {
    // Half the reads repeat a recent one: the read cache must answer them as a fresh read would.
    const again = serial.recent.length > 0 && r() < 0.5;
    const { filter, options } = again ? pick(r, serial.recent) : randomRead(r);
    if (!again) serial.recent = [...serial.recent.slice(-7), { filter, options }];
    const answer = await c.find(filter, options);
    expect(json(answer)).toBe(json(model.find(filter, options)));
    scribble(answer);
    expect(await c.count(filter)).toBe(model.matching(filter).length);
  } else if (kind <= 6) {
    const filter = r() < 0.6 ? { _id: `d${int(r, 0, serial.n)}` } : randomFilter(r);
    const update = randomUpdate(r);
    if (r() < 0.2) (update.$set ??= {}).g = pick(r, GROUPS);
    if (r() < 0.1) (update.$set ??= {}).u = r() < 0.5 ? `u${int(r, 0, serial.n - 1)}` : `fresh${serial.n++}`;
    const many = r() < 0.2;
    what = `${many ? "updateMany" : "updateOne"} ${json(filter)} ${json(update)}`;
    const targets = many ? model.matching(filter) : model.matching(filter).slice(0, 1);
    const expected = model.update(targets, filter, update);
    const attempt = many ? c.updateMany(filter, update) : c.updateOne(filter, update);
    if (expected === undefined) await attempt;
    else if (expected === "duplicate") await expect(attempt).rejects.toBeInstanceOf(DuplicateKeyError);
    else await expect(attempt).rejects.toThrow(expected);
  } else if (kind === 7) {
    // findOneAndUpdate with a sort: the top-1 pick must be the full sort's first.
    const filter = randomFilter(r);
    const sort = randomSort(r);
    const update = { $inc: { n: 1 } };
    what = `findOneAndUpdate ${json(filter)} ${json(sort)}`;
    const [target] = model.find(filter, { sort });
    const expected = target ? model.update([target], filter, update) : undefined;
    const attempt = c.findOneAndUpdate(filter, update, { sort });
    if (expected !== undefined) await expect(attempt).rejects.toThrow(expected);
    else {
      const answer = await attempt;
      expect(json(answer)).toBe(json(target ? model.docs.find((d) => d._id === target._id) : null));
      scribble(answer);
    }
  } else if (kind === 8) {
    const id = `d${int(r, 0, serial.n)}`;
    const deleted = await c.findOneAndDelete({ _id: id });
    expect(json(deleted)).toBe(json(model.docs.find((d) => d._id === id) ?? null));
    model.docs = model.docs.filter((d) => d._id !== id);
    scribble(deleted);
  } else {
    const doc = newDoc(r, serial.n++);
    const inserted = await c.insertOne(doc);
    model.docs.push(structuredClone(doc) as StoredDoc);
    scribble(inserted);
    scribble(doc);
    expect(json(await c.findOne({ _id: inserted._id }))).toBe(json(model.docs.at(-1)));
  }
  await expectSameState(c, model, what);
}

function newDoc(r: Rand, i: number): Doc {
  const doc: Doc = { _id: `d${i}`, u: `u${i}`, ...randomObject(r) };
  if (r() < 0.8) doc.g = pick(r, GROUPS);
  if (r() < 0.5) doc.h = pick(r, GROUPS);
  return doc;
}

describe("embedded store fast paths against the general paths", () => {
  test.each([1, 2, 3])(
    "randomised operations, seed %i, then a reopen from the log",
    async (seed) => {
      const r = seeded(seed * 7919);
      const store = openStore();
      const c = store.collection(`things${seed}`);
      await c.createIndex({ keys: { u: 1 }, unique: true });
      await c.createIndex({ keys: { g: 1 } });
      await c.createIndex({ keys: { g: 1, h: 1 } });
      const model = new Model();
      const serial: Serial = { n: 0, recent: [] };
      for (; serial.n < 120; serial.n++) {
        const doc = newDoc(r, serial.n);
        model.docs.push(structuredClone(doc) as StoredDoc);
        await c.insertOne(doc);
      }
      for (let i = 0; i < 600; i++) await step(r, c, model, serial);
      await store.close();
      const reopened = openStore(store.dir.replace(/\/store$/, ""));
      await expectSameState(reopened.collection(`things${seed}`), model);
      await reopened.close();
    },
    60_000,
  );

  test("a small sorted page keeps the full sort's order among ties", async () => {
    const store = openStore();
    const c = store.collection("ties");
    const docs = Array.from({ length: 300 }, (_, i) => ({ _id: `t${i}`, k: i % 3, arr: [i % 5, 7] }));
    await c.insertMany(docs);
    const sorts: Sort[] = [{ k: 1 }, { k: -1 }, { arr: 1 }, { arr: -1, k: 1 }];
    for (const sort of sorts) {
      for (const [skip, limit] of [
        [0, 1],
        [0, 10],
        [95, 10],
        [5, 3],
      ]) {
        const expected = sortDocs(docs, sort).slice(skip, skip + limit);
        expect(await c.find({}, { sort, skip, limit })).toEqual(expected);
      }
    }
    await store.close();
  });

  test("index lookups stay exact through updates, deletes and refused writes", async () => {
    const store = openStore();
    const c = store.collection("people");
    await c.createIndex({ keys: { email: 1 }, unique: true });
    await c.createIndex({ keys: { team: 1 } });
    await c.insertMany([
      { _id: "a", email: "a@x", team: "red" },
      { _id: "b", email: "b@x", team: ["red", "blue"] },
      { _id: "c", email: "c@x", team: "blue" },
    ]);
    const ids = async (filter: Filter) => (await c.find(filter)).map((d) => d._id);
    expect(await ids({ team: "red" })).toEqual(["a", "b"]);
    expect(await ids({ team: { $in: ["blue", "green"] } })).toEqual(["b", "c"]);
    // A rewrite of `a` keeps its place ahead of `b` in a scan: the lookup answers in the same order.
    await c.updateOne({ _id: "a" }, { $set: { team: "blue" } });
    expect(await ids({ team: "blue" })).toEqual(["a", "b", "c"]);
    expect(await ids({ team: "red" })).toEqual(["b"]);
    await expect(c.updateOne({ _id: "c" }, { $set: { email: "a@x" } })).rejects.toBeInstanceOf(
      DuplicateKeyError,
    );
    expect(await ids({ email: "a@x" })).toEqual(["a"]);
    expect(await ids({ email: "c@x" })).toEqual(["c"]);
    await c.updateOne({ _id: "c" }, { $set: { email: "new@x" } });
    expect(await ids({ email: "c@x" })).toEqual([]);
    expect(await ids({ email: "new@x", team: "blue" })).toEqual(["c"]);
    await c.deleteOne({ _id: "a" });
    await c.insertOne({ _id: "a", email: "a@x", team: "blue" });
    expect(await ids({ team: "blue" })).toEqual(["b", "c", "a"]);
    expect(await ids({ email: { $eq: "a@x" } })).toEqual(["a"]);
    await store.close();
  });

  test("a fast update refusing a too-deep value says where, as the full check does, and writes nothing", async () => {
    const store = openStore();
    const c = store.collection("deep");
    await c.insertOne({ _id: "d", keep: 1, a: { b: {} } });
    let deep: Doc = {};
    for (let i = 0; i < 99; i++) deep = { x: deep };
    const err = await c.updateOne({ _id: "d" }, { $set: { "a.b.c": deep } }).catch((e: Error) => e);
    const whole = boundsViolation({ _id: "d", keep: 1, a: { b: { c: deep } } }, STORED_DOCUMENT_LIMITS);
    expect(whole?.path).toBe(`a.b.c${".x".repeat(97)}`);
    expect((err as Error).message).toBe(
      `cannot store a document that nests deeper than 100 levels (at '${whole?.path}')`,
    );
    expect(err).toMatchObject({ code: 400, storeCode: 15, codeName: "Overflow" });
    expect(await c.findOne({ _id: "d" })).toEqual({ _id: "d", keep: 1, a: { b: {} } });
    // Exactly at the bound (the innermost object 100 levels down) is fine.
    await c.updateOne({ _id: "d" }, { $set: { "a.b.c": deep.x.x.x } });
    expect(await c.count({ "a.b.c.x.x": { $exists: true } })).toBe(1);
    await store.close();
  });
});
