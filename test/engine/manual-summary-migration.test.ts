/**
 * Data migration `jobs.manualTasks` (services/engine/jobs/manual-summary-migration.ts,
 * shared/store/data-migrations.ts): jobs stored before the manual-task summary existed get theirs,
 * and stale ones are made current, once per store, so the manual-task list, which reads only the
 * summaries, lists their tasks. Run here on the embedded store through the job repository;
 * test/security/stall-aggregations.test.ts opens a platform on 6,000 such jobs and lists them
 * through HTTP.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EmbeddedBackend } from "../../shared/store/embedded/backend";
import { DATA_MIGRATIONS_COLLECTION, migrateOnce } from "../../shared/store/data-migrations";
import { JobRepository } from "../../services/engine/jobs.repository";
import {
  addManualSummaries,
  MANUAL_SUMMARY_MIGRATION,
} from "../../services/engine/jobs/manual-summary-migration";

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

const at = (i: number) => new Date(Date.UTC(2026, 10, 1, 0, 0, i)).toISOString();

/** Job i as an older release stored it: no summary. Every third has no manual task. */
function legacyJob(i: number) {
  const tasks: Record<string, unknown> = {
    prepare: { name: "noop", type: "automatic", status: "complete", start_time: at(i) },
  };
  if (i % 3 !== 2) {
    tasks.approve = { name: "approve", type: "manual", status: "complete", start_time: at(i) };
    tasks.review = {
      name: "review",
      type: "manual",
      status: i % 3 ? "waiting" : "incomplete",
      ...(i % 3 && { start_time: at(i + 1) }),
    };
  }
  return {
    _id: `job${String(i).padStart(3, "0")}`,
    name: "change",
    status: i % 3 === 1 ? "running" : "complete",
    groups: [],
    tasks,
    version: 3,
  };
}

async function legacyStore(jobs: number, hotDocuments = 8) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "manual-summary-"));
  dirs.push(dataDir);
  const store = new EmbeddedBackend({ dataDir, hotDocuments });
  const repo = new JobRepository(store);
  await repo.ensureIndexes();
  await store.collection("jobs").insertMany(Array.from({ length: jobs }, (_, i) => legacyJob(i)));
  return { store, repo };
}

test("jobs stored without a summary get one; the list then holds their tasks; done once", async () => {
  const { store, repo } = await legacyStore(60);
  try {
    // Before: the list reads summaries, so the older jobs' tasks are not in it.
    expect((await repo.manualTasks({ scope: {}, status: "complete", skip: 0, limit: 5 })).total).toBe(0);
    // The jobs' ids are read from the cold jobs' skeletons: none parsed for them.
    const docs = store.table("jobs").docs;
    const parsedBefore = docs.parsed;
    expect(await repo.allIds()).toHaveLength(60);
    expect(docs.parsed).toBe(parsedBefore);
    expect(await migrateOnce(store, MANUAL_SUMMARY_MIGRATION, () => addManualSummaries(repo))).toBe(40);
    const job = await repo.findById("job001");
    expect(job?.manualTasks).toEqual([
      { k: "approve", status: "complete", start_time: at(1) },
      { k: "review", status: "waiting", start_time: at(2) },
    ]);
    expect((await repo.findById("job000"))?.manualTasks?.[1]).toEqual({ k: "review", status: "incomplete" });
    expect((await repo.findById("job002"))?.manualTasks).toBeUndefined();
    expect((await repo.findById("job002"))?.version).toBe(3);

    const complete = await repo.manualTasks({ scope: {}, status: "complete", skip: 0, limit: 3 });
    expect(complete.total).toBe(40);
    expect(complete.rows.map((r) => [r.job._id, r.task.k])).toEqual([
      ["job058", "approve"],
      ["job057", "approve"],
      ["job055", "approve"],
    ]);
    const waiting = await repo.manualTasks({ scope: {}, status: "waiting", skip: 0, limit: 100 });
    expect(waiting.total).toBe(20);
    expect(waiting.rows.every((r) => r.task.k === "review" && r.job.status === "running")).toBe(true);

    // Recorded: a later start skips it, even where a summary is stale (an engine of an older
    // release finished job001's review, as during a rolling update) or missing (job004).
    const migrations = store.collection(DATA_MIGRATIONS_COLLECTION);
    expect(await migrations.findOne({ _id: MANUAL_SUMMARY_MIGRATION })).toEqual(
      expect.objectContaining({ changed: 40 }),
    );
    const jobs = store.collection("jobs");
    await jobs.updateOne(
      { _id: "job001" },
      { $set: { "tasks.review.status": "complete" }, $inc: { version: 1 } },
    );
    await jobs.updateOne({ _id: "job004" }, { $unset: { manualTasks: "" } });
    const migrate = () => migrateOnce(store, MANUAL_SUMMARY_MIGRATION, () => addManualSummaries(repo));
    expect(await migrate()).toBe("done before");
    expect((await repo.findById("job004"))?.manualTasks).toBeUndefined();
    // Its record deleted, it runs again and brings both up to date.
    await migrations.deleteOne({ _id: MANUAL_SUMMARY_MIGRATION });
    expect(await migrate()).toBe(2);
    expect((await repo.findById("job001"))?.manualTasks?.[1]).toEqual({
      k: "review",
      status: "complete",
      start_time: at(2),
    });
    expect((await repo.findById("job004"))?.manualTasks).toHaveLength(2);
    expect((await repo.manualTasks({ scope: {}, status: "complete", skip: 0, limit: 1 })).total).toBe(41);
  } finally {
    await store.close();
  }
});

test("a summary the engine wrote since the job was read stands; two replicas at once change each job once", async () => {
  const { store, repo } = await legacyStore(30);
  try {
    // The engine's own write (its compare-and-set: the task and its summary) lands after the
    // migration read job004; the older image it read must not overwrite it.
    const fresh = [
      { k: "approve", status: "complete" as const, start_time: at(99) },
      { k: "review", status: "waiting" as const, start_time: at(99) },
    ];
    const read = repo.summariesOf.bind(repo);
    repo.summariesOf = async (ids) => {
      const found = await read(ids);
      await store.collection("jobs").updateOne(
        { _id: "job004" },
        {
          $set: { "tasks.approve.start_time": at(99), "tasks.review.start_time": at(99), manualTasks: fresh },
          $inc: { version: 1 },
        },
      );
      return found;
    };
    const other = new JobRepository(store);
    const [a, b] = await Promise.all([
      migrateOnce(store, MANUAL_SUMMARY_MIGRATION, () => addManualSummaries(repo)),
      migrateOnce(store, MANUAL_SUMMARY_MIGRATION, () => addManualSummaries(other)),
    ]);
    // 20 jobs have manual tasks; job004 was summarized by its own write.
    expect((a as number) + (b as number)).toBe(19);
    expect((await repo.findById("job004"))?.manualTasks).toEqual(fresh);
    expect(await store.collection(DATA_MIGRATIONS_COLLECTION).count({})).toBe(1);
  } finally {
    await store.close();
  }
});

test("a job stored without a version gets its summary too", async () => {
  const { store, repo } = await legacyStore(3);
  try {
    await store.collection("jobs").updateOne({ _id: "job000" }, { $unset: { version: "" } });
    expect(await addManualSummaries(repo)).toBe(2);
    expect((await repo.findById("job000"))?.manualTasks).toHaveLength(2);
    expect((await repo.findById("job000"))?.version).toBeUndefined();
  } finally {
    await store.close();
  }
});
