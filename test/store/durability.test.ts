/**
 * The embedded store's promises about its files: acknowledged writes survive SIGKILL (also while
 * compacting), reopening works after a clean close, an interrupted compaction or a torn last log
 * line, and one data directory has one owner process at a time.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DuplicateKeyError } from "../../shared/store";
import { EmbeddedBackend } from "../../shared/store/embedded/backend";
import { compactFiles } from "../../shared/store/embedded/compaction";
import { randomDoc, randomUpdate, seeded } from "../support/random-docs";

const ROOT = path.resolve(__dirname, "../..");
const NODE = path.join(ROOT, "node_modules/.bin/node");
const WRITER = path.join(ROOT, "dist/test/support/store-writer.js");

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) fs.rmSync(dir, { recursive: true, force: true });
});
function newDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "store-durability-"));
  temps.push(dir);
  return dir;
}
const storeFile = (dataDir: string, name: string) => path.join(dataDir, "store", name);

/** Runs the writer; `onLine` sees each complete stdout line; resolves with all of them once it exits. */
function runWriter(
  dataDir: string,
  compactBytes: number,
  onLine: (line: string, child: ChildProcess) => void,
) {
  const child = spawn(NODE, [WRITER, dataDir, String(compactBytes)], { stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  let pending = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8");
    const parts = pending.split("\n");
    pending = parts.pop()!; // a line without its newline was not fully printed: not an acknowledgement
    for (const line of parts) {
      lines.push(line);
      onLine(line, child);
    }
  });
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const exited = new Promise<{ lines: string[]; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on("close", (_code, signal) => resolve({ lines, signal, stderr })),
  );
  return { child, exited };
}

async function seed(dataDir: string, options: { compactBytes?: number } = {}): Promise<void> {
  const store = new EmbeddedBackend({ dataDir, ...options });
  const users = store.collection("users");
  await users.createIndex({ keys: { email: 1 }, unique: true });
  await users.insertMany([
    { _id: "a", email: "a@x", n: 1 },
    { _id: "b", email: "b@x", n: 2 },
    { _id: "c", email: "c@x", n: 3 },
  ]);
  await users.updateOne({ _id: "a" }, { $inc: { n: 10 } });
  await users.deleteOne({ _id: "c" });
  await store.close();
}
const SEEDED = [
  { _id: "a", email: "a@x", n: 11 },
  { _id: "b", email: "b@x", n: 2 },
];

async function expectSeededAndUsable(dataDir: string): Promise<void> {
  const store = new EmbeddedBackend({ dataDir });
  try {
    const users = store.collection("users");
    expect(await users.find({}, { sort: { _id: 1 } })).toEqual(SEEDED);
    await expect(users.insertOne({ email: "a@x" })).rejects.toBeInstanceOf(DuplicateKeyError);
    await users.insertOne({ _id: "d", email: "d@x" });
  } finally {
    await store.close();
  }
  const again = new EmbeddedBackend({ dataDir });
  expect((await again.collection("users").find({}, { sort: { _id: 1 } })).map((d) => d._id)).toEqual([
    "a",
    "b",
    "d",
  ]);
  await again.close();
}

