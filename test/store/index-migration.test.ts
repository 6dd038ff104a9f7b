/**
 * Index migrations (docs/architecture.md#indexes): after an upgrade changes an index, the declared
 * one replaces it at start instead of the service failing to start. On the embedded store in one
 * log line (kept across a restart); on MongoDB by one replica at a time under a lock document
 * (shared/store/index-migration.ts, driven here through its port as MongoDB would answer).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { JobRepository } from "../../services/engine/jobs.repository";
import { AutomationRunsRepository } from "../../services/scheduler/automation-runs.repository";
import { EmbeddedBackend } from "../../shared/store/embedded/backend";
import { migrateIndex, type IndexPort } from "../../shared/store/index-migration";
import { DuplicateKeyError, type IndexSpec } from "../../shared/store/types";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
function newDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "index-migration-"));
  dirs.push(dir);
  return dir;
}

describe("embedded store", () => {
  test("an index declared otherwise than stored is replaced, and stays replaced after a restart", async () => {
    const dir = newDir();
    let store = new EmbeddedBackend({ dataDir: dir });
    const trees = store.collection("trees");
    await trees.createIndex({ keys: { name: 1 } }); // version 1: not unique
    await trees.insertMany([{ name: "core" }, { name: "edge" }]);
    await trees.createIndex({ keys: { name: 1 }, unique: true }); // version 2 declares it unique
    await expect(trees.insertOne({ name: "core" })).rejects.toBeInstanceOf(DuplicateKeyError);
    await store.close();

    store = new EmbeddedBackend({ dataDir: dir });
    await expect(store.collection("trees").insertOne({ name: "edge" })).rejects.toBeInstanceOf(
      DuplicateKeyError,
    );
    await store.collection("trees").createIndex({ keys: { name: 1 }, unique: true }); // as stored: nothing
    await store.close();
  });

  test("a repository drops the indexes it retired at start, and they stay dropped after a restart", async () => {
    const dir = newDir();
    let store = new EmbeddedBackend({ dataDir: dir });
    // The scheduler's runs as an earlier version left them: claims indexed by {state, leaseUntil}.
    await store.collection("automation_runs").createIndex({ keys: { state: 1, leaseUntil: 1 } });
    const indexNames = (s: EmbeddedBackend) => [...s.table("automation_runs").indexes.keys()].sort();
    expect(indexNames(store)).toEqual(["state_1_leaseUntil_1"]);
    const runs = new AutomationRunsRepository(store);
    expect(runs.retiredIndexes).toEqual(["state_1_leaseUntil_1"]);
    await runs.ensureIndexes();
    expect(indexNames(store)).toEqual(["automationId_1_dueAt_-1", "state_1"]);
    await runs.ensureIndexes(); // a second replica's start: nothing changes
    await store.close();

    store = new EmbeddedBackend({ dataDir: dir });
    expect(indexNames(store)).toEqual(["automationId_1_dueAt_-1", "state_1"]);
    await store.close();
  });

  test("the jobs' task-metrics window of an earlier version is dropped for the wider one, answers unchanged", async () => {
    const dir = newDir();
    const store = new EmbeddedBackend({ dataDir: dir });
    const jobs = store.collection("jobs");
    await jobs.createIndex({ keys: { status: 1, "metrics.end_time": -1 } });
    await jobs.insertMany([
      { _id: "a", status: "complete", metrics: { start_time: 1, end_time: 5, manual_time: 2 } },
      { _id: "b", status: "running", metrics: { start_time: 2, end_time: null } },
    ]);
    const repo = new JobRepository(store);
    expect(repo.retiredIndexes).toEqual(["status_1_metrics.end_time_-1"]);
    await repo.ensureIndexes();
    const names = [...store.table("jobs").indexes.keys()];
    expect(names).not.toContain("status_1_metrics.end_time_-1");
    expect(names).toContain("status_1_metrics.end_time_-1_metrics.manual_time_1_sla_1_preAutomationTime_1");
    const found = await jobs.find({ status: "complete", "metrics.end_time": { $gte: 0 } });
    expect(found.map((j) => j._id)).toEqual(["a"]);
    await store.close();
  });

  test("same name, other keys: the declared keys win", async () => {
    const store = new EmbeddedBackend({ dataDir: newDir() });
    const jobs = store.collection("jobs");
    await jobs.createIndex({ keys: { start: 1 }, name: "byStart" });
    await jobs.insertMany([{ start: 1, metrics: { start_time: 5 } }]);
    await jobs.createIndex({ keys: { "metrics.start_time": -1 }, name: "byStart" });
    expect((await jobs.find({ "metrics.start_time": 5 })).length).toBe(1);
    await store.close();
  });

  test("a unique index the stored documents break is refused, and the old index stays", async () => {
    const store = new EmbeddedBackend({ dataDir: newDir() });
    const names = store.collection("names");
    await names.createIndex({ keys: { name: 1 } });
    await names.insertMany([{ name: "dup" }, { name: "dup" }]);
    await expect(names.createIndex({ keys: { name: 1 }, unique: true })).rejects.toBeInstanceOf(
      DuplicateKeyError,
    );
    await names.insertOne({ name: "dup" }); // still not unique
    expect(await names.count({ name: "dup" })).toBe(3);
    await store.close();
  });
});

/** A MongoDB as the migration sees it: one collection's indexes and the lock documents, shared. */
function fakeMongo() {
  const indexes = new Map<string, { key: Record<string, unknown>; unique?: boolean }>([
    ["_id_", { key: { _id: 1 } }],
    ["name_1", { key: { name: 1 } }],
  ]);
  const locks = new Map<string, number>();
  const log: string[] = [];
  const conflict = () => Object.assign(new Error("IndexOptionsConflict"), { code: 85 });
  const port = (who: string): IndexPort => ({
    collectionName: "trees",
    async create(spec) {
      const existing = indexes.get(spec.name);
      if (
        existing &&
        (JSON.stringify(existing.key) !== JSON.stringify(spec.keys) || !!existing.unique !== !!spec.unique)
      )
        throw conflict();
      indexes.set(spec.name, { key: spec.keys, unique: spec.unique });
      log.push(`${who} created ${spec.name}`);
    },
    list: async () => [...indexes].map(([name, v]) => ({ name, key: v.key })),
    async drop(name) {
      indexes.delete(name);
      log.push(`${who} dropped ${name}`);
    },
    lock: async (id, until) => (locks.has(id) ? false : (locks.set(id, until), true)),
    async takeOver(id, now, until) {
      if ((locks.get(id) ?? Infinity) >= now) return false;
      locks.set(id, until);
      log.push(`${who} took over the lock`);
      return true;
    },
    unlock: async (id) => void locks.delete(id),
  });
  return { indexes, locks, log, port };
}

