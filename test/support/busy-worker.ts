/**
 * A worker entry for test/unit/worker-pool.test.ts: each task holds its thread for `task.ms`, then
 * answers the task's value, the shared value it was given and how many times it prepared one.
 */
import { serveTasks } from "../../shared/worker-pool";

let prepared = 0;

serveTasks<{ value: number; ms: number; fail?: boolean }, string, string, unknown>(
  (shared) => {
    prepared++;
    return shared.toUpperCase();
  },
  (task, shared) => {
    const until = performance.now() + task.ms;
    while (performance.now() < until); // CPU work that nothing but terminate() can stop
    if (task.fail) throw new Error(`task ${task.value} failed`);
    return { value: task.value, shared, prepared };
  },
);