test("every acknowledged write survives SIGKILL mid-stream, compactions included", async () => {
  const dataDir = newDataDir();
  let acks = 0;
  let whileHeld: unknown;
  const { child, exited } = runWriter(dataDir, 16 * 1024, (line, proc) => {
    if (line === "ready") {
      // While the writer lives, this process must not be able to open its store.
      try {
        whileHeld = new EmbeddedBackend({ dataDir });
      } catch (err) {
        whileHeld = err;
      }
    } else if (++acks >= 600 && !proc.killed && fs.existsSync(storeFile(dataDir, "snapshot.json"))) {
      // Killed once a compaction's snapshot is in place (its thread takes a moment to start).
      proc.kill("SIGKILL");
    }
  });
  const { lines, signal, stderr } = await exited;
  expect(stderr).toBe("");
  expect(signal).toBe("SIGKILL");
  expect(whileHeld).toEqual(
    new Error(`store in ${path.join(dataDir, "store")} is held by process ${child.pid}`),
  );
  expect(fs.readFileSync(storeFile(dataDir, "LOCK"), "utf8")).toBe(String(child.pid)); // left behind: stale now

  const inserted = new Set<string>();
  const updated = new Set<string>();
  const deleted = new Set<string>();
  for (const line of lines.slice(1)) {
    const [op, id] = line.split(" ");
    ({ insert: inserted, update: updated, delete: deleted })[op as "insert" | "update" | "delete"].add(id);
  }
  expect(inserted.size + updated.size + deleted.size).toBeGreaterThanOrEqual(600);
  expect(fs.existsSync(storeFile(dataDir, "snapshot.json"))).toBe(true); // it did compact on the way

  const store = new EmbeddedBackend({ dataDir }); // takes over the dead writer's lock
  try {
    const users = store.collection("users");
    const byId = new Map((await users.find()).map((d) => [d._id, d]));
    // The write in flight at the kill may be stored without its line printed: after `update u<j>`
    // with (j + 1) % 10 === 9 the writer deletes u<j - 4> next. That document may be gone or not.
    const last = lines[lines.length - 1].match(/^update u(\d+)$/);
    const inFlightDelete = last && (Number(last[1]) + 1) % 10 === 9 ? `u${Number(last[1]) - 4}` : undefined;
    for (const id of inserted) {
      if (deleted.has(id)) expect(byId.has(id)).toBe(false);
      else if (id !== inFlightDelete || byId.has(id))
        expect(byId.get(id)).toMatchObject({ _id: id, email: `${id}@example.com` });
    }
    // That in-flight delete's document was updated too (the iteration after its insert).
    for (const id of updated)
      if (!deleted.has(id) && (id !== inFlightDelete || byId.has(id)))
        expect(byId.get(id)).toMatchObject({ updated: true });
    for (const doc of byId.values()) expect(doc.n).toBe(Number(doc._id.slice(1)) + (doc.updated ? 1000 : 0));

    await expect(users.insertOne({ email: "u0@example.com" })).rejects.toBeInstanceOf(DuplicateKeyError);
    const more = await users.insertOne({ email: "after@example.com" });
    expect(await users.findOne({ _id: more._id })).toEqual(more);
  } finally {
    await store.close();
  }
  expect(fs.existsSync(storeFile(dataDir, "LOCK"))).toBe(false);
});

test("reopens after a clean close with documents and indexes intact", async () => {
  const dataDir = newDataDir();
  await seed(dataDir);
  expect(fs.existsSync(storeFile(dataDir, "LOCK"))).toBe(false);
  await expectSeededAndUsable(dataDir);
});

test("updates logged as patches (fast path) and as whole images replay to the same documents", async () => {
  const dataDir = newDataDir();
  const r = seeded(20261124);
  const store = new EmbeddedBackend({ dataDir });
  const items = store.collection("items");
  for (let i = 0; i < 40; i++) await items.insertOne(randomDoc(r, `d${i}`));
  let updates = 0;
  for (let i = 0; i < 3_000; i++) {
    const filter = r() < 0.8 ? { _id: `d${Math.floor(r() * 40)}` } : {};
    try {
      if (filter._id) await items.updateOne(filter, randomUpdate(r));
      else await items.updateMany(filter, randomUpdate(r));
      updates++;
    } catch {
      // A refused update (MongoDB's rules, mingo's error) writes nothing; the replay must not see it either.
    }
  }
  const before = JSON.stringify(await items.find({}));
  await store.close();
  const log = fs.readFileSync(storeFile(dataDir, "store.log"), "utf8");
  // Both kinds of line are in this log, or the test proves nothing about one of them.
  expect(log).toContain('"patch":[');
  expect(log.split("\n").filter((line) => line.includes('"put":[')).length).toBeGreaterThan(40);
  // Many random updates are refused by MongoDB's rules (overlapping paths, $inc on a string): the rest still count.
  expect(updates).toBeGreaterThan(500);

  const reopened = new EmbeddedBackend({ dataDir });
  // Same documents, same key order.
  expect(JSON.stringify(await reopened.collection("items").find({}))).toBe(before);
  await reopened.close();
});

