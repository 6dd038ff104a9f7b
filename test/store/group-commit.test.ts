/**
 * Durable mode (STORE_FSYNC=true; shared/store/embedded/backend.ts): a write is acknowledged only
 * after an fdatasync that covers its log line, and one fdatasync serves a whole burst of writes
 * (group commit), run off the event loop. A flush that fails fails its writes and the store.
 * The default mode writes the lines of one turn together (one writeSync), and acknowledges each
 * write, and answers each read, only once that write is done.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EmbeddedBackend } from "../../shared/store/embedded/backend";

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) fs.rmSync(dir, { recursive: true, force: true });
});
function newDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "store-group-commit-"));
  temps.push(dir);
  return dir;
}

afterEach(() => jest.restoreAllMocks());

type Callback = (err: NodeJS.ErrnoException | null) => void;

/** fs.fdatasync held until `release()`: each call's callback waits in `held`. */
function holdFlushes() {
  const held: Callback[] = [];
  const spy = jest.spyOn(fs, "fdatasync").mockImplementation(((_fd: number, cb: Callback) => {
    held.push(cb);
  }) as unknown as typeof fs.fdatasync);
  return {
    spy,
    held,
    release(err: NodeJS.ErrnoException | null = null) {
      for (const cb of held.splice(0)) cb(err);
    },
  };
}

const turn = () => new Promise((r) => setImmediate(r));

test("a write is acknowledged only once a flush covering it has finished", async () => {
  const store = new EmbeddedBackend({ dataDir: newDataDir(), fsync: true });
  const flushes = holdFlushes();
  let acknowledged = false;
  const write = store
    .collection("jobs")
    .insertOne({ _id: "j1", state: "running" })
    .then(() => (acknowledged = true));
  await turn();
  await turn();
  expect(flushes.held).toHaveLength(1);
  expect(acknowledged).toBe(false);
  // Visible to reads at once (the line is written), as MongoDB's local reads are.
  expect(await store.collection("jobs").findOne({ _id: "j1" })).toMatchObject({ state: "running" });
  flushes.release();
  await write;
  expect(acknowledged).toBe(true);
  jest.restoreAllMocks();
  await store.close();
});

test("a burst of 200 writes shares a handful of flushes, and every write is on disk after", async () => {
  const dataDir = newDataDir();
  const store = new EmbeddedBackend({ dataDir, fsync: true });
  const real = fs.fdatasync;
  const spy = jest
    .spyOn(fs, "fdatasync")
    .mockImplementation(((fd: number, cb: Callback) => real(fd, cb)) as unknown as typeof fs.fdatasync);
  const syncSpy = jest.spyOn(fs, "fdatasyncSync");
  const jobs = store.collection("jobs");
  await Promise.all(Array.from({ length: 200 }, (_, i) => jobs.insertOne({ _id: `j${i}`, n: i })));
  await Promise.all(
    Array.from({ length: 200 }, (_, i) => jobs.updateOne({ _id: `j${i}` }, { $set: { done: true } })),
  );
  expect(spy.mock.calls.length).toBeGreaterThan(0);
  expect(spy.mock.calls.length).toBeLessThanOrEqual(10); // 400 writes: each burst one flush (or two)
  expect(syncSpy).not.toHaveBeenCalled(); // never a flush on the event loop
  jest.restoreAllMocks();
  await store.close();
  const reopened = new EmbeddedBackend({ dataDir, fsync: true });
  expect(await reopened.collection("jobs").count({ done: true })).toBe(200);
  await reopened.close();
});

