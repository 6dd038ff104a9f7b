/**
 * The embedded store keeps its index entries across writes (shared/store/embedded/table.ts): a
 * replacement that shares an index's members with the image it replaces keeps its entries; one that
 * changes them is re-keyed; unique keys move between documents within one write.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EmbeddedBackend } from "../../shared/store/embedded/backend";
import { freshStorePerTest } from "../support/fresh-store";
import { DuplicateKeyError, type IndexSpec } from "../../shared/store/types";
import { int, pick, seeded } from "../support/random-docs";

const fixture = freshStorePerTest("store-index");

test("an update away from the indexed fields keeps the entries; one on them re-keys", async () => {
  const jobs = fixture.store.collection("jobs");
  await jobs.createIndex({ keys: { "metrics.start_time": -1 } });
  await jobs.createIndex({ keys: { groups: 1 } });
  await jobs.insertMany([
    { _id: "a", groups: ["ops"], metrics: { start_time: 1 }, tasks: {} },
    { _id: "b", groups: ["noc"], metrics: { start_time: 2 }, tasks: {} },
  ]);
  await jobs.updateOne({ _id: "a" }, { $set: { "tasks.t1": { status: "complete" } } });
  expect((await jobs.find({ groups: "ops" })).map((d) => d._id)).toEqual(["a"]);
  expect((await jobs.find({ "metrics.start_time": 1 })).map((d) => d._id)).toEqual(["a"]);

  await jobs.updateOne({ _id: "a" }, { $set: { groups: ["noc"], "metrics.start_time": 3 } });
  expect((await jobs.find({ groups: "ops" })).map((d) => d._id)).toEqual([]);
  expect((await jobs.find({ groups: "noc" })).map((d) => d._id).sort()).toEqual(["a", "b"]);
  expect((await jobs.find({ "metrics.start_time": 1 })).map((d) => d._id)).toEqual([]);
  expect((await jobs.find({ "metrics.start_time": 3 })).map((d) => d._id)).toEqual(["a"]);
  await jobs.deleteOne({ _id: "a" });
  expect((await jobs.find({ groups: "noc" })).map((d) => d._id)).toEqual(["b"]);
});

test("a unique key freed by one document can be taken by another, and a taken one is refused", async () => {
  const names = fixture.store.collection("names");
  await names.createIndex({ keys: { name: 1 }, unique: true });
  await names.insertMany([
    { _id: "1", name: "core" },
    { _id: "2", name: "edge" },
  ]);
  await names.updateOne({ _id: "1" }, { $set: { name: "spine" } });
  await names.updateOne({ _id: "2" }, { $set: { name: "core" } });
  expect((await names.find({ name: "core" })).map((d) => d._id)).toEqual(["2"]);
  expect((await names.find({ name: "spine" })).map((d) => d._id)).toEqual(["1"]);
  await expect(names.updateOne({ _id: "1" }, { $set: { name: "core" } })).rejects.toBeInstanceOf(
    DuplicateKeyError,
  );
  await names.updateOne({ _id: "1" }, { $set: { note: "unrelated" } });
  await expect(names.insertOne({ _id: "3", name: "spine" })).rejects.toBeInstanceOf(DuplicateKeyError);
});

test("a write beside an indexed nested field keeps its entries; arrays and the field itself re-key", async () => {
  const jobs = fixture.store.collection("jobs");
  await jobs.createIndex({ keys: { "metrics.start_time": -1, _id: -1 } });
  await jobs.createIndex({ keys: { "members.id": 1 } });
  await jobs.createIndex({ keys: { "owner.name": 1 }, unique: true });
  await jobs.insertMany([
    { _id: "a", metrics: { start_time: 1, progress: 0 }, members: [{ id: "m1" }], owner: { name: "x" } },
    { _id: "b", metrics: { start_time: 2, progress: 0 }, members: [{ id: "m2" }], owner: { name: "y" } },
  ]);
  const ids = async (filter: Record<string, unknown>) => (await jobs.find(filter)).map((d) => d._id).sort();
  // The object holding the indexed field is copied, the field itself is not changed.
  await jobs.updateOne({ _id: "a" }, { $set: { "metrics.progress": 50, "owner.since": 3 } });
  expect(await ids({ "metrics.start_time": 1, _id: "a" })).toEqual(["a"]);
  expect(await ids({ "owner.name": "x" })).toEqual(["a"]);
  // The whole object replaced with an equal one, then with one that moves the key.
  await jobs.updateOne({ _id: "a" }, { $set: { metrics: { start_time: 1, progress: 60 } } });
  expect(await ids({ "metrics.start_time": 1, _id: "a" })).toEqual(["a"]);
  await jobs.updateOne({ _id: "a" }, { $set: { metrics: { start_time: 5, progress: 70 } } });
  expect(await ids({ "metrics.start_time": 1, _id: "a" })).toEqual([]);
  expect(await ids({ "metrics.start_time": 5, _id: "a" })).toEqual(["a"]);
  // A field inside an array element: re-keyed when it changes.
  await jobs.updateOne({ _id: "a" }, { $set: { "members.0.id": "m3" } });
  expect(await ids({ "members.id": "m1" })).toEqual([]);
  expect(await ids({ "members.id": "m3" })).toEqual(["a"]);
  // A nested unique key moved by a write beside it would clash: it did not move, so it frees.
  await jobs.updateOne({ _id: "a" }, { $set: { "owner.name": "z", "owner.since": 4 } });
  await jobs.updateOne({ _id: "b" }, { $set: { "owner.name": "x" } });
  expect(await ids({ "owner.name": "x" })).toEqual(["b"]);
  await expect(jobs.updateOne({ _id: "b" }, { $set: { "owner.name": "z" } })).rejects.toBeInstanceOf(
    DuplicateKeyError,
  );
  await jobs.updateOne({ _id: "a" }, { $unset: { "metrics.start_time": "" } });
  expect(await ids({ "metrics.start_time": 5, _id: "a" })).toEqual([]);
});

/**
 * Each index's entries as a fresh build of the same documents would hold them: key -> the `_id`s
 * under it, sorted (Table's own maps, read as they are: what a lookup answers from).
 */