test("compaction writes a snapshot, empties the log, and loses nothing", async () => {
  const dataDir = newDataDir();
  const store = new EmbeddedBackend({ dataDir, compactBytes: 4096 });
  const items = store.collection("items");
  await items.createIndex({ keys: { k: 1 }, unique: true });
  for (let i = 0; i < 200; i++) await items.insertOne({ _id: `i${i}`, k: i, text: "y".repeat(50) });
  await items.deleteMany({ k: { $gte: 100 } });
  await store.compacted();
  // Writes made while a compaction runs go to the fresh log; the next write past the threshold
  // starts the next compaction, which takes them into its snapshot.
  await items.updateOne({ _id: "i0" }, { $set: { text: "z" } });
  await store.compacted();
  await store.close();
  expect(fs.existsSync(storeFile(dataDir, "snapshot.json"))).toBe(true);
  expect(fs.statSync(storeFile(dataDir, "store.log")).size).toBeLessThan(4096);
  expect(fs.readdirSync(path.join(dataDir, "store")).filter((f) => f.startsWith("store.log."))).toEqual([]);

  const reopened = new EmbeddedBackend({ dataDir });
  const again = reopened.collection("items");
  expect(await again.count()).toBe(100);
  expect((await again.find({}, { sort: { k: -1 }, limit: 1 }))[0]._id).toBe("i99");
  await expect(again.insertOne({ k: 5 })).rejects.toBeInstanceOf(DuplicateKeyError);
  await reopened.close();
});

/** The snapshot's lines: each JSON line parsed; a document's line as {id, doc}. */
function snapshotLines(dataDir: string) {
  return fs
    .readFileSync(storeFile(dataDir, "snapshot.json"), "utf8")
    .trim()
    .split("\n")
    .map((line) => {
      const tab = line.indexOf("\t");
      return tab === -1
        ? JSON.parse(line)
        : { id: JSON.parse(line.slice(0, tab)), doc: JSON.parse(line.slice(tab + 1)) };
    });
}

/**
 * Reopens `dataDir`, makes `write`, then one write to `padding` as large as the snapshot: the log
 * then passes the threshold (the snapshot's size), and the compaction it starts holds every write.
 */
async function compactAfter(dataDir: string, write: (store: EmbeddedBackend) => Promise<unknown>) {
  const snapshot = storeFile(dataDir, "snapshot.json");
  const compacting = new EmbeddedBackend({ dataDir, compactBytes: 1 });
  await write(compacting);
  const size = fs.existsSync(snapshot) ? fs.statSync(snapshot).size : 0;
  await compacting.collection("padding").insertOne({ text: "x".repeat(size + 1) });
  await compacting.compacted();
  await compacting.close();
  expect(fs.readdirSync(path.dirname(snapshot)).filter((f) => f.startsWith("store.log."))).toEqual([]);
}

test("the snapshot is JSON lines, one per document (no one string for the whole store), and loads back", async () => {
  const dataDir = newDataDir();
  const store = new EmbeddedBackend({ dataDir, compactBytes: 1 << 20 });
  const items = store.collection("items");
  await items.createIndex({ keys: { k: 1 }, unique: true });
  await items.insertMany(Array.from({ length: 1200 }, (_, i) => ({ _id: `i${i}`, k: i })));
  await store.collection("other").insertOne({ _id: "o1" });
  // An id a tab, quote or line break could confuse: JSON escapes them, so the line's tab is its own.
  await store.collection("other").insertOne({ _id: 'o\t"2\n', note: "tab\there" });
  await store.close();
  await compactAfter(dataDir, (s) =>
    s.collection("items").updateOne({ _id: "i0" }, { $set: { touched: true } }),
  );

  const lines = snapshotLines(dataDir);
  expect(lines[0]).toEqual({ s: expect.any(Number), format: "doc-lines" });
  // items: its indexes, then its 1,200 documents a line each, each beside its id; then other.
  const items_ = lines.filter((l) => l.doc && l.id.startsWith("i"));
  expect(items_).toHaveLength(1200);
  expect(items_.every((l) => l.id === l.doc._id)).toBe(true);
  expect(lines.filter((l) => l.c === "items" && l.idx)).toHaveLength(1);
  expect(lines.find((l) => l.id === 'o\t"2\n')?.doc).toEqual({ _id: 'o\t"2\n', note: "tab\there" });

  const reopened = new EmbeddedBackend({ dataDir });
  expect(await reopened.collection("items").count()).toBe(1200);
  expect(await reopened.collection("items").findOne({ _id: "i0" })).toEqual({
    _id: "i0",
    k: 0,
    touched: true,
  });
  expect(await reopened.collection("other").count()).toBe(2);
  expect(await reopened.collection("other").findOne({ _id: 'o\t"2\n' })).toEqual({
    _id: 'o\t"2\n',
    note: "tab\there",
  });
  await expect(reopened.collection("items").insertOne({ k: 7 })).rejects.toBeInstanceOf(DuplicateKeyError);
  await reopened.close();
});

