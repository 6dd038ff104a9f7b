/**
 * The embedded store's compaction thread (shared/store/embedded/compaction.ts): the snapshot it makes
 * from the files alone holds exactly what the store held at the log's rotation, and it refuses to
 * write one that could miss a write. Through the store's API: random writes (whole images, fast
 * updates logged as patches, deletes, index changes) across many compactions, then a reopen that
 * must find every document, in the same order, and the indexes as they were left.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EmbeddedBackend } from "../../shared/store/embedded/backend";
import { compactFiles } from "../../shared/store/embedded/compaction";
import { KeptLine, writeSnapshotSync } from "../../shared/store/embedded/snapshot-writer";
import type { Doc } from "../../shared/store";
import { int, pick, randomDoc, randomUpdate, seeded } from "../support/random-docs";

const dirs: string[] = [];
const newDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "compaction-thread-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

const NAMES = ["jobs", "devices"] as const;

async function contents(store: EmbeddedBackend): Promise<Record<string, Doc[]>> {
  const out: Record<string, Doc[]> = {};
  for (const name of NAMES) out[name] = await store.collection(name).find({});
  return out;
}

test("a compaction's snapshot holds what the store held at its rotation: 3,000 random writes, many compactions, a reopen", async () => {
  const dataDir = newDir();
  const r = seeded(20261128);
  let store = new EmbeddedBackend({ dataDir, compactBytes: 24 * 1024 });
  let indexed = false;
  for (let i = 0; i < 3000; i++) {
    const c = store.collection(pick(r, NAMES));
    const id = `d${int(r, 0, 150)}`;
    const kind = r();
    try {
      if (kind < 0.3) await c.insertOne(randomDoc(r, id));
      else if (kind < 0.75) await c.updateOne({ _id: id }, randomUpdate(r));
      else if (kind < 0.85) await c.deleteOne({ _id: id });
      else if (kind < 0.87) {
        if (indexed) await c.dropIndex("tag_1");
        else await c.createIndex({ keys: { tag: 1 }, name: "tag_1" });
        indexed = !indexed;
      } else await c.updateOne({ _id: id }, { $set: { tag: `t${i}` } }, { upsert: true });
    } catch {
      // a write the store refuses (a duplicate id, an update that conflicts) changes nothing
    }
    if (i % 500 === 499) await store.compacted();
  }
  await store.compacted();
  const files = fs.readdirSync(path.join(dataDir, "store"));
  expect(files).toContain("snapshot.json");
  const before = await contents(store);
  expect(before.jobs.length + before.devices.length).toBeGreaterThan(100);
  await store.close();

  store = new EmbeddedBackend({ dataDir });
  try {
    // Same documents, same natural order: the snapshot and the log after it replayed.
    expect(await contents(store)).toEqual(before);
  } finally {
    await store.close();
  }

  // The last snapshot alone, made again from the files by compactFiles, equals the store too.
  const only = newDir();
  fs.cpSync(path.join(dataDir, "store"), path.join(only, "store"), { recursive: true });
  fs.rmSync(path.join(only, "store", "LOCK"), { force: true });
  const log = path.join(only, "store", "store.log");
  const lines = fs.readFileSync(log, "utf8").split("\n").filter(Boolean);
  const last = lines.length ? (JSON.parse(lines[lines.length - 1]) as { s: number }).s : undefined;
  if (last !== undefined) {
    fs.renameSync(log, path.join(only, "store", `store.log.${last}`));
    const tmp = path.join(only, "store", "snapshot.json.tmp");
    compactFiles({ dir: path.join(only, "store"), seq: last, tmp });
    // compactFiles put its snapshot in place and deleted the log it covers, on its own.
    expect(fs.readdirSync(path.join(only, "store")).sort()).toEqual(["snapshot.json"]);
  }
  const again = new EmbeddedBackend({ dataDir: only });
  try {
    expect(await contents(again)).toEqual(before);
  } finally {
    await again.close();
  }
});

test("a compaction refuses logs with a gap, and logs that end before its seq: no snapshot is written", () => {
  const dir = path.join(newDir(), "store");
  fs.mkdirSync(dir, { recursive: true });
  const line = (s: number) => JSON.stringify({ s, c: "x", put: [{ _id: `d${s}` }] }) + "\n";
  fs.writeFileSync(path.join(dir, "store.log.4"), line(1) + line(2) + line(4));
  const tmp = path.join(dir, "snapshot.json.tmp");
  expect(() => compactFiles({ dir, seq: 4, tmp })).toThrow(/miss seq 3/);
  fs.writeFileSync(path.join(dir, "store.log.4"), line(1) + line(2) + line(3));
  expect(() => compactFiles({ dir, seq: 4, tmp })).toThrow(/end at seq 3, not 4/);
  expect(fs.existsSync(tmp)).toBe(false);
  expect(fs.existsSync(path.join(dir, "snapshot.json"))).toBe(false);
  expect(fs.existsSync(path.join(dir, "store.log.4"))).toBe(true);
  fs.writeFileSync(path.join(dir, "store.log.4"), line(1) + line(2) + line(3) + line(4));
  fs.writeFileSync(path.join(dir, "store.log.9"), line(5)); // after the compaction's seq: kept
  expect(compactFiles({ dir, seq: 4, tmp })).toEqual({
    docs: 4,
    bytes: fs.statSync(path.join(dir, "snapshot.json")).size,
  });
  expect(fs.readdirSync(dir).sort()).toEqual(["snapshot.json", "store.log.9"]);
});

test("a compaction's end renames and deletes nothing on the store's thread: its own thread installs the snapshot", async () => {
  const dataDir = newDir();
  const dir = path.join(dataDir, "store");
  const store = new EmbeddedBackend({ dataDir, compactBytes: 16 * 1024 });
  const onStoreThread: string[] = [];
  const realRename = fs.renameSync;
  const realRm = fs.rmSync;
  const rename = jest.spyOn(fs, "renameSync").mockImplementation((from, to) => {
    onStoreThread.push(`rename ${path.basename(String(from))} ${path.basename(String(to))}`);
    realRename(from, to);
  });
  const rm = jest.spyOn(fs, "rmSync").mockImplementation((target, options) => {
    onStoreThread.push(`rm ${path.basename(String(target))}`);
    realRm(target, options);
  });
  try {
    const docs = store.collection("docs");
    for (let i = 0; i < 40; i++) await docs.insertOne({ _id: `d${i}`, pad: "x".repeat(1000) });
    await store.compacted();
    // The store's thread rotated the log, and did nothing else to the folder.
    expect(onStoreThread.length).toBeGreaterThan(0);
    expect(onStoreThread.every((op) => /^rename store\.log store\.log\.\d+$/.test(op))).toBe(true);
    // The compaction's thread put the snapshot in place and deleted the rotated logs it covered.
    expect(fs.readdirSync(dir).filter((f) => f.startsWith("store.log.") || f.endsWith(".tmp"))).toEqual([]);
    expect(fs.existsSync(path.join(dir, "snapshot.json"))).toBe(true);
  } finally {
    rename.mockRestore();
    rm.mockRestore();
    await store.close();
  }
  const again = new EmbeddedBackend({ dataDir });
  try {
    expect(await again.collection("docs").count({})).toBe(40);
  } finally {
    await again.close();
  }
});

test("the next compaction waits for as many bytes of log as the snapshot holds, when that is more than the threshold", async () => {
  const dataDir = newDir();
  const dir = path.join(dataDir, "store");
  const snapshotSeq = () => {
    const file = path.join(dir, "snapshot.json");
    if (!fs.existsSync(file)) return 0;
    return (JSON.parse(fs.readFileSync(file, "utf8").split("\n")[0]) as { s: number }).s;
  };
  let store = new EmbeddedBackend({ dataDir, compactBytes: 16 * 1024 });
  const docs = store.collection("docs");
  // About 1 KiB a line: 200 lines, so the snapshot grows past the 16 KiB threshold.
  for (let i = 0; i < 200; i++) await docs.insertOne({ _id: `d${i}`, pad: "x".repeat(1000) });
  await store.compacted();
  await docs.insertOne({ _id: "last", pad: "x".repeat(1000) }); // may start one more, from the last one's threshold
  await store.compacted();
  const size = fs.statSync(path.join(dir, "snapshot.json")).size;
  expect(size).toBeGreaterThan(4 * 16 * 1024);
  const seq = snapshotSeq();
  // Half the snapshot's size in updates: past 16 KiB of log, below the snapshot's size: no compaction.
  const lines = Math.floor(size / 2 / 1100);
  for (let i = 0; i < lines; i++) await docs.updateOne({ _id: `d${i}` }, { $set: { pad: "y".repeat(1000) } });
  await store.compacted();
  expect(snapshotSeq()).toBe(seq);
  // The same again, and more: the log passes the snapshot's size, and it compacts.
  for (let i = 0; i < lines + 20; i++)
    await docs.updateOne({ _id: `d${i}` }, { $set: { pad: "z".repeat(1000) } });
  await store.compacted();
  expect(snapshotSeq()).toBeGreaterThan(seq);
  await store.close();

  // Reopened, the store takes its threshold from the snapshot on disk.
  store = new EmbeddedBackend({ dataDir, compactBytes: 16 * 1024 });
  const after = snapshotSeq();
  for (let i = 0; i < lines; i++)
    await store.collection("docs").updateOne({ _id: `d${i}` }, { $set: { n: i, pad: "w".repeat(1000) } });
  await store.compacted();
  expect(snapshotSeq()).toBe(after);
  await store.close();
});

test("a snapshot written in short writes is the same file: each goes on where the last stopped", () => {
  // A disk that takes a few bytes a call (a full disk, a signal) must not lose or repeat any.
  const docs = Array.from({ length: 40 }, (_, i) => ({ _id: `d${i}`, text: "é".repeat(i) }));
  const dir = newDir();
  // A kept line is copied from the last snapshot's file, by where it is there.
  const last = `"k0"\t{"_id":"k0"}\n"k1"\t{"_id":"k1","kept":true}\n`;
  fs.writeFileSync(path.join(dir, "last.json"), last);
  const source = fs.openSync(path.join(dir, "last.json"), "r");
  const kept = new KeptLine(last.indexOf('"k1"'), `"k1"\t{"_id":"k1","kept":true}`.length);
  const tables = () => [{ name: "jobs", indexes: [], docs: [...docs, kept] }];
  const whole = path.join(dir, "whole.json");
  const short = path.join(dir, "short.json");
  const bytes = writeSnapshotSync(whole, 7, tables(), source);
  const writev = fs.writevSync;
  let calls = 0;
  const spy = jest.spyOn(fs, "writevSync").mockImplementation((fd, buffers) => {
    // A write that never moves on would loop for ever: fail instead.
    if (++calls > 100_000) throw new Error("the snapshot's writes went on without end");
    // At most 5 bytes of the first buffers, through the real call.
    const first = Buffer.concat(buffers as Buffer[]).subarray(0, 5);
    return writev(fd, [first]);
  });
  try {
    expect(writeSnapshotSync(short, 7, tables(), source)).toBe(bytes);
  } finally {
    spy.mockRestore();
    fs.closeSync(source);
  }
  expect(calls).toBeGreaterThan(bytes / 5 - 1);
  expect(fs.readFileSync(short).equals(fs.readFileSync(whole))).toBe(true);
  expect(fs.readFileSync(whole, "utf8")).toContain(`"k1"\t{"_id":"k1","kept":true}\n`);
});

test("a last snapshot whose last line has no newline is compacted: its kept line is copied and given one", async () => {
  // The writer always ends a snapshot with a newline; one written by hand or cut short may not.
  const dataDir = newDir();
  const dir = path.join(dataDir, "store");
  fs.mkdirSync(dir, { recursive: true });
  const lines = [
    JSON.stringify({ s: 1, format: "doc-lines" }),
    JSON.stringify({ c: "jobs", idx: [] }),
    `"x"\t${JSON.stringify({ _id: "x", v: 1 })}`,
    `"y"\t${JSON.stringify({ _id: "y", v: 2 })}`,
  ];
  fs.writeFileSync(path.join(dir, "snapshot.json"), lines.join("\n")); // no newline at its end
  fs.writeFileSync(
    path.join(dir, "store.log.2"),
    JSON.stringify({ s: 2, c: "jobs", put: [{ _id: "z", v: 3 }] }) + "\n",
  );
  compactFiles({ dir, seq: 2, tmp: path.join(dir, "snapshot.json.tmp") });
  const written = fs.readFileSync(path.join(dir, "snapshot.json"), "utf8");
  expect(written.endsWith("\n")).toBe(true);
  expect(written).toContain(`${lines[3]}\n`);
  const store = new EmbeddedBackend({ dataDir });
  try {
    expect(await store.collection("jobs").find({})).toEqual([
      { _id: "x", v: 1 },
      { _id: "y", v: 2 },
      { _id: "z", v: 3 },
    ]);
  } finally {
    await store.close();
  }
});

test("the compaction thread loads the store's file code and no package (no mongodb driver, no mingo)", () => {
  // A worker is an isolate of its own: each package it loads is loaded again, for that thread.
  const root = path.join(__dirname, "../..");
  const script = `
    require(${JSON.stringify(path.join(root, "dist/shared/worker-pool.js"))});
    require(${JSON.stringify(path.join(root, "dist/shared/store/embedded/compaction.js"))});
    const files = Object.keys(require.cache);
    console.log(JSON.stringify({ files: files.length, packages: files.filter((f) => f.includes("node_modules")) }));
  `;
  const child = spawnSync(path.join(root, "node_modules/.bin/node"), ["-e", script], {
    encoding: "utf8",
    timeout: 20_000,
  });
  expect(child.stderr).toBe("");
  const loaded = JSON.parse(child.stdout) as { files: number; packages: string[] };
  expect(loaded.packages).toEqual([]);
  expect(loaded.files).toBeGreaterThanOrEqual(7); // the pool, the compaction and its modules
});