function entries(backend: EmbeddedBackend, collection: string): Record<string, Record<string, string[]>> {
  const table = backend.table(collection) as unknown as {
    sharedKeys: Map<string, Map<string, string | Set<string>>>;
    uniqueKeys: Map<string, Map<string, string>>;
  };
  const out: Record<string, Record<string, string[]>> = {};
  for (const [name, keys] of table.sharedKeys)
    out[name] = Object.fromEntries(
      [...keys].map(([key, ids]) => [key, typeof ids === "string" ? [ids] : [...ids].sort()]).sort(),
    );
  for (const [name, keys] of table.uniqueKeys)
    out[name] = Object.fromEntries([...keys].map(([key, id]) => [key, [id]]).sort());
  return out;
}

test("entries kept across random writes are the entries a fresh build of the same documents holds", async () => {
  // Jobs' shape: an index whose members a write shares with the image it replaces keeps its
  // entries (table.ts reindex, sameKeyMembers); one whose values it changed is re-keyed.
  const indexes: IndexSpec[] = [
    { keys: { status: 1, sweepAt: 1 } },
    { keys: { "metrics.start_time": -1, _id: -1 } },
    { keys: { name: 1, "metrics.start_time": -1 } },
    { keys: { groups: 1, "metrics.start_time": -1 } },
    { keys: { "workflow.name": 1 } },
    { keys: { "tasks.a.status": 1 } },
    { keys: { code: 1 }, unique: true },
  ];
  const jobs = fixture.store.collection("jobs");
  for (const spec of indexes) await jobs.createIndex(spec);
  const r = seeded(42);
  const values = [1, 2, "x", "y", null, ["ops", "noc"], ["ops"], { start_time: 1 }, { name: "w" }];
  const fields = ["status", "sweepAt", "metrics.start_time", "metrics.progress", "name", "groups"];
  const more = ["workflow.name", "workflow", "tasks.a.status", "tasks.b", "metrics", "note"];
  const ids = Array.from({ length: 12 }, (_, i) => `j${i}`);
  for (const id of ids)
    await jobs.insertOne({
      _id: id,
      code: id,
      version: 0,
      status: "running",
      metrics: { start_time: 0 },
      tasks: {},
    });
  let code = 0;
  let applied = 0;
  let versioned = 0;
  /** Paths where one is inside another are refused: keep the first of each such pair. */
  const apart = (a: string, b: string) => a !== b && !a.startsWith(`${b}.`) && !b.startsWith(`${a}.`);
  for (let i = 0; i < 900; i++) {
    const id = pick(r, ids);
    const set: Record<string, unknown> = {};
    for (let n = int(r, 1, 3); n > 0; n--) set[pick(r, [...fields, ...more])] = pick(r, values);
    for (const path of Object.keys(set))
      if (Object.keys(set).some((p) => p !== path && !apart(p, path))) delete set[path];
    if (r() < 0.3) set.code = `c${code++}`;
    // A third are the engine's compare-and-set (table.ts rekeyChanged then compares only the
    // paths under the members the update wrote), sometimes with an $unset beside the $set.
    if (r() < 0.35) {
      const unset = r() < 0.4 ? pick(r, fields) : undefined;
      for (const path of Object.keys(set)) if (unset && !apart(path, unset)) delete set[path];
      if (Object.keys(set).length === 0) continue;
      const { version } = (await jobs.findOne({ _id: id })) as { version: number };
      const update = { $set: set, $inc: { version: 1 }, ...(unset && { $unset: { [unset]: "" } }) };
      await jobs.updateOne({ _id: id, version }, update).then(
        (result) => {
          expect(result.modifiedCount).toBe(1);
          applied++;
          versioned++;
        },
        (err: Error) => expect(err.name).toBe("StoreRuleError"),
      );
      continue;
    }
    const update = r() < 0.15 ? { $unset: { [pick(r, fields)]: "" } } : { $set: set };
    if (Object.keys(update.$set ?? update.$unset!).length === 0) continue;
    // A path through a scalar is refused as MongoDB refuses it (PathNotViable): nothing changes.
    await jobs.updateOne({ _id: id }, update).then(
      () => applied++,
      (err: Error) => expect(err.name).toBe("StoreRuleError"),
    );
  }
  expect(applied).toBeGreaterThan(600);
  expect(versioned).toBeGreaterThan(200);
  const fresh = new EmbeddedBackend({
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "store-index-fresh-")),
  });
  try {
    const copy = fresh.collection("jobs");
    for (const spec of indexes) await copy.createIndex(spec);
    await copy.insertMany(await jobs.find({}));
    expect(entries(fixture.store, "jobs")).toEqual(entries(fresh, "jobs"));
    // Held as table.ts keeps them: a key of one document as its `_id`, a Set only for several.
    for (const backend of [fixture.store, fresh]) expect(setsOfFewerThanTwo(backend, "jobs")).toEqual([]);
  } finally {
    await fresh.close();
  }
});