test("a compaction copies the lines of documents no write touched, byte for byte, and writes the touched anew", async () => {
  const dataDir = newDataDir();
  fs.mkdirSync(path.join(dataDir, "store"), { recursive: true });
  // Lines no serializer of ours writes (spaces inside): kept as they are only if copied, not re-made.
  const untouched = '"u1"\t{ "_id": "u1", "k": 1 }';
  const patched = '"p1"\t{ "_id": "p1", "k": 2 }';
  const replaced = '"r1"\t{ "_id": "r1", "k": 3 }';
  const deleted = '"d1"\t{ "_id": "d1", "k": 4 }';
  fs.writeFileSync(
    storeFile(dataDir, "snapshot.json"),
    [
      '{"s":5,"format":"doc-lines"}',
      '{"c":"items","idx":[{"name":"k_1","keys":{"k":1},"unique":true}]}',
      untouched,
      patched,
      replaced,
      deleted,
      "",
    ].join("\n"),
  );
  await compactAfter(dataDir, async (s) => {
    const items = s.collection("items");
    await items.updateOne({ _id: "p1" }, { $set: { k: 20 } });
    await items.updateOne({ _id: "r1" }, { $set: { k: 30 }, $push: { tags: "whole" } });
    await items.deleteOne({ _id: "d1" });
    await items.insertOne({ _id: "n1", k: 5 });
  });

  const text = fs.readFileSync(storeFile(dataDir, "snapshot.json"), "utf8").split("\n");
  expect(text).toContain(untouched);
  expect(text).not.toContain(patched);
  expect(text.join("\n")).not.toContain('"d1"');
  const docs = snapshotLines(dataDir)
    .filter((l) => l.doc && l.doc.k !== undefined)
    .sort((a, b) => a.doc.k - b.doc.k);
  expect(docs.map((l) => l.doc)).toEqual([
    { _id: "u1", k: 1 },
    { _id: "n1", k: 5 },
    { _id: "p1", k: 20 },
    { _id: "r1", k: 30, tags: ["whole"] },
  ]);

  const reopened = new EmbeddedBackend({ dataDir });
  expect(await reopened.collection("items").find({}, { sort: { k: 1 } })).toEqual(docs.map((l) => l.doc));
  await expect(reopened.collection("items").insertOne({ k: 1 })).rejects.toBeInstanceOf(DuplicateKeyError);
  await reopened.close();
});