test("writes made while a flush runs wait for the next one", async () => {
  const store = new EmbeddedBackend({ dataDir: newDataDir(), fsync: true });
  const flushes = holdFlushes();
  const jobs = store.collection("jobs");
  const first = jobs.insertOne({ _id: "a" });
  await turn();
  await turn();
  expect(flushes.held).toHaveLength(1); // running, covering "a" only
  let secondDone = false;
  const second = jobs.insertOne({ _id: "b" }).then(() => (secondDone = true));
  flushes.release();
  await first;
  await turn();
  expect(secondDone).toBe(false);
  await turn();
  expect(flushes.held).toHaveLength(1); // the next flush, for "b"
  flushes.release();
  await second;
  jest.restoreAllMocks();
  await store.close();
});

test("a failed flush fails its writes and the store: no later write is acknowledged", async () => {
  const store = new EmbeddedBackend({ dataDir: newDataDir(), fsync: true });
  const flushes = holdFlushes();
  const jobs = store.collection("jobs");
  const write = jobs.insertOne({ _id: "x" });
  await turn();
  await turn();
  flushes.release(Object.assign(new Error("EIO: i/o error"), { code: "EIO" }));
  await expect(write).rejects.toThrow(/could not flush its log: EIO/);
  await expect(jobs.insertOne({ _id: "y" })).rejects.toThrow(/failed to flush its log/);
  await expect(jobs.findOne({ _id: "x" })).rejects.toThrow(/failed to flush its log/);
  jest.restoreAllMocks();
});

test("the default mode acknowledges without an fdatasync", async () => {
  const store = new EmbeddedBackend({ dataDir: newDataDir() });
  const spy = jest.spyOn(fs, "fdatasync");
  await store.collection("jobs").insertOne({ _id: "j" });
  await turn();
  expect(spy).not.toHaveBeenCalled();
  await store.close();
});

test("closing flushes what waits: those writes are acknowledged, and on disk", async () => {
  const dataDir = newDataDir();
  const store = new EmbeddedBackend({ dataDir, fsync: true });
  const write = store.collection("jobs").insertOne({ _id: "late" });
  await store.close(); // before the scheduled flush ran
  await expect(write).resolves.toMatchObject({ _id: "late" });
  const reopened = new EmbeddedBackend({ dataDir });
  expect(await reopened.collection("jobs").findOne({ _id: "late" })).not.toBeNull();
  await reopened.close();
});

/** The store's log as it is on disk now. */
const logOf = (dataDir: string) => fs.readFileSync(path.join(dataDir, "store", "store.log"), "utf8");

test("default mode: one turn's writes are one writeSync, each acknowledged only once its line is on disk", async () => {
  const dataDir = newDataDir();
  const store = new EmbeddedBackend({ dataDir });
  const jobs = store.collection("jobs");
  await jobs.insertOne({ _id: "seed" });
  const writes = jest.spyOn(fs, "writeSync");
  const inLogWhenAcknowledged: boolean[] = [];
  const acknowledge = (id: string) => () => inLogWhenAcknowledged.push(logOf(dataDir).includes(`"${id}"`));
  await Promise.all([
    ...Array.from({ length: 50 }, (_, i) => jobs.insertOne({ _id: `j${i}` }).then(acknowledge(`j${i}`))),
    jobs.updateOne({ _id: "seed" }, { $set: { marked: "m1" } }).then(acknowledge("m1")),
    jobs.findOneAndUpdate({ _id: "seed" }, { $set: { other: "m2" } }).then(acknowledge("m2")),
    jobs
      .deleteOne({ _id: "j0" })
      .then(() => inLogWhenAcknowledged.push(/"del":\["j0"\]/.test(logOf(dataDir)))),
  ]);
  expect(inLogWhenAcknowledged).toHaveLength(53);
  expect(inLogWhenAcknowledged.every(Boolean)).toBe(true);
  expect(writes).toHaveBeenCalledTimes(1); // 53 lines, one write
  jest.restoreAllMocks();
  await store.close();
  const reopened = new EmbeddedBackend({ dataDir });
  expect(await reopened.collection("jobs").count({})).toBe(50);
  expect(await reopened.collection("jobs").findOne({ _id: "seed" })).toEqual({
    _id: "seed",
    marked: "m1",
    other: "m2",
  });
  await reopened.close();
});

