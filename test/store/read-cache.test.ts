/**
 * The embedded store's read cache (shared/store/embedded/read-cache.ts): a repeated read of an
 * unchanged collection is answered from it, every kind of write makes it stale, queries that JSON
 * text cannot tell apart are never confused, and it stays within its bounds.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EmbeddedBackend } from "../../shared/store/embedded/backend";
import { READ_CACHE_ANSWERS, READ_CACHE_MAX_DOCS, readKey } from "../../shared/store/embedded/read-cache";

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));
function openStore(): EmbeddedBackend {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "store-reads-"));
  dirs.push(dataDir);
  return new EmbeddedBackend({ dataDir });
}

const page = { sort: { n: 1 }, limit: 3, projection: { n: 1, tag: 1 } } as const;

describe("embedded store read cache", () => {
  let store: EmbeddedBackend;
  beforeEach(async () => {
    store = openStore();
    await store
      .collection("things")
      .insertMany(
        Array.from({ length: 10 }, (_, i) => ({ _id: `t${i}`, n: 9 - i, tag: i % 2 ? "odd" : "even" })),
      );
  });
  afterEach(() => store.close());

  test("a repeated read is answered from the cache, as a copy the caller may change", async () => {
    const c = store.collection("things");
    const table = store.table("things");
    const expected = [
      { _id: "t9", n: 0, tag: "odd" },
      { _id: "t7", n: 2, tag: "odd" },
      { _id: "t5", n: 4, tag: "odd" },
    ];
    // The first read after a write is not kept: most such collections are written again first.
    expect(await c.find({ tag: "odd" }, page)).toEqual(expected);
    expect(table.reads.size).toBe(0);
    const second = await c.find({ tag: "odd" }, page);
    expect(second).toEqual(expected);
    expect(table.reads.size).toBe(1);
    second[0].n = 100;
    (second as unknown[]).pop();
    const third = await c.find({ tag: "odd" }, page);
    expect(third).toEqual(expected);
    expect(third[0]).not.toBe(second[0]);
    // The third answer came from the cache: what is kept there is what a read gives.
    const key = readKey("find", { tag: "odd" }, page.sort, 0, 3, page.projection)!;
    table.reads.set(key, table.version, [{ _id: "kept" }]);
    expect(await c.find({ tag: "odd" }, page)).toEqual([{ _id: "kept" }]);
    expect(await c.count({ tag: "odd" })).toBe(5);
    expect(table.reads.size).toBe(2);
    expect(await c.count({ tag: "odd" })).toBe(5);
  });

  test.each([
    [
      "insertOne",
      (c: ReturnType<EmbeddedBackend["collection"]>) => c.insertOne({ _id: "new", n: -1, tag: "odd" }),
    ],
    [
      "updateOne (fast)",
      (c: ReturnType<EmbeddedBackend["collection"]>) => c.updateOne({ _id: "t9" }, { $set: { n: 50 } }),
    ],
    [
      "updateMany (mingo)",
      (c: ReturnType<EmbeddedBackend["collection"]>) => c.updateMany({}, { $mul: { n: -1 } }),
    ],
    [
      "upsert",
      (c: ReturnType<EmbeddedBackend["collection"]>) =>
        c.updateOne({ _id: "u" }, { $set: { n: -5, tag: "odd" } }, { upsert: true }),
    ],
    [
      "findOneAndUpdate",
      (c: ReturnType<EmbeddedBackend["collection"]>) =>
        c.findOneAndUpdate({ _id: "t7" }, { $set: { tag: "even" } }),
    ],
    ["findOneAndDelete", (c: ReturnType<EmbeddedBackend["collection"]>) => c.findOneAndDelete({ _id: "t9" })],
    ["deleteMany", (c: ReturnType<EmbeddedBackend["collection"]>) => c.deleteMany({ n: { $lt: 3 } })],
  ])("a %s makes every kept answer of the collection stale", async (_name, write) => {
    const c = store.collection("things");
    const fresh = async () => {
      const all = (await c.find({}))
        .filter((d) => d.tag === "odd")
        .sort((a, b) => (a.n as number) - (b.n as number));
      return { page: all.slice(0, 3).map(({ _id, n, tag }) => ({ _id, n, tag })), count: all.length };
    };
    for (let i = 0; i < 2; i++) {
      await c.find({ tag: "odd" }, page);
      await c.count({ tag: "odd" });
    }
    expect(store.table("things").reads.size).toBe(2);
    await write(c);
    const expected = await fresh();
    expect(await c.find({ tag: "odd" }, page)).toEqual(expected.page);
    expect(await c.count({ tag: "odd" })).toBe(expected.count);
  });

  test("a write to another collection leaves this one's answers in place", async () => {
    const c = store.collection("things");
    await c.find({ tag: "odd" }, page);
    await c.find({ tag: "odd" }, page);
    const version = store.table("things").version;
    await store.collection("others").insertOne({ _id: "o" });
    expect(store.table("things").version).toBe(version);
    expect(
      store
        .table("things")
        .reads.get(readKey("find", { tag: "odd" }, page.sort, 0, 3, page.projection)!, version),
    ).toBeDefined();
  });

  test("queries JSON text would confuse are not cached: RegExp, Date, undefined, NaN", async () => {
    const c = store.collection("things");
    await c.insertMany([
      { _id: "s", when: "2026-01-01T00:00:00.000Z", tag: "abc" },
      { _id: "e", tag: {} },
    ]);
    expect((await c.find({ tag: /^ab/ })).map((d) => d._id)).toEqual(["s"]);
    // {} stringifies like the RegExp: it must not get the RegExp's answer.
    expect((await c.find({ tag: {} })).map((d) => d._id)).toEqual(["e"]);
    expect(await c.count({ tag: /^ab/ })).toBe(1);
    expect(await c.count({ tag: {} })).toBe(1);
    for (const filter of [{ tag: /x/ }, { when: new Date(0) }, { tag: undefined }, { n: NaN }])
      expect(readKey("find", filter)).toBeUndefined();
    expect(readKey("find", { tag: { $in: ["a", 1, true, null] } })).toBeDefined();
  });

  test("bounds: answers per collection, documents per answer, size of a query", async () => {
    const c = store.collection("things");
    for (let i = 0; i < READ_CACHE_ANSWERS + 20; i++) await c.find({ n: i });
    await c.find({ n: 0 });
    expect(store.table("things").reads.size).toBe(READ_CACHE_ANSWERS);
    const big = store.collection("big");
    await big.insertMany(Array.from({ length: READ_CACHE_MAX_DOCS + 1 }, (_, i) => ({ _id: `b${i}` })));
    await big.find({});
    await big.find({});
    expect(store.table("big").reads.size).toBe(0);
    expect(
      readKey("find", { _id: { $in: Array.from({ length: 300 }, (_, i) => `id-${i}`) } }),
    ).toBeUndefined();
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 20; i++) deep = { $and: [deep] };
    expect(readKey("find", deep)).toBeUndefined();
  });

  test("an answer read before a reopen is not given after it (the log replays the writes)", async () => {
    const c = store.collection("things");
    expect(await c.count({ tag: "odd" })).toBe(5);
    expect(await c.count({ tag: "odd" })).toBe(5);
    await c.insertOne({ _id: "late", n: 99, tag: "odd" });
    expect(await c.count({ tag: "odd" })).toBe(6);
    expect(await c.count({ tag: "odd" })).toBe(6);
    const dir = store.dir.replace(/\/store$/, "");
    await store.close();
    store = new EmbeddedBackend({ dataDir: dir });
    expect(await store.collection("things").count({ tag: "odd" })).toBe(6);
  });
});

describe("read-only finds of the embedded store", () => {
  let store: EmbeddedBackend;
  beforeEach(async () => {
    store = openStore();
    await store.collection("things").insertMany([
      { _id: "a", n: 1, tags: ["x"], meta: { by: "me" } },
      { _id: "b", n: 2, tags: ["y"], meta: { by: "you" } },
    ]);
  });
  afterEach(() => store.close());

  const deeplyFrozen = (value: unknown): boolean =>
    typeof value !== "object" ||
    value === null ||
    (Object.isFrozen(value) && Object.values(value).every(deeplyFrozen));

  test("answers frozen documents (a caller changing one throws), on a first read and from the cache", async () => {
    const c = store.collection("things");
    for (let i = 0; i < 3; i++) {
      const answer = await c.find({}, { sort: { n: 1 }, readOnly: true });
      expect(answer).toEqual([
        { _id: "a", n: 1, tags: ["x"], meta: { by: "me" } },
        { _id: "b", n: 2, tags: ["y"], meta: { by: "you" } },
      ]);
      expect(deeplyFrozen(answer)).toBe(true);
      expect(() => answer[0].tags.push("z")).toThrow(TypeError);
      expect(() => {
        answer[1].meta.by = "them";
      }).toThrow(TypeError);
    }
    // Copies for everyone else, and writes still work on the documents the frozen answer shared.
    const copy = await c.find({}, { sort: { n: 1 } });
    copy[0].tags.push("mine");
    expect(deeplyFrozen(copy)).toBe(false);
    await c.updateOne({ _id: "a" }, { $push: { tags: "w" }, $set: { "meta.by": "us" } });
    expect(await c.findOne({ _id: "a" })).toEqual({ _id: "a", n: 1, tags: ["x", "w"], meta: { by: "us" } });
    expect((await c.find({}, { sort: { n: 1 }, readOnly: true }))[0].tags).toEqual(["x", "w"]);
  });

  test("an answer a plain read left in the cache is frozen before a read-only caller gets it", async () => {
    const c = store.collection("things");
    await c.find({ n: 2 });
    await c.find({ n: 2 });
    expect(store.table("things").reads.size).toBe(1);
    const shared = await c.find({ n: 2 }, { readOnly: true });
    expect(deeplyFrozen(shared)).toBe(true);
    const copy = await c.find({ n: 2 });
    copy[0].tags.push("mine");
    expect(await c.find({ n: 2 }, { readOnly: true })).toEqual([
      { _id: "b", n: 2, tags: ["y"], meta: { by: "you" } },
    ]);
  });
});