test("a compaction refuses a document line it cannot vouch for (cut short, or outside a collection) and writes nothing", () => {
  const dir = path.join(newDataDir(), "store");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "store.log.6"), '{"s":6,"c":"items","put":[{"_id":"n1","k":5}]}\n');
  const tmp = path.join(dir, "snapshot.json.tmp");
  const bad = {
    "cut short": ['{"s":5,"format":"doc-lines"}', '{"c":"items","idx":[]}', '"u1"\t{"_id":"u1","k":'],
    "before any collection": ['{"s":5,"format":"doc-lines"}', '"u1"\t{"_id":"u1","k":1}'],
  };
  for (const [what, lines] of Object.entries(bad)) {
    fs.writeFileSync(path.join(dir, "snapshot.json"), lines.join("\n") + "\n");
    expect({ what, run: () => compactFiles({ dir, seq: 6, tmp }) }.run).toThrow(
      /no document line of a collection/,
    );
    expect(fs.existsSync(tmp)).toBe(false);
  }
  // The same snapshot whole compacts.
  fs.writeFileSync(
    path.join(dir, "snapshot.json"),
    bad["cut short"].slice(0, 2).join("\n") + '\n"u1"\t{"_id":"u1","k":1}\n',
  );
  const done = compactFiles({ dir, seq: 6, tmp });
  // In place, the log it covers deleted.
  expect(done).toEqual({ docs: 2, bytes: fs.statSync(path.join(dir, "snapshot.json")).size });
  expect(fs.readdirSync(dir)).toEqual(["snapshot.json"]);
});

test("a snapshot whose document line names another id than its document's refuses to load", () => {
  const dataDir = newDataDir();
  fs.mkdirSync(path.join(dataDir, "store"), { recursive: true });
  fs.writeFileSync(
    storeFile(dataDir, "snapshot.json"),
    '{"s":5,"format":"doc-lines"}\n{"c":"items","idx":[]}\n"u1"\t{"_id":"u2","k":1}\n',
  );
  expect(() => new EmbeddedBackend({ dataDir })).toThrow('snapshot line of "u1" holds the document "u2"');
});

test("a snapshot in the chunked format (documents 100 to a line) still loads, and compacts into a line per document", async () => {
  const dataDir = newDataDir();
  fs.mkdirSync(path.join(dataDir, "store"), { recursive: true });
  const docs = Array.from({ length: 250 }, (_, i) => ({ _id: `c${i}`, k: i }));
  fs.writeFileSync(
    storeFile(dataDir, "snapshot.json"),
    [
      JSON.stringify({ s: 7, format: "lines" }),
      JSON.stringify({ c: "items", idx: [{ name: "k_1", keys: { k: 1 }, unique: true }] }),
      ...[0, 100, 200].map((at) => JSON.stringify({ c: "items", docs: docs.slice(at, at + 100) })),
      "",
    ].join("\n"),
  );
  const store = new EmbeddedBackend({ dataDir });
  expect(await store.collection("items").count()).toBe(250);
  await expect(store.collection("items").insertOne({ k: 3 })).rejects.toBeInstanceOf(DuplicateKeyError);
  await store.close();

  await compactAfter(dataDir, (s) => s.collection("items").updateOne({ _id: "c0" }, { $set: { k: -1 } }));
  const lines = snapshotLines(dataDir);
  expect(lines[0]).toEqual({ s: expect.any(Number), format: "doc-lines" });
  expect(lines.filter((l) => l.doc && l.doc.k !== undefined).map((l) => l.doc)).toEqual([
    { _id: "c0", k: -1 },
    ...docs.slice(1),
  ]);
  const reopened = new EmbeddedBackend({ dataDir });
  expect(await reopened.collection("items").count()).toBe(250);
  await reopened.close();
});

/** A store of `count` documents of about 2 KB, closed, reopened with a one-byte threshold. */
async function storeAboutToCompact(dataDir: string, count: number): Promise<EmbeddedBackend> {
  const seeding = new EmbeddedBackend({ dataDir, compactBytes: Number.MAX_SAFE_INTEGER });
  await seeding
    .collection("items")
    .insertMany(Array.from({ length: count }, (_, i) => ({ _id: `i${i}`, k: i, text: "x".repeat(2000) })));
  await seeding.close();
  return new EmbeddedBackend({ dataDir, compactBytes: 1 });
}

