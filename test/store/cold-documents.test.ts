/**
 * The embedded store's cold documents (shared/store/embedded/doc-map.ts): past the newest
 * `hotDocuments` of a collection, documents are held as their JSON text. Every read, query, index,
 * update, delete and replay must answer as if each were an object; a read by `_id` makes one an
 * object again; the bookkeeping stays bounded; the machinery's switch keeps every document an object.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EmbeddedBackend } from "../../shared/store/embedded/backend";
import { HOT_DOCUMENTS, type DocMap } from "../../shared/store/embedded/doc-map";
import { loadConfig } from "../../shared/config";
import { JobRepository } from "../../services/engine/jobs.repository";
import { jobStoreQuery, type JobQueryParameters } from "../../services/engine/jobs/query-builder";
import type { Doc, Filter } from "../../shared/store";
import { manualTasksOf } from "../../services/engine/run/manual-summary";

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));
function newDir(): string {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "store-cold-"));
  dirs.push(dataDir);
  return dataDir;
}

const device = (i: number): Doc => ({
  _id: `d${i}`,
  name: `router-${i}`,
  site: i % 2 ? "ams" : "fra",
  version: 1,
  config: { interfaces: [{ name: "ge-0/0/0", mtu: 1500 + i }], notes: `ü-${i}` },
});

describe("embedded store: documents held as text past the newest", () => {
  let dataDir: string;
  let store: EmbeddedBackend;
  beforeEach(async () => {
    dataDir = newDir();
    store = new EmbeddedBackend({ dataDir, hotDocuments: 2 });
    const c = store.collection("devices");
    await c.createIndex({ keys: { name: 1 }, unique: true });
    await c.createIndex({ keys: { site: 1 } });
    await c.insertMany(Array.from({ length: 10 }, (_, i) => device(i)));
  });
  afterEach(() => store.close());

  test("all but the newest two are text, and each reads back equal, members in order", async () => {
    const docs = store.table("devices").docs;
    expect(docs.size).toBe(10);
    expect(docs.coldCount).toBe(8);
    const c = store.collection("devices");
    for (let i = 0; i < 10; i++)
      expect(JSON.stringify(await c.findOne({ _id: `d${i}` }))).toBe(JSON.stringify(device(i)));
    // A read by `_id` made each an object again, the newest; still no more than two are.
    expect(docs.coldCount).toBe(8);
    expect(JSON.stringify(await c.find({}, { sort: { name: 1 } }))).toBe(
      JSON.stringify(
        Array.from({ length: 10 }, (_, i) => device(i)).sort((a, b) => a.name.localeCompare(b.name)),
      ),
    );
    expect(await c.count({ site: "ams" })).toBe(5);
  });

  test("a read by _id thaws the document; a query that passes it leaves it text", async () => {
    const docs = store.table("devices").docs;
    const c = store.collection("devices");
    const coldText = (id: string) => docs.isCold(id);
    expect(coldText("d0")).toBe(true);
    await c.find({ site: "fra" });
    await c.find({ "config.notes": "ü-0" });
    expect(coldText("d0")).toBe(true);
    await c.findOne({ _id: "d0" });
    expect(coldText("d0")).toBe(false);
    expect(docs.get("d0")).toBe(docs.get("d0"));
  });

  test("updates of cold documents: indexes follow, unique keys hold, fast and generic paths", async () => {
    const c = store.collection("devices");
    // The versioned fast path, on a cold document.
    expect(await c.updateOne({ _id: "d1", version: 1 }, { $set: { site: "lon", version: 2 } })).toEqual({
      matchedCount: 1,
      modifiedCount: 1,
    });
    // The generic path (an array filter mingo applies), on another.
    await c.updateMany({ _id: "d3" }, { $push: { "config.interfaces": { name: "ge-0/0/1", mtu: 9000 } } });
    await c.updateOne({ _id: "d5" }, { $set: { name: "renamed" } });
    expect((await c.find({ site: "lon" })).map((d) => d._id)).toEqual(["d1"]);
    expect((await c.find({ site: "ams" })).map((d) => d._id)).toEqual(["d3", "d5", "d7", "d9"]);
    expect((await c.findOne({ _id: "d3" }))!.config.interfaces).toHaveLength(2);
    // The old unique key is free, the new one taken, a cold document's key still taken.
    await c.insertOne({ _id: "n1", name: "router-5", site: "x" });
    await expect(c.insertOne({ _id: "n2", name: "renamed" })).rejects.toThrow(/same name already exists/);
    await expect(c.insertOne({ _id: "n3", name: "router-0" })).rejects.toThrow(/same name already exists/);
    await expect(c.updateOne({ _id: "d2" }, { $set: { name: "router-4" } })).rejects.toThrow(
      /same name already exists/,
    );
    expect((await c.findOne({ _id: "d2" }))!.name).toBe("router-2");
  });

  test("deletes of cold documents leave no index entry behind", async () => {
    const c = store.collection("devices");
    expect(await c.deleteMany({ site: "fra" })).toBe(5);
    expect(await c.count({ site: "fra" })).toBe(0);
    expect(await c.count({})).toBe(5);
    await c.insertOne({ _id: "d0", name: "router-0", site: "fra" });
    expect((await c.find({ site: "fra" })).map((d) => d._id)).toEqual(["d0"]);
  });

  test("the log replays onto a store that holds the same documents", async () => {
    const c = store.collection("devices");
    await c.updateOne({ _id: "d0", version: 1 }, { $set: { "config.notes": "patched", version: 2 } });
    await c.deleteOne({ _id: "d4" });
    const before = await c.find({});
    await store.close();
    store = new EmbeddedBackend({ dataDir, hotDocuments: 2 });
    expect(JSON.stringify(await store.collection("devices").find({}))).toBe(JSON.stringify(before));
    expect(store.table("devices").docs.coldCount).toBe(7);
  });

  test("a document read by _id goes cold again with the text it had, not serialized anew", async () => {
    const docs = store.table("devices").docs;
    const c = store.collection("devices");
    const before = docs.serialized;
    // d0 thawed, then d1 and d2: each read pushes the oldest hot one out. The first two out (d8,
    // d9) go with the texts they were inserted with; d0 with the text it was read from.
    for (const id of ["d0", "d1", "d2"]) await c.findOne({ _id: id });
    expect(docs.isCold("d0")).toBe(true);
    expect(docs.serialized - before).toBe(0);
    expect(JSON.stringify(await c.findOne({ _id: "d0" }))).toBe(JSON.stringify(device(0)));
    // A write replaces the document: its new image has no known text.
    await c.updateOne({ _id: "d1" }, { $set: { site: "lon" } });
    const mid = docs.serialized;
    for (const id of ["d3", "d5"]) await c.findOne({ _id: id });
    expect(docs.isCold("d1")).toBe(true);
    expect(docs.serialized - mid).toBe(1);
    expect(await c.findOne({ _id: "d1" })).toEqual({ ...device(1), site: "lon" });
  });

  test("inserted documents go cold with the texts they were inserted with, not serialized anew", async () => {
    const docs = store.table("devices").docs;
    // The ten of beforeEach, eight of them cold by now, and ten more, one at a time and in a batch.
    expect(docs.serialized).toBe(0);
    const c = store.collection("devices");
    for (let i = 10; i < 15; i++) await c.insertOne(device(i));
    await c.insertMany(Array.from({ length: 5 }, (_, i) => device(15 + i)));
    expect(docs.coldCount).toBe(18);
    expect(docs.serialized).toBe(0);
    for (let i = 0; i < 20; i++)
      expect(JSON.stringify(await c.findOne({ _id: `d${i}` }))).toBe(JSON.stringify(device(i)));
    // A document stored from another shape than its text (`_id` not first) has no text to keep.
    await c.insertOne({ name: "no-id", site: "x" });
    await c.insertOne({ site: "y", _id: "late-id", name: "late" });
    for (const id of ["d3", "d4"]) await c.findOne({ _id: id });
    expect(docs.serialized).toBe(2);
    expect(await c.findOne({ _id: "late-id" })).toEqual({ _id: "late-id", site: "y", name: "late" });
  });

  test("a store opened from a snapshot keeps each cold document's line as its text", async () => {
    const dir = newDir();
    let compacting = new EmbeddedBackend({ dataDir: dir, hotDocuments: 2, compactBytes: 4 * 1024 });
    const c = compacting.collection("devices");
    await c.createIndex({ keys: { site: 1 } });
    for (let i = 0; i < 40; i++) await c.insertOne(device(i));
    await compacting.compacted();
    await compacting.close();
    expect(fs.existsSync(path.join(dir, "store", "snapshot.json"))).toBe(true);
    compacting = new EmbeddedBackend({ dataDir: dir, hotDocuments: 2 });
    try {
      const docs = compacting.table("devices").docs;
      expect(docs.coldCount).toBe(38);
      // Only what the logs after the snapshot wrote was serialized as it went cold.
      expect(docs.serialized).toBeLessThan(38);
      const all = await compacting.collection("devices").find({}, { sort: { _id: 1 } });
      expect(JSON.stringify(all)).toBe(
        JSON.stringify(
          Array.from({ length: 40 }, (_, i) => device(i)).sort((a, b) => (a._id < b._id ? -1 : 1)),
        ),
      );
      expect(await compacting.collection("devices").count({ site: "ams" })).toBe(20);
    } finally {
      await compacting.close();
    }
  });

  test("a collection rewritten without end keeps its write queue bounded", async () => {
    const c = store.collection("jobs");
    for (let i = 0; i < 4; i++) await c.insertOne({ _id: `j${i}`, step: 0 });
    for (let step = 1; step <= 3000; step++) await c.updateOne({ _id: `j${step % 4}` }, { $set: { step } });
    const docs = store.table("jobs").docs;
    expect(docs.coldCount).toBe(2);
    // The two written last are the objects.
    expect(["j0", "j1", "j2", "j3"].map((id) => docs.isCold(id))).toEqual([false, true, true, false]);
    expect(docs.queued).toBeLessThanOrEqual(2 * 2 + 1024 + 1);
    expect((await c.findOne({ _id: "j0" }))!.step).toBe(3000);
  });

  test("a document rewritten is newer than one written after its first write", async () => {
    const c = store.collection("jobs");
    await c.insertMany([{ _id: "a", n: 0 }, { _id: "b" }]);
    await c.updateOne({ _id: "a" }, { $set: { n: 1 } });
    await c.insertOne({ _id: "c" });
    const docs = store.table("jobs").docs;
    expect(["a", "b", "c"].map((id) => docs.isCold(id))).toEqual([false, true, false]);
  });

  test("the queue's compaction keeps each object's place: the oldest written still goes cold first", async () => {
    const c = store.collection("jobs");
    await c.insertMany([{ _id: "a" }, { _id: "b" }, { _id: "c", step: 0 }]);
    for (let step = 1; step <= 2000; step++) await c.updateOne({ _id: "c" }, { $set: { step } });
    const docs = store.table("jobs").docs;
    expect(docs.queued).toBeLessThanOrEqual(2 * 2 + 1024 + 1);
    await c.insertOne({ _id: "d" });
    expect(["a", "b", "c", "d"].map((id) => docs.isCold(id))).toEqual([true, true, false, false]);
  });
});

describe("embedded store: how many documents are objects", () => {
  test(`by default the newest ${HOT_DOCUMENTS} of a collection; with the machinery off, all`, async () => {
    const count = HOT_DOCUMENTS + 100;
    const docs = Array.from({ length: count }, (_, i) => ({ _id: `x${i}`, n: i }));
    const on = new EmbeddedBackend({ dataDir: newDir() });
    const off = new EmbeddedBackend({ dataDir: newDir(), machinery: false });
    try {
      await on.collection("things").insertMany(docs);
      await off.collection("things").insertMany(docs);
      expect(on.table("things").docs.coldCount).toBe(100);
      expect(off.table("things").docs.coldCount).toBe(0);
      expect(await on.collection("things").findOne({ _id: "x0" })).toEqual({ _id: "x0", n: 0 });
    } finally {
      await Promise.all([on.close(), off.close()]);
    }
  });
});

describe("embedded store: a versioned write said settled", () => {
  const job = (i: number) => ({ _id: `j${i}`, version: 1, status: "running", steps: { a: { n: i } } });

  test("holds its document as text at once; it reads, re-keys, writes and reloads as an object would", async () => {
    const dataDir = newDir();
    const store = new EmbeddedBackend({ dataDir, hotDocuments: 2 });
    const jobs = store.collection("jobs");
    await jobs.createIndex({ keys: { status: 1 } });
    await jobs.insertMany([job(0), job(1), job(2)]);
    const docs = store.table("jobs").docs;
    expect(docs.coldCount).toBe(1);
    // A write without the hint leaves it among the newest, as before.
    expect(await jobs.updateVersioned!("j0", 1, { "steps.a.n": 10 })).toBe(true);
    expect(docs.isCold("j0")).toBe(false);
    // Said settled: cold right after the write, the others untouched.
    expect(await jobs.updateVersioned!("j1", 1, { status: "complete" }, undefined, { settled: true })).toBe(
      true,
    );
    expect(docs.isCold("j1")).toBe(true);
    expect(docs.coldCount).toBe(1);
    // Its index entries moved with the write; a covered read finds it by its new status.
    expect((await jobs.find({ status: "complete" }, { projection: { _id: 1 } })).map((d) => d._id)).toEqual([
      "j1",
    ]);
    const expected = { _id: "j1", version: 2, status: "complete", steps: { a: { n: 1 } } };
    expect(JSON.stringify(await jobs.findOne({ _id: "j1" }))).toBe(JSON.stringify(expected));
    // A lost compare-and-set changes nothing; the next write at its version lands.
    expect(await jobs.updateVersioned!("j1", 1, { status: "error" }, undefined, { settled: true })).toBe(
      false,
    );
    expect(await jobs.updateVersioned!("j1", 2, { "steps.a.n": 5 })).toBe(true);
    expect(await jobs.findOne({ _id: "j1" })).toEqual({ ...expected, version: 3, steps: { a: { n: 5 } } });
    // Settled again, then pushed past by newer writes: the newest two stay objects, the rest text,
    // and every document reads back as written (its stale place in the write order is skipped).
    expect(await jobs.updateVersioned!("j1", 3, { status: "complete" }, undefined, { settled: true })).toBe(
      true,
    );
    await jobs.insertMany([job(3), job(4), job(5)]);
    await jobs.updateVersioned!("j2", 1, { "steps.a.n": 20 });
    expect(docs.coldCount).toBe(docs.size - 2);
    expect(docs.isCold("j1")).toBe(true);
    expect(JSON.stringify(await jobs.find({}, { sort: { _id: 1 } }))).toBe(
      JSON.stringify([
        { ...job(0), version: 2, steps: { a: { n: 10 } } },
        { ...expected, version: 4, steps: { a: { n: 5 } } },
        { ...job(2), version: 2, steps: { a: { n: 20 } } },
        job(3),
        job(4),
        job(5),
      ]),
    );
    await store.close();
    const reopened = new EmbeddedBackend({ dataDir });
    try {
      expect(await reopened.collection("jobs").findOne({ _id: "j1" })).toEqual({
        ...expected,
        version: 4,
        steps: { a: { n: 5 } },
      });
    } finally {
      await reopened.close();
    }
  });

  test("a settled write to a cold document makes no other document cold; a delete after it counts right", async () => {
    const store = new EmbeddedBackend({ dataDir: newDir(), hotDocuments: 3 });
    try {
      const jobs = store.collection("jobs");
      await jobs.insertMany([job(0), job(1), job(2), job(3)]);
      const docs = store.table("jobs").docs;
      expect([docs.isCold("j0"), docs.coldCount]).toEqual([true, 1]);
      // j0 is parsed for the write and stored cold again: the three newest stay objects.
      expect(await jobs.updateVersioned!("j0", 1, { status: "complete" }, undefined, { settled: true })).toBe(
        true,
      );
      expect(["j0", "j1", "j2", "j3"].map((id) => docs.isCold(id))).toEqual([true, false, false, false]);
      // A hot one settled: one fewer hot, so the next insert makes nothing cold.
      await jobs.updateVersioned!("j3", 1, { status: "complete" }, undefined, { settled: true });
      await jobs.insertOne(job(4));
      expect([docs.coldCount, docs.size]).toEqual([2, 5]);
      await jobs.deleteOne({ _id: "j3" });
      await jobs.insertMany([job(5), job(6)]);
      expect([docs.coldCount, docs.size]).toEqual([3, 6]);
      expect((await jobs.find({ status: "complete" })).map((d) => d._id)).toEqual(["j0"]);
    } finally {
      await store.close();
    }
  });

  test("changes nothing with the machinery off, nor in a collection with an expiry index", async () => {
    const off = new EmbeddedBackend({ dataDir: newDir(), machinery: false });
    const expiring = new EmbeddedBackend({ dataDir: newDir() });
    try {
      await off.collection("jobs").insertOne(job(0));
      await off.collection("jobs").updateVersioned!("j0", 1, { status: "complete" }, undefined, {
        settled: true,
      });
      expect(off.table("jobs").docs.isCold("j0")).toBe(false);
      const sessions = expiring.collection("jobs");
      await sessions.createIndex({ keys: { at: 1 }, expireAfterSeconds: 3600 });
      await sessions.insertOne({ ...job(0), at: new Date().toISOString() });
      await sessions.updateVersioned!("j0", 1, { status: "complete" }, undefined, { settled: true });
      expect(expiring.table("jobs").docs.isCold("j0")).toBe(false);
    } finally {
      await Promise.all([off.close(), expiring.close()]);
    }
  });
});

describe("embedded store: reads that look only at indexed fields pass cold documents as skeletons", () => {
  const JOBS = 240;
  const statuses = ["running", "complete", "error", "canceled", null];
  /** A seeded generator: the same documents and queries every run. */
  function seeded(seed: number) {
    return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  }
  const rand = seeded(7);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const job = (i: number): Doc => {
    const doc: Doc = { _id: `j${String(i).padStart(4, "0")}`, type: pick(["automation", "child"]) };
    const status = pick(statuses);
    if (status !== null || rand() < 0.5) doc.status = status;
    if (rand() < 0.9) doc.metrics = { start_time: Math.floor(rand() * 50), progress: rand() };
    else if (rand() < 0.5) doc.metrics = 7;
    doc.groups =
      rand() < 0.2 ? [] : Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(["g1", "g2", "g3"]));
    if (rand() < 0.85) doc.workflow = { name: pick(["wf-a", "wf-b", "Wf-C"]), _id: `w${i % 7}` };
    doc.tasks = { t1: { status: pick(["complete", "running"]) } };
    return doc;
  };
  const filters: Filter[] = [
    {},
    { status: "running" },
    { status: null },
    { status: { $in: ["error", "canceled"] } },
    { status: { $exists: false } },
    { "metrics.start_time": { $gte: 10, $lt: 30 } },
    { "metrics.start_time": { $exists: false } },
    { groups: "g2" },
    { groups: { $size: 0 } },
    { groups: { $all: ["g1", "g3"] } },
    { groups: { $elemMatch: { $eq: "g1" } } },
    { "workflow.name": { $regex: "^wf", $options: "i" } },
    { "workflow.name": { $not: { $regex: "b$" } } },
    { $or: [{ groups: "g1" }, { "workflow.name": "wf-a" }] },
    { $and: [{ status: "complete" }, { "metrics.start_time": { $lte: 25 } }] },
    { $nor: [{ status: "running" }, { type: "child" }] },
    { type: "automation", "workflow._id": { $in: ["w1", "w2"] } },
    // Not covered: these read what no index keeps, and must parse.
    { "tasks.t1.status": "complete" },
    { metrics: { $type: "number" } },
    { $expr: { $gt: ["$metrics.progress", 0.5] } },
  ];
  const sorts = [
    undefined,
    { "metrics.start_time": -1, _id: -1 },
    { "workflow.name": 1, _id: 1 },
    { status: 1, "metrics.start_time": 1, _id: 1 },
    { "metrics.progress": 1, _id: 1 },
  ] as const;

  async function storeOf(hotDocuments: number): Promise<EmbeddedBackend> {
    const store = new EmbeddedBackend({ dataDir: newDir(), hotDocuments });
    const c = store.collection("jobs");
    const indexes: Record<string, 1 | -1>[] = [
      { status: 1, sweepAt: 1 },
      { "metrics.start_time": -1, _id: -1 },
      { groups: 1, "metrics.start_time": -1 },
      { "workflow.name": 1, "metrics.start_time": -1 },
      { "workflow._id": 1 },
      { type: 1 },
    ];
    for (const keys of indexes) await c.createIndex({ keys });
    return store;
  }

  test("the same answers as with every document an object, parsing only the page", async () => {
    const docs = Array.from({ length: JOBS }, (_, i) => job(i));
    const cold = await storeOf(4);
    const hot = await storeOf(Infinity);
    try {
      await cold.collection("jobs").insertMany(docs);
      await hot.collection("jobs").insertMany(docs);
      const table = cold.table("jobs").docs;
      expect(table.coldCount).toBe(JOBS - 4);
      let compared = 0;
      for (const filter of filters)
        for (const sort of sorts) {
          for (const [skip, limit] of [
            [0, 0],
            [0, 10],
            [30, 25],
          ]) {
            const options = { ...(sort && { sort }), skip, limit };
            const before = table.parsed;
            const [a, b] = await Promise.all([
              cold.collection("jobs").find(filter, options),
              hot.collection("jobs").find(filter, options),
            ]);
            expect(JSON.stringify(a)).toBe(JSON.stringify(b));
            const coveredRead = !("tasks.t1.status" in filter || "metrics" in filter || "$expr" in filter);
            const sortCovered = !(sort && "metrics.progress" in sort);
            if (coveredRead && sortCovered) expect(table.parsed - before).toBeLessThanOrEqual(a.length);
            else expect(table.parsed - before).toBeGreaterThan(0);
            compared++;
          }
          expect(await cold.collection("jobs").count(filter)).toBe(
            await hot.collection("jobs").count(filter),
          );
        }
      expect(compared).toBe(filters.length * sorts.length * 3);
      // The covered reads found something: the answers are not all empty.
      expect(await cold.collection("jobs").count({ groups: "g2" })).toBeGreaterThan(10);
    } finally {
      await Promise.all([cold.close(), hot.close()]);
    }
  });

  test("a new index gives every cold document its field; a dropped one stops covering", async () => {
    const store = await storeOf(2);
    try {
      const c = store.collection("jobs");
      await c.insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: `k${i}`, owner: `o${i % 3}`, n: i })));
      const table = store.table("jobs").docs;
      let before = table.parsed;
      expect(await c.count({ owner: "o1" })).toBe(7);
      expect(table.parsed - before).toBe(18); // not indexed: every cold document parsed
      // Keyed and given the field in one walk: each cold document parsed once.
      before = table.parsed;
      await c.createIndex({ keys: { owner: 1 } });
      expect(table.parsed - before).toBe(18);
      // A compound index and the prefix it brings ({n}): one walk too.
      before = table.parsed;
      await c.createIndex({ keys: { n: 1, owner: 1 } });
      expect(table.parsed - before).toBe(18);
      expect(await c.find({ n: 3 })).toEqual([{ _id: "k3", owner: "o0", n: 3 }]);
      // A unique index over cold documents that share a key is refused, and nothing is indexed.
      await expect(c.createIndex({ keys: { owner: 1 }, unique: true })).rejects.toThrow(/same owner/);
      const ownerIndexes = [...store.table("jobs").indexes.values()].filter((i) => "owner" in i.keys);
      expect(ownerIndexes.map((i) => [Object.keys(i.keys), !!i.unique])).toEqual([
        [["owner"], false],
        [["n", "owner"], false],
      ]);
      await c.createIndex({ keys: { n: -1 }, unique: true });
      await expect(c.insertOne({ _id: "dup", n: 19 })).rejects.toThrow(/same n/);
      before = table.parsed;
      expect(await c.count({ owner: { $ne: "o1" } })).toBe(13);
      expect(table.parsed - before).toBe(0);
      expect((await c.find({ owner: "o2" }, { sort: { n: -1 }, limit: 2 })).map((d) => d.n)).toEqual([
        17, 14,
      ]);
    } finally {
      await store.close();
    }
  });

  test("a covered read that answers ids alone parses no document", async () => {
    const store = await storeOf(2);
    try {
      const c = store.collection("jobs");
      await c.insertMany(
        Array.from({ length: 30 }, (_, i) => ({
          status: i % 2 ? "running" : "complete",
          _id: `k${i}`,
          n: i,
        })),
      );
      const table = store.table("jobs").docs;
      const before = table.parsed;
      const ids = await c.find({ status: "running" }, { projection: { _id: 1 }, sort: { _id: 1 }, limit: 4 });
      expect(ids).toEqual([{ _id: "k1" }, { _id: "k11" }, { _id: "k13" }, { _id: "k15" }]);
      expect(table.parsed).toBe(before);
      // Anything more than the ids is read from the documents.
      const some = await c.find({ status: "running" }, { projection: { n: 1 }, sort: { _id: 1 }, limit: 2 });
      expect(some).toEqual([
        { _id: "k1", n: 1 },
        { _id: "k11", n: 11 },
      ]);
      expect(table.parsed - before).toBeGreaterThanOrEqual(2);
    } finally {
      await store.close();
    }
  });

  test("a read of a path that leads into an indexed one passes the skeletons that hold it whole", async () => {
    // `steps.state` indexed: a skeleton holds `steps` whole where it is an array, a scalar, null or
    // missing (copyPath takes those whole), and only {state} of it where it is an object.
    const shapes = [
      () => [
        { state: "a", n: 1 },
        { state: "b", n: 2, extra: [1] },
      ],
      () => [{ state: "a", n: 2 }],
      () => [],
      () => ({ state: "a", n: 1, extra: "object: the skeleton holds only its state" }),
      () => "scalar",
      () => null,
      () => undefined,
    ];
    const docs = Array.from({ length: 70 }, (_, i): Doc => {
      const steps = shapes[i % shapes.length]();
      return { _id: `s${String(i).padStart(3, "0")}`, n: i, ...(steps !== undefined && { steps }) };
    });
    const open = async (hotDocuments: number) => {
      const store = new EmbeddedBackend({ dataDir: newDir(), hotDocuments });
      await store.collection("runs").createIndex({ keys: { "steps.state": 1 } });
      await store.collection("runs").insertMany(docs);
      return store;
    };
    const cold = await open(3);
    const hot = await open(Infinity);
    try {
      const table = cold.table("runs").docs;
      const coldObjects = docs
        .slice(0, docs.length - 3)
        .filter((d) => d.steps !== null && typeof d.steps === "object" && !Array.isArray(d.steps)).length;
      const filters: Filter[] = [
        { steps: { $size: 2 } },
        { steps: { $exists: false } },
        { steps: null },
        { steps: [] },
        { "steps.n": 1 },
        { "steps.extra": { $exists: true } },
        { steps: { $elemMatch: { state: "a", n: 2 } } },
        { "steps.state": "a", "steps.n": { $gte: 2 } },
      ];
      for (const filter of filters) {
        const before = table.parsed;
        const [a, b] = await Promise.all([
          cold.collection("runs").find(filter, { sort: { "steps.n": -1, _id: 1 } }),
          hot.collection("runs").find(filter, { sort: { "steps.n": -1, _id: 1 } }),
        ]);
        expect(JSON.stringify(a)).toBe(JSON.stringify(b));
        // The objects' documents are parsed to be tested; the others only if answered.
        expect(table.parsed - before).toBeLessThanOrEqual(coldObjects + a.length);
        expect(await cold.collection("runs").count(filter)).toBe(a.length);
      }
      // An aggregation that reads the array whole (the engine's manual-task list reads so).
      const pipeline = [
        { $match: { "steps.state": "a" } },
        { $project: { s: "$steps" } },
        { $unwind: "$s" },
        { $match: { "s.state": "a" } },
        { $sort: { "s.n": 1, _id: 1 } },
      ];
      const before = table.parsed;
      const [a, b] = await Promise.all([
        cold.collection("runs").aggregate(pipeline),
        hot.collection("runs").aggregate(pipeline),
      ]);
      expect(a).toEqual(b);
      expect(a.length).toBeGreaterThan(20);
      expect(table.parsed - before).toBe(coldObjects);
    } finally {
      await Promise.all([cold.close(), hot.close()]);
    }
  });
});