/** Keys of the non-unique indexes held as a Set of fewer than two `_id`s (none should be). */
function setsOfFewerThanTwo(backend: EmbeddedBackend, collection: string): string[] {
  const table = backend.table(collection) as unknown as {
    sharedKeys: Map<string, Map<string, string | Set<string>>>;
  };
  return [...table.sharedKeys].flatMap(([name, keys]) =>
    [...keys].filter(([, ids]) => typeof ids !== "string" && ids.size < 2).map(([key]) => `${name} ${key}`),
  );
}

test("a key one document holds is its _id; a second holder makes a set, which shrinks back", async () => {
  const jobs = fixture.store.collection("jobs");
  await jobs.createIndex({ keys: { groups: 1, "metrics.start_time": -1 } });
  const held = () => {
    const table = fixture.store.table("jobs") as unknown as {
      sharedKeys: Map<string, Map<string, string | Set<string>>>;
    };
    const keys = table.sharedKeys.get("groups_1_metrics.start_time_-1")!;
    return [...keys.values()].map((ids) => (typeof ids === "string" ? ids : [...ids].sort()));
  };
  const ids = async () => (await jobs.find({ groups: "ops", "metrics.start_time": 1 })).map((d) => d._id);
  await jobs.insertOne({ _id: "a", groups: ["ops"], metrics: { start_time: 1 } });
  expect(held()).toEqual(["a"]);
  await jobs.insertOne({ _id: "b", groups: ["ops"], metrics: { start_time: 1 } });
  expect(held()).toEqual([["a", "b"]]);
  expect(await ids()).toEqual(["a", "b"]);
  await jobs.updateOne({ _id: "a" }, { $set: { "metrics.start_time": 2 } });
  expect(held().sort()).toEqual(["a", "b"]);
  expect(await ids()).toEqual(["b"]);
  await jobs.deleteOne({ _id: "b" });
  expect(held()).toEqual(["a"]);
  expect(await ids()).toEqual([]);
  await jobs.deleteOne({ _id: "a" });
  expect(held()).toEqual([]);
});