test("a compaction runs beside the writes: they are answered while it writes, and all are kept", async () => {
  const dataDir = newDataDir();
  const store = await storeAboutToCompact(dataDir, 3000);
  const items = store.collection("items");
  let compacting = true;
  await items.insertOne({ _id: "first", k: -1 }); // crosses the threshold: the compaction starts
  void store.compacted().then(() => (compacting = false));
  const during: string[] = [];
  for (let i = 0; i < 20 && compacting; i++) {
    await new Promise((resolve) => setImmediate(resolve)); // a turn of the event loop, as a request's
    await items.insertOne({ _id: `during${i}`, k: 10_000 + i });
    during.push(`during${i}`);
  }
  // 3,000 documents are 30 snapshot chunks, one per turn: writes got in between them.
  expect(during.length).toBeGreaterThan(0);
  await store.compacted();
  await store.close();

  const reopened = new EmbeddedBackend({ dataDir });
  expect(await reopened.collection("items").count()).toBe(3001 + during.length);
  for (const id of ["first", ...during])
    expect(await reopened.collection("items").findOne({ _id: id })).not.toBeNull();
  await reopened.close();
});

test("a crash mid-compaction (log rotated, snapshot not yet in place) loses nothing", async () => {
  const dataDir = newDataDir();
  const store = await storeAboutToCompact(dataDir, 3000);
  const items = store.collection("items");
  await items.insertOne({ _id: "first", k: -1 }); // the compaction starts: the log is rotated
  await items.insertOne({ _id: "after", k: -2 }); // in the fresh log
  // The files as a SIGKILL now would leave them: a copy, taken while the snapshot is being written.
  const crashed = newDataDir();
  fs.cpSync(path.join(dataDir, "store"), path.join(crashed, "store"), { recursive: true });
  fs.rmSync(path.join(crashed, "store", "LOCK"), { force: true });
  expect(fs.readdirSync(path.join(crashed, "store")).filter((f) => f.startsWith("store.log."))).toHaveLength(
    1,
  );
  await store.compacted();
  await store.close();

  const reopened = new EmbeddedBackend({ dataDir: crashed });
  const again = reopened.collection("items");
  expect(await again.count()).toBe(3002);
  expect(await again.findOne({ _id: "after" })).toEqual({ _id: "after", k: -2 });
  // A rotated log older than a snapshot in place is deleted on open; this one is not: it was replayed.
  await again.insertOne({ _id: "later", k: -3 });
  await reopened.close();
  const third = new EmbeddedBackend({ dataDir: crashed });
  expect(await third.collection("items").count()).toBe(3003);
  await third.close();
});

test("durable mode: writes waiting for a flush when the log is rotated are flushed first, and kept", async () => {
  const dataDir = newDataDir();
  const store = new EmbeddedBackend({ dataDir, fsync: true, compactBytes: 2048 });
  const items = store.collection("items");
  // Not awaited one by one: many writes wait for one flush while compactions rotate the log.
  await Promise.all(
    Array.from({ length: 300 }, (_, i) => items.insertOne({ _id: `d${i}`, k: i, text: "q".repeat(40) })),
  );
  await store.compacted();
  await store.close();
  const reopened = new EmbeddedBackend({ dataDir });
  expect(await reopened.collection("items").count()).toBe(300);
  await reopened.close();
});

test("a snapshot in the older one-object format still loads", async () => {
  const dataDir = newDataDir();
  fs.mkdirSync(path.join(dataDir, "store"), { recursive: true });
  const old = {
    s: 3,
    collections: {
      users: {
        docs: [{ _id: "a", name: "ann" }],
        indexes: [{ name: "name_1", keys: { name: 1 }, unique: true }],
      },
    },
  };
  fs.writeFileSync(storeFile(dataDir, "snapshot.json"), JSON.stringify(old));
  const store = new EmbeddedBackend({ dataDir });
  expect(await store.collection("users").find({})).toEqual([{ _id: "a", name: "ann" }]);
  await expect(store.collection("users").insertOne({ name: "ann" })).rejects.toBeInstanceOf(
    DuplicateKeyError,
  );
  await store.close();
});

test("a compaction interrupted before its rename (leftover temp snapshot) is discarded", async () => {
  const dataDir = newDataDir();
  await seed(dataDir);
  const tmp = storeFile(dataDir, "snapshot.json.tmp");
  fs.writeFileSync(tmp, '{"s":999999,"collections":{"users":{"docs":[{"_id":"ghost"');
  await expectSeededAndUsable(dataDir);
  expect(fs.existsSync(tmp)).toBe(false);
});