describe("MongoDB, through the migration's port", () => {
  const declared: IndexSpec & { name: string } = { keys: { name: 1 }, unique: true, name: "name_1" };

  test("two replicas at once: one drops and recreates, the other finds it done", async () => {
    const mongo = fakeMongo();
    const [a, b] = await Promise.all([
      migrateIndex(mongo.port("a"), declared),
      migrateIndex(mongo.port("b"), declared, Date.now, (ms) => new Promise((r) => setTimeout(r, ms / 50))),
    ]);
    expect([a, b].sort()).toEqual(["done by another", "migrated"]);
    expect(mongo.indexes.get("name_1")).toEqual({ key: { name: 1 }, unique: true });
    expect(mongo.log.filter((l) => l.includes("dropped"))).toHaveLength(1);
    expect(mongo.locks.size).toBe(0);
  });

  test("a lock left by a replica that died is taken over once its lease has run out", async () => {
    const mongo = fakeMongo();
    mongo.locks.set("trees.name_1", 1000); // a dead replica's, long expired
    let now = 5000;
    expect(await migrateIndex(mongo.port("c"), declared, () => now++)).toBe("migrated");
    expect(mongo.log).toContain("c took over the lock");
    expect(mongo.indexes.get("name_1")?.unique).toBe(true);
  });
});