describe("STORE_HOT_DOCUMENTS", () => {
  test("sets how many documents a collection holds as objects; a bad value names the variable", () => {
    expect(loadConfig({}).storeHotDocuments).toBeUndefined();
    expect(loadConfig({ STORE_HOT_DOCUMENTS: "0" }).storeHotDocuments).toBe(0);
    expect(loadConfig({ STORE_HOT_DOCUMENTS: "20000" }).storeHotDocuments).toBe(20000);
    for (const bad of ["-1", "1.5", "many"])
      expect(() => loadConfig({ STORE_HOT_DOCUMENTS: bad })).toThrow(
        /STORE_HOT_DOCUMENTS must be an integer >= 0/,
      );
  });
});

describe("the job lists clients ask for read skeletons, not every stored job", () => {
  /**
   * 120 jobs `job000`..`job119` (`job(i)`'s members over an empty task map) written through the
   * job repository with its indexes, all but the newest 8 cold; then `check`.
   */
  async function withColdJobs(
    job: (i: number) => Record<string, unknown>,
    check: (repo: JobRepository, docs: DocMap) => Promise<void>,
  ): Promise<void> {
    const store = new EmbeddedBackend({ dataDir: newDir(), hotDocuments: 8 });
    try {
      const repo = new JobRepository(store);
      await repo.ensureIndexes();
      for (let i = 0; i < 120; i++)
        await repo.insert({
          _id: `job${String(i).padStart(3, "0")}`,
          groups: [],
          tasks: {},
          version: 1,
          ...job(i),
        } as never);
      const docs = store.table("jobs").docs;
      expect(docs.coldCount).toBe(112);
      await check(repo, docs);
    } finally {
      await store.close();
    }
  }

  test("newest first, by name (Itential.py's equals=, itential-mcp's equals[name] and starts-with[name])", () =>
    withColdJobs(
      (i) => ({
        name: i % 3 ? "@p1: backup" : "push-config",
        status: "complete",
        metrics: { start_time: 1_000 + i, progress: 1 },
      }),
      async (repo, docs) => {
        const cases: [JobQueryParameters, number, string][] = [
          [{ limit: 10 }, 120, "job119"],
          [{ equals: "push-config", limit: 10 }, 40, "job117"],
          [{ equals: { name: "@p1: backup" }, limit: 25, skip: 25 }, 80, "job082"],
          [{ "starts-with": { name: "@p1" }, limit: 10 }, 80, "job119"],
        ];
        for (const [params, total, first] of cases) {
          const before = docs.parsed;
          const { items, total: counted } = await repo.page(jobStoreQuery(params));
          expect({ params, total: counted, first: items[0]?._id }).toEqual({ params, total, first });
          expect(docs.parsed - before).toBeLessThanOrEqual(items.length);
        }
      },
    ));

  test("the job counts by workflow (GET /workflow_engine/jobs/metrics) parse no stored job", () => {
    const statuses = ["complete", "error", "running", "complete"];
    return withColdJobs(
      (i) => ({
        name: "push-config",
        status: statuses[i % 4],
        workflow: { _id: `wf${i % 3}`, name: `workflow ${i % 3}` },
        metrics: { start_time: 1_000 + i, ...(i % 4 !== 2 && { end_time: 2_000 + 2 * i }), progress: 1 },
      }),
      async (repo, docs) => {
        const before = docs.parsed;
        const { total, page } = await repo.countsByWorkflow({ order: 1, skip: 0, limit: 10 });
        expect(docs.parsed).toBe(before);
        expect(total).toBe(3);
        expect(page.map((g) => [g.name, g.total, g.complete, g.error, g.running])).toEqual([
          ["workflow 0", 40, 20, 10, 10],
          ["workflow 1", 40, 20, 10, 10],
          ["workflow 2", 40, 20, 10, 10],
        ]);
        // Run time: end_time - start_time of the complete ones, 1,000 + i each.
        const runTime = (w: number) =>
          Array.from({ length: 120 }, (_, i) => i)
            .filter((i) => i % 3 === w && statuses[i % 4] === "complete")
            .reduce((sum, i) => sum + 1_000 + i, 0);
        expect(page.map((g) => g.totalRunTime)).toEqual([runTime(0), runTime(1), runTime(2)]);
      },
    );
  });

  test("the daily task metrics (GET /workflow_engine/tasks/metrics) parse no stored job", () => {
    // Job i: complete unless i % 4 === 2 (running), of workflow i % 3, ended on day i % 2 (UTC) after
    // a run of 1,000 + i ms, with i ms of manual time; workflow 0's jobs have an SLA of 1.05 s and a
    // pre-automation time of 60 s; the others neither.
    const day = (d: number) => Date.UTC(2026, 10, 1 + d);
    const ended = (i: number) => day(i % 2) + 3_600_000 + i;
    return withColdJobs(
      (i) => ({
        name: "push-config",
        status: i % 4 === 2 ? "running" : "complete",
        workflow: { _id: `wf${i % 3}`, name: `workflow ${i % 3}` },
        ...(i % 3 === 0 && { sla: 1.05, preAutomationTime: 60_000 }),
        metrics: {
          start_time: ended(i) - 1_000 - i,
          ...(i % 4 !== 2 && { end_time: ended(i) }),
          manual_time: i,
          progress: 1,
        },
      }),
      async (repo, docs) => {
        const before = docs.parsed;
        const query = { since: 0, sortBy: "workflow.name" as const, order: 1 as const, skip: 0, limit: 10 };
        const { total, page } = await repo.dailyMetrics(query);
        expect(docs.parsed).toBe(before);
        expect(total).toBe(3);
        const expected = (w: number) => {
          const jobs = (d: number) =>
            Array.from({ length: 120 }, (_, i) => i).filter((i) => i % 3 === w && i % 4 !== 2 && i % 2 === d);
          return [0, 1].map((d) => ({
            day: day(d),
            jobsComplete: jobs(d).length,
            totalRunTime: jobs(d).reduce((sum, i) => sum + 1_000 + i, 0),
            totalManualTime: jobs(d).reduce((sum, i) => sum + i, 0),
            slaTargetsMissed: w === 0 ? jobs(d).filter((i) => 1_000 + i > 1_050).length : 0,
          }));
        };
        expect(page.map((e) => e.workflow.name)).toEqual(["workflow 0", "workflow 1", "workflow 2"]);
        expect(page.map((e) => e.preAutomationTime)).toEqual([60_000, 0, 0]);
        for (const [w, entry] of page.entries())
          expect([...entry.metrics].sort((a, b) => a.day - b.day)).toEqual(expected(w));
      },
    );
  });

  test("the manual tasks of a status (GET /operations-manager/tasks) parse only the page's jobs", () => {
    // Job i: its manual task `approve` complete (i % 3 === 0), waiting (1) or canceled (2), started
    // at second i; the running ones of i % 6 === 1 paused, whose waits are not listed.
    const statusOf = (i: number) => (["complete", "waiting", "canceled"] as const)[i % 3];
    const jobStatus = (i: number) => (i % 3 === 1 ? (i % 6 === 1 ? "paused" : "running") : "complete");
    const start = (i: number) => new Date(Date.UTC(2026, 10, 1, 0, 0, i)).toISOString();
    return withColdJobs(
      (i) => {
        const tasks = {
          prepare: { name: "noop", type: "automatic", status: "complete", start_time: start(i) },
          approve: { name: "approve", type: "manual", status: statusOf(i), start_time: start(i) },
        } as never;
        return { name: "change", status: jobStatus(i), tasks, manualTasks: manualTasksOf(tasks) };
      },
      async (repo, docs) => {
        const cases: ["waiting" | "complete" | "canceled", number, string[]][] = [
          ["complete", 40, ["job117", "job114", "job111", "job108", "job105"]],
          ["canceled", 40, ["job119", "job116", "job113", "job110", "job107"]],
          // Running jobs only: i % 6 === 4.
          ["waiting", 20, ["job118", "job112", "job106", "job100", "job094"]],
        ];
        for (const [status, total, jobs] of cases) {
          const before = docs.parsed;
          const page = await repo.manualTasks({ scope: {}, status, skip: 0, limit: 5 });
          expect(docs.parsed - before).toBeLessThanOrEqual(5);
          expect(page.total).toBe(total);
          expect(page.rows.map((r) => r.job._id)).toEqual(jobs);
          expect(page.rows.every((r) => r.task.k === "approve" && r.task.v.status === status)).toBe(true);
        }
        const skipped = await repo.manualTasks({ scope: {}, status: "complete", skip: 38, limit: 5 });
        expect(skipped.rows.map((r) => r.job._id)).toEqual(["job003", "job000"]);
      },
    );
  });
});