test("a compaction interrupted after its rename (log not yet emptied) replays nothing twice", async () => {
  const dataDir = newDataDir();
  await seed(dataDir);
  const oldLog = fs.readFileSync(storeFile(dataDir, "store.log"));
  // Reopen with a tiny threshold: the next write compacts everything into the snapshot.
  const store = new EmbeddedBackend({ dataDir, compactBytes: 1 });
  await store.collection("users").updateOne({ _id: "b" }, { $inc: { n: 0.5 } });
  await store.close();
  expect(fs.statSync(storeFile(dataDir, "store.log")).size).toBe(0);
  // As if the process died between the rename and the truncation: the old lines are still there.
  fs.writeFileSync(storeFile(dataDir, "store.log"), oldLog);

  const reopened = new EmbeddedBackend({ dataDir });
  expect(await reopened.collection("users").find({}, { sort: { _id: 1 } })).toEqual([
    SEEDED[0],
    { ...SEEDED[1], n: 2.5 },
  ]);
  await reopened.close();
});

test("a torn last log line is ignored and cut off, so later writes are not glued to it", async () => {
  const dataDir = newDataDir();
  await seed(dataDir);
  fs.appendFileSync(storeFile(dataDir, "store.log"), '{"s":999,"c":"users","put":[{"_id":"torn","email":"t@');
  await expectSeededAndUsable(dataDir);
  const store = new EmbeddedBackend({ dataDir });
  expect(await store.collection("users").findOne({ _id: "torn" })).toBeNull();
  await store.close();
});

test("an unparseable last line is ignored, but corruption earlier in the log refuses to open", async () => {
  const dataDir = newDataDir();
  await seed(dataDir);
  const log = storeFile(dataDir, "store.log");
  const good = fs.readFileSync(log, "utf8");
  fs.writeFileSync(log, good + "garbage\n");
  const store = new EmbeddedBackend({ dataDir });
  expect(await store.collection("users").count()).toBe(2);
  await store.close();

  fs.writeFileSync(log, "garbage\n" + good);
  expect(() => new EmbeddedBackend({ dataDir })).toThrow(/corrupt/);
  expect(fs.existsSync(storeFile(dataDir, "LOCK"))).toBe(false); // a failed open leaves no lock behind
});

test("a stale lock (dead pid, or our own pid from an earlier life) is taken over", async () => {
  const dataDir = newDataDir();
  await seed(dataDir);
  const dead = spawnSync(NODE, ["-e", ""]).pid!;
  fs.writeFileSync(storeFile(dataDir, "LOCK"), String(dead));
  const store = new EmbeddedBackend({ dataDir });
  expect(fs.readFileSync(storeFile(dataDir, "LOCK"), "utf8")).toBe(String(process.pid));
  expect(await store.collection("users").count()).toBe(2);
  await store.close();

  // A container restarts as pid 1 again: a LOCK with our pid that we do not hold is stale too.
  fs.writeFileSync(storeFile(dataDir, "LOCK"), String(process.pid));
  const again = new EmbeddedBackend({ dataDir });
  await again.close();
});

test("a lock held by a live process is refused with a clear error", async () => {
  const dataDir = newDataDir();
  const sleeper = spawn(NODE, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
  try {
    fs.mkdirSync(path.join(dataDir, "store"), { recursive: true });
    fs.writeFileSync(storeFile(dataDir, "LOCK"), String(sleeper.pid));
    expect(() => new EmbeddedBackend({ dataDir })).toThrow(
      `store in ${path.join(dataDir, "store")} is held by process ${sleeper.pid}`,
    );
    expect(fs.readFileSync(storeFile(dataDir, "LOCK"), "utf8")).toBe(String(sleeper.pid));
  } finally {
    sleeper.kill("SIGKILL");
  }
});

test("closed stores refuse work", async () => {
  const store = new EmbeddedBackend({ dataDir: newDataDir() });
  await store.close();
  await expect(store.ping()).rejects.toThrow(/closed/);
  await expect(store.collection("x").insertOne({})).rejects.toThrow(/closed/);
});
