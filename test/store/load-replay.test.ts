/**
 * A store's load applies each document's logged patches to its table once, at its last patch
 * (shared/store/embedded/load-replay.ts), not line by line. The store it opens must be the one that
 * wrote the log: the same documents in the same order, the same answers through every index, unique
 * keys owned by the same documents, and hot the documents written last (as a line-by-line load
 * leaves them; the writer's own hot ones may differ, as its reads warm documents too), whatever the
 * mix of inserts, steps, deletes, re-inserts and an index added halfway.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EmbeddedBackend } from "../../shared/store/embedded/backend";
import { PENDING_DOCUMENTS } from "../../shared/store/embedded/load-replay";
import { Table } from "../../shared/store/embedded/table";
import type { Doc } from "../../shared/store";
import { seeded } from "../support/random-docs";

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));
function newDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "store-load-replay-"));
  dirs.push(dir);
  return dir;
}

const STATUSES = ["running", "complete", "error"];
const DOCS = 120;

/** What a reader can see of the store's jobs: documents, index answers, unique owners. */
async function seen(store: EmbeddedBackend): Promise<unknown> {
  const jobs = store.collection("jobs");
  const all = (await jobs.find({})) as Doc[];
  return {
    natural: all,
    byStatus: await Promise.all(
      STATUSES.map(async (status) =>
        (await jobs.find({ status }, { sort: { sweepAt: 1, _id: 1 } })).map((d) => d._id),
      ),
    ),
    byOwner: await Promise.all(
      ["a", "b", "c"].map(async (owner) => (await jobs.find({ owner })).map((d) => d._id)),
    ),
    keys: await Promise.all(
      Array.from({ length: 40 }, async (_, k) => (await jobs.findOne({ key: `k${k}` }))?._id ?? null),
    ),
  };
}

test("a reopened store equals the one that wrote its log, patch by patch", async () => {
  const r = seeded(20261129);
  const pick = <T>(items: T[]): T => items[Math.floor(r() * items.length)];
  const dir = newDir();
  const store = new EmbeddedBackend({ dataDir: dir, hotDocuments: 16 });
  const jobs = store.collection("jobs");
  await jobs.createIndex({ keys: { status: 1, sweepAt: 1 } });
  await jobs.createIndex({ keys: { key: 1 }, unique: true });
  const versions = new Map<string, number>();
  // The documents in the order of their last write (the log's order).
  const written = new Set<string>();
  const wrote = (id: string) => {
    written.delete(id);
    written.add(id);
  };
  const insert = async (i: number) => {
    const _id = `j${i}`;
    await jobs.insertOne({
      _id,
      status: "running",
      key: `own ${_id}`,
      sweepAt: i,
      version: 1,
      tasks: { t1: { status: "running", n: i }, t2: { status: "incomplete" } },
      metrics: { start_time: i, progress: 0 },
    });
    versions.set(_id, 1);
    wrote(_id);
  };
  for (let i = 0; i < DOCS; i++) await insert(i);
  let unique = 0;
  for (let step = 0; step < 2_000; step++) {
    const id = pick([...versions.keys()]);
    const version = versions.get(id)!;
    const roll = r();
    if (step === 1_000) await jobs.createIndex({ keys: { owner: 1 } });
    if (roll < 0.6) {
      // A step: nested members, the sweep time (an index), sometimes the status.
      const set: Record<string, unknown> = {
        [`tasks.t${1 + (step % 3)}`]: { status: pick(STATUSES), n: step },
        "metrics.progress": step % 100,
        sweepAt: step,
        ...(roll < 0.2 && { status: pick(STATUSES) }),
        ...(roll < 0.1 && { owner: pick(["a", "b", "c"]) }),
      };
      expect(await jobs.updateVersioned!(id, version, set)).toBe(true);
      versions.set(id, version + 1);
      wrote(id);
    } else if (roll < 0.75) {
      // A shared unique key taken, moved between documents, or given back; a clash is refused.
      const key = `k${unique++ % 40}`;
      try {
        await jobs.updateOne({ _id: id }, { $set: { key }, $inc: { version: 1 } });
        versions.set(id, version + 1);
        wrote(id);
      } catch (err) {
        expect((err as Error).name).toBe("DuplicateKeyError");
      }
    } else if (roll < 0.8) {
      await jobs.updateOne({ _id: id }, { $set: { key: `own ${id}` }, $inc: { version: 1 } });
      versions.set(id, version + 1);
      wrote(id);
    } else if (roll < 0.85) {
      await jobs.deleteOne({ _id: id });
      versions.delete(id);
      written.delete(id);
      if (r() < 0.7) await insert(Number(id.slice(1)));
    } else {
      // A lost compare-and-set changes nothing.
      expect(await jobs.updateVersioned!(id, version + 5, { sweepAt: -1 })).toBe(false);
    }
  }
  // Last, steps only (no line that would apply the pending patches): 40 documents stepped in one
  // order, then in the other, so the order of their last patches is not that of their first.
  const last = [...versions.keys()].slice(0, 40);
  for (const id of [...last, ...[...last].reverse()]) {
    const version = versions.get(id)!;
    expect(await jobs.updateVersioned!(id, version, { sweepAt: version, "tasks.t1.n": -version })).toBe(true);
    versions.set(id, version + 1);
    wrote(id);
  }
  const before = await seen(store);
  await store.close();

  const reopened = new EmbeddedBackend({ dataDir: dir, hotDocuments: 16 });
  try {
    expect(await seen(reopened)).toEqual(before);
    const docs = reopened.table("jobs").docs;
    const hot = [...written].slice(-16);
    expect([...written].filter((id) => !docs.isCold(id))).toEqual(hot);
    // The unique index's owners are the writer's: a taken key is refused, a free one is not.
    const owners = (before as { keys: (string | null)[] }).keys;
    const taken = owners.findIndex((id) => id !== null);
    const free = owners.findIndex((id) => id === null);
    await expect(reopened.collection("jobs").insertOne({ _id: "x", key: `k${taken}` })).rejects.toMatchObject(
      { name: "DuplicateKeyError" },
    );
    if (free !== -1) await reopened.collection("jobs").insertOne({ _id: "y", key: `k${free}` });
  } finally {
    await reopened.close();
  }
});

