/**
 * The engine's job writes (services/engine/run/jobs.ts) share the tasks a write does not touch
 * with the remembered job, frozen: what is stored is what a full copy of the job would store; an
 * untouched task is never copied or written; a task changed without writableTask fails the write
 * loudly (a TypeError from the frozen task) and nothing is stored: no fallback hides the bug.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EmbeddedBackend } from "../../shared/store/embedded/backend";
import { JobRepository } from "../../services/engine/jobs.repository";
import { JobStore, writableTask } from "../../services/engine/run/jobs";
import type { RunJob, RunTask } from "../../services/engine/run/types";

const dirs: string[] = [];
let backend: EmbeddedBackend;
let jobs: JobStore;

beforeEach(() => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "job-drafts-"));
  dirs.push(dir);
  backend = new EmbeddedBackend({ dataDir: dir });
  jobs = new JobStore(new JobRepository(backend));
});
afterEach(async () => {
  await backend.close();
});
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const task = (status: string, extra: Partial<RunTask> = {}): RunTask =>
  ({
    name: "noop",
    app: "benchtask",
    type: "automatic",
    status,
    variables: { incoming: { device: "r1", nested: { list: [1, 2] } }, outgoing: {} },
    ...extra,
  }) as unknown as RunTask;

function newJob(id: string): RunJob {
  return {
    _id: id,
    name: "j",
    status: "running",
    version: 1,
    variables: { a: 1 },
    metrics: { progress: 0 },
    tasks: {
      a: task("complete"),
      b: task("running", { claim: { owner: "x", until: 1, run: "r" } }),
      c: task("incomplete"),
    },
  } as unknown as RunJob;
}

const stored = async (id: string) => (await backend.collection("jobs").findOne({ _id: id })) as RunJob;

test("an untouched task stays shared and frozen; a changed one is stored as a full copy would store it", async () => {
  await jobs.insert(newJob("j1"));
  const first = await jobs.update("j1", (draft) => {
    writableTask(draft, "b")!.status = "complete";
    writableTask(draft, "c")!.status = "running";
    void writableTask(draft, "a"); // taken, left as it was
    draft.metrics.progress = 66;
  });
  expect(first!.changed).toBe(true);
  const { before, job } = first!;
  expect(job.tasks.a).toBe(before.tasks.a);
  expect(job.tasks.b).not.toBe(before.tasks.b);
  for (const id of ["a", "b", "c"]) expect(Object.isFrozen(job.tasks[id])).toBe(true);
  expect(Object.isFrozen((job.tasks.b as any).variables.incoming.nested.list)).toBe(true);
  const doc = await stored("j1");
  expect(doc.tasks.b!.status).toBe("complete");
  expect(doc.tasks.c!.status).toBe("running");
  expect(doc.metrics.progress).toBe(66);
  // The remembered job is the stored one, member for member (version and time included).
  expect(JSON.stringify(job)).toBe(JSON.stringify(doc));
  // Handed over with its text (shared/frozen-json.ts): the store keeps the very task, no copy.
  const held = backend.table("jobs").docs.get("j1") as unknown as RunJob;
  expect(held.tasks.b).toBe(job.tasks.b);
  expect(held.tasks.a).toBe(job.tasks.a);

  // A change to the shared job's tasks made on a draft never reaches the remembered job.
  const second = await jobs.update("j1", (draft) => {
    writableTask(draft, "a")!.status = "error";
  });
  expect(second!.before.tasks.a!.status).toBe("complete");
  expect((await stored("j1")).tasks.a!.status).toBe("error");
});

test("a task changed without writableTask fails the write loudly (TypeError) and nothing is stored", async () => {
  await jobs.insert(newJob("j2"));
  await expect(
    jobs.update("j2", (draft) => {
      (draft.tasks.b!.variables as any).incoming.nested.list.push(3); // skips writableTask
    }),
  ).rejects.toBeInstanceOf(TypeError);
  await expect(
    jobs.update("j2", (draft) => {
      draft.tasks.b!.status = "error"; // skips writableTask
    }),
  ).rejects.toBeInstanceOf(TypeError);
  const doc = await stored("j2");
  expect(doc.tasks.b!.status).toBe("running");
  expect((doc.tasks.b!.variables as any).incoming.nested.list).toEqual([1, 2]);
  expect(doc.version).toBe(1);
  // The other tasks are as they were.
  expect(doc.tasks.a!.status).toBe("complete");
  expect(doc.tasks.c!.status).toBe("incomplete");
});

test("a strict failure is not a message match: a refusal the change throws itself is passed on as it is", async () => {
  await jobs.insert(newJob("j3"));
  const refusal = new TypeError("Cannot assign to read only property 'status' of object");
  await expect(
    jobs.update("j3", () => {
      throw refusal;
    }),
  ).rejects.toBe(refusal);
  expect((await stored("j3")).tasks.b!.status).toBe("running");
  expect((await stored("j3")).version).toBe(1);
});

test("without the machinery (PERF_MACHINERY=off) a draft is a full copy: a direct change is written", async () => {
  const plain = new JobStore(new JobRepository(backend), { machinery: false });
  await plain.insert(newJob("j3b"));
  const written = await plain.update("j3b", (draft) => {
    draft.tasks.b!.status = "error";
    (draft.tasks.b!.variables as any).incoming.nested.list.push(3);
  });
  expect(written!.changed).toBe(true);
  expect(Object.isFrozen(written!.job.tasks.a)).toBe(false);
  const doc = await stored("j3b");
  expect(doc.tasks.b!.status).toBe("error");
  expect((doc.tasks.b!.variables as any).incoming.nested.list).toEqual([1, 2, 3]);
  expect(JSON.stringify(written!.job)).toBe(JSON.stringify(doc));
});

test("the caller's job is never frozen by insert or update", async () => {
  const job = newJob("j4");
  await jobs.insert(job);
  expect(Object.isFrozen(job.tasks.a)).toBe(false);
  const outgoing = { result: { deep: true } };
  await jobs.update("j4", (draft) => {
    writableTask(draft, "b")!.outgoing = outgoing;
  });
  expect(Object.isFrozen(outgoing)).toBe(false);
  expect(Object.isFrozen(outgoing.result)).toBe(false);
});

test("a member or a task the draft deletes (or leaves undefined) leaves the store too", async () => {
  const job = newJob("j5");
  (job as any).deferred = [{ from: "a", state: "success" }];
  (job as any).sla = 5;
  await jobs.insert(job);
  const written = await jobs.update("j5", (draft) => {
    delete draft.deferred;
    (draft as any).sla = undefined;
    delete (draft.tasks as Record<string, unknown>).c;
  });
  expect(written!.changed).toBe(true);
  const doc = await stored("j5");
  expect(doc).not.toHaveProperty("deferred");
  expect(doc).not.toHaveProperty("sla");
  expect(Object.keys(doc.tasks)).toEqual(["a", "b"]);
  expect(JSON.stringify(written!.job)).toBe(JSON.stringify(doc));
  // Nothing left to remove: the next identical change writes nothing.
  expect((await jobs.update("j5", (draft) => void delete draft.deferred))!.changed).toBe(false);
});

test("the workflow's graph is shared by every draft, frozen, never written; a write into it is still stored", async () => {
  const job = newJob("j6");
  job.transitions = { a: { b: { state: "success", type: "standard" } } } as unknown as RunJob["transitions"];
  await jobs.insert(job);
  let graph: unknown;
  for (const status of ["complete", "error"] as const) {
    const written = await jobs.update("j6", (draft) => {
      graph ??= draft.transitions;
      // The very object of the remembered job (no copy), frozen: a transition only reads it.
      expect(draft.transitions).toBe(graph);
      expect(Object.isFrozen((draft.transitions as any).a.b)).toBe(true);
      writableTask(draft, "b")!.status = status;
    });
    expect(written!.job.transitions).toBe(graph);
  }
  // From a fresh read too (the store's answer, frozen when remembered).
  const fresh = await jobs.update("j6", (draft) => void (writableTask(draft, "c")!.status = "running"), {
    fresh: true,
  });
  expect(Object.isFrozen(fresh!.before.transitions)).toBe(true);
  expect(fresh!.job.transitions).toBe(fresh!.before.transitions);
  expect((await stored("j6")).transitions).toEqual(job.transitions);

  // A change into it (no transition makes one) fails the write; the stored graph stays.
  await expect(
    jobs.update("j6", (draft) => {
      (draft.transitions as any).a.c = { state: "error", type: "standard" };
    }),
  ).rejects.toBeInstanceOf(TypeError);
  expect((await stored("j6")).transitions).toEqual(job.transitions);
});