test("default mode: a read that sees a write not yet in the log answers after its group write", async () => {
  const dataDir = newDataDir();
  const store = new EmbeddedBackend({ dataDir });
  const jobs = store.collection("jobs");
  const write = jobs.insertOne({ _id: "fresh" });
  const inLog = () => logOf(dataDir).includes('"fresh"');
  const answers = await Promise.all([
    write.then(() => inLog()),
    jobs.findOne({ _id: "fresh" }).then((answer) => ({ answer, inLog: inLog() })),
    jobs.find({}).then((answer) => ({ answer, inLog: inLog() })),
    jobs.count({}).then((answer) => ({ answer, inLog: inLog() })),
    jobs.count({ _id: "fresh" }).then((answer) => ({ answer, inLog: inLog() })),
    jobs.aggregate([{ $match: { _id: "fresh" } }]).then((answer) => ({ answer, inLog: inLog() })),
    // Misses that the kept write decides (a compare-and-set lost to it, a second insert's delete).
    jobs.updateOne({ _id: "fresh", v: 1 }, { $set: { v: 2 } }).then((answer) => ({ answer, inLog: inLog() })),
    jobs
      .findOneAndUpdate({ _id: "fresh", v: 1 }, { $set: { v: 2 } })
      .then((answer) => ({ answer, inLog: inLog() })),
    jobs.findOneAndDelete({ _id: "fresh", v: 1 }).then((answer) => ({ answer, inLog: inLog() })),
  ]);
  const [acknowledged, ...seen] = answers as [boolean, ...{ answer: unknown; inLog: boolean }[]];
  expect(acknowledged).toBe(true);
  expect(seen.map((s) => s.answer)).toEqual([
    { _id: "fresh" },
    [{ _id: "fresh" }],
    1,
    1,
    [{ _id: "fresh" }],
    { matchedCount: 0, modifiedCount: 0 },
    null,
    null,
  ]);
  expect(seen.every((s) => s.inLog)).toBe(true);
  await store.close();
});

test("default mode: a failed group write fails its writes and the store, and logs no part of a line", async () => {
  const dataDir = newDataDir();
  const store = new EmbeddedBackend({ dataDir });
  const jobs = store.collection("jobs");
  await jobs.insertOne({ _id: "kept" });
  const before = logOf(dataDir);
  const real = fs.writeSync;
  // Half of the group's bytes reach the file, then the disk fails.
  jest
    .spyOn(fs, "writeSync")
    .mockImplementationOnce(((fd: number, buffer: Buffer, offset: number, length: number) =>
      real(fd, buffer, offset, Math.floor(length / 2))) as unknown as typeof fs.writeSync)
    .mockImplementationOnce(() => {
      throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
    });
  const lost = [jobs.insertOne({ _id: "lost1" }), jobs.updateOne({ _id: "kept" }, { $set: { n: 1 } })];
  for (const write of lost) await expect(write).rejects.toThrow(/could not flush its log: ENOSPC/);
  jest.restoreAllMocks();
  await expect(jobs.insertOne({ _id: "after" })).rejects.toThrow(/failed to flush its log/);
  await expect(jobs.findOne({ _id: "kept" })).rejects.toThrow(/failed to flush its log/);
  expect(logOf(dataDir)).toBe(before); // cut back to its last whole line
});

test("machinery off: each line is written at once, its write acknowledged in the same turn", async () => {
  const dataDir = newDataDir();
  const store = new EmbeddedBackend({ dataDir, machinery: false });
  const jobs = store.collection("jobs");
  const writes = jest.spyOn(fs, "writeSync");
  await Promise.all(Array.from({ length: 5 }, (_, i) => jobs.insertOne({ _id: `j${i}` })));
  expect(writes).toHaveBeenCalledTimes(5);
  jest.restoreAllMocks();
  await store.close();
});
