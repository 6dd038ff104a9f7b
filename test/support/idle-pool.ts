/**
 * Child process of the worker-pool test (test/unit/worker-pool.test.ts): a pool that ran one task
 * and was never closed must not keep its process alive. Prints "answered" once the task is done,
 * then leaves the process to exit by itself.
 *
 * Usage: node dist/test/support/idle-pool.js
 */
import { WorkerPool, workerEntry } from "../../shared/worker-pool";

const pool = new WorkerPool<{ value: number }>(workerEntry(__dirname, "busy-worker"), {
  size: 1,
  budgetMs: 60_000,
});
void pool.run({ value: 1, ms: 1 }).then(() => process.stdout.write("answered\n"));
