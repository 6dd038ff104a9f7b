/**
 * shared/worker-pool.ts with a real worker thread (test/support/busy-worker.ts, started from its
 * TypeScript source as under jest): answers in order of the tasks, a shared value prepared once per
 * worker, a task over its budget settled as such while the tasks behind it still run, a task's
 * error is its own, close() ends everything, and an idle pool never closed lets its process exit.
 */
import { spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { PoolClosedError, WorkerPool, workerEntry } from "../../shared/worker-pool";

const entry = workerEntry(path.join(__dirname, "../support"), "busy-worker");
let pool: WorkerPool<any> | undefined;
afterEach(() => pool?.close());

test("every task is answered, the shared value crossing and prepared once per worker", async () => {
  pool = new WorkerPool(entry, { size: 2, budgetMs: 10_000 });
  const outcomes = await Promise.all(
    Array.from({ length: 20 }, (_, i) => pool!.run({ value: i, ms: 1 }, { key: "spec-1", value: "abc" })),
  );
  expect(outcomes.map((o) => (o.overBudget ? null : o.result.value))).toEqual([...Array(20).keys()]);
  for (const o of outcomes)
    expect(o).toMatchObject({ overBudget: false, result: { shared: "ABC", prepared: 1 } });
});

test("a task over its budget settles as such; the tasks behind it run on a fresh worker", async () => {
  // 1.5 s: a light task's budget covers its fresh worker's start, which a loaded machine (the whole
  // suite beside other work on two cores) stretched past 300 ms.
  pool = new WorkerPool(entry, { size: 1, budgetMs: 1500 });
  const heavy = pool.run({ value: 0, ms: 60_000 }, { key: "k", value: "x" });
  const light = [1, 2, 3].map((value) => pool!.run({ value, ms: 1 }, { key: "k", value: "x" }));
  expect(await heavy).toEqual({ overBudget: true, budgetMs: 1500 });
  const answered = await Promise.all(light);
  expect(answered.map((o) => (o.overBudget ? null : o.result.value))).toEqual([1, 2, 3]);
  // The fresh worker had not had the shared value: it was sent again and prepared there.
  expect(answered[0]).toMatchObject({ overBudget: false, result: { shared: "X", prepared: 1 } });
});

test("a task that throws rejects with its message; the worker goes on", async () => {
  pool = new WorkerPool(entry, { size: 1, budgetMs: 10_000 });
  await expect(pool.run({ value: 7, ms: 0, fail: true })).rejects.toThrow("task 7 failed");
  expect(await pool.run({ value: 8, ms: 0 })).toMatchObject({ overBudget: false, result: { value: 8 } });
});

test("a worker answering with promises answers in the tasks' order, each with its own outcome", async () => {
  pool = new WorkerPool(entry, { size: 1, budgetMs: 10_000 });
  // The second task's promise settles first, and the third answers at once: both wait for the first.
  const settled: number[] = [];
  const tasks = [
    { value: 1, ms: 0, waitMs: 300 },
    { value: 2, ms: 0, waitMs: 10 },
    { value: 3, ms: 0 },
    { value: 4, ms: 0, waitMs: 5, fail: true },
    { value: 5, ms: 0, waitMs: 0 },
  ].map((task) =>
    pool!.run(task).then(
      (o) => (settled.push(task.value), o),
      (err: Error) => (settled.push(task.value), err),
    ),
  );
  const outcomes = await Promise.all(tasks);
  expect(settled).toEqual([1, 2, 3, 4, 5]);
  expect(outcomes[0]).toEqual({ overBudget: false, result: { value: 1, waited: 300 } });
  expect(outcomes[1]).toEqual({ overBudget: false, result: { value: 2, waited: 10 } });
  expect(outcomes[2]).toMatchObject({ overBudget: false, result: { value: 3 } });
  expect(outcomes[3]).toEqual(new Error("task 4 failed later"));
  expect(outcomes[4]).toEqual({ overBudget: false, result: { value: 5, waited: 0 } });
  // Once the promises are answered, a plain task answers on its own again.
  expect(await pool.run({ value: 6, ms: 0 })).toMatchObject({ overBudget: false, result: { value: 6 } });
});

test("workers run at the pool's nice value, the main thread at its own (Linux)", async () => {
  pool = new WorkerPool(entry, { size: 1, budgetMs: 10_000, nice: 7 });
  expect(await pool.run({ value: 1, ms: 0 })).toMatchObject({ overBudget: false, result: { nice: 7 } });
  expect(os.getPriority()).toBe(0);
});

test("close() rejects what is queued or running with PoolClosedError, and later runs", async () => {
  pool = new WorkerPool(entry, { size: 1, budgetMs: 60_000 });
  const running = pool.run({ value: 1, ms: 60_000 }).catch((err: Error) => err);
  const queued = pool.run({ value: 2, ms: 1 }).catch((err: Error) => err);
  await new Promise((r) => setTimeout(r, 50));
  await pool.close();
  expect(await running).toBeInstanceOf(PoolClosedError);
  expect(await queued).toBeInstanceOf(PoolClosedError);
  await expect(pool.run({ value: 3, ms: 1 })).rejects.toBeInstanceOf(PoolClosedError);
});

test("an idle pool that was never closed lets its process exit (its worker is unref'd)", () => {
  const root = path.join(__dirname, "../..");
  const child = spawnSync(
    path.join(root, "node_modules/.bin/node"),
    [path.join(root, "dist/test/support/idle-pool.js")],
    { encoding: "utf8", timeout: 20_000 },
  );
  expect(child.stdout).toBe("answered\n");
  expect(child.error).toBeUndefined(); // no timeout: it exited by itself
  expect(child.status).toBe(0);
});