test("patches of more documents than may wait are applied a batch at a time, to the same store", async () => {
  // A data migration's shape: every document patched, twice, in two orders, and nothing else.
  const dir = newDir();
  const many = PENDING_DOCUMENTS + 300;
  const store = new EmbeddedBackend({ dataDir: dir, hotDocuments: 16 });
  const docs = store.collection("docs");
  await docs.createIndex({ keys: { n: 1 } });
  // In lines of 100 (the load applies a line's puts as one batch, whatever its size).
  for (let k = 0; k < many; k += 100)
    await docs.insertMany(
      Array.from({ length: Math.min(100, many - k) }, (_, j) => ({
        _id: `d${k + j}`,
        n: k + j,
        version: 1,
        sub: { m: k + j },
      })),
    );
  const order = Array.from({ length: many }, (_, i) => `d${i}`);
  for (const [round, ids] of [order, [...order].reverse()].entries())
    for (const id of ids)
      expect(await docs.updateVersioned!(id, round + 1, { n: -Number(id.slice(1)), "sub.r": round })).toBe(
        true,
      );
  // Then one line patching every document (an updateMany), past the limit in the middle of it.
  expect((await docs.updateMany({}, { $set: { "sub.r": 9 } })).modifiedCount).toBe(many);
  const before = {
    all: await docs.find({}),
    byN: (await docs.find({ n: { $lt: -many + 5 } })).map((d) => d._id),
  };
  await store.close();

  const apply = jest.spyOn(Table.prototype, "apply");
  const reopened = new EmbeddedBackend({ dataDir: dir, hotDocuments: 16 });
  try {
    const batches = apply.mock.calls.map(([puts]) => puts.length);
    expect(Math.max(...batches)).toBeLessThanOrEqual(PENDING_DOCUMENTS);
    const rd = reopened.collection("docs");
    expect({
      all: await rd.find({}),
      byN: (await rd.find({ n: { $lt: -many + 5 } })).map((d) => d._id),
    }).toEqual(before);
    // Written last: the updateMany's last sixteen.
    const table = reopened.table("docs").docs;
    expect(order.filter((id) => !table.isCold(id))).toEqual(order.slice(-16));
    expect((await rd.find({ "sub.r": 9 })).length).toBe(many);
  } finally {
    apply.mockRestore();
    await reopened.close();
  }
});
