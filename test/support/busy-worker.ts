/**
 * A worker entry for test/unit/worker-pool.test.ts: each task holds its thread for `task.ms`, then
 * answers the task's value, the shared value it was given, how many times it prepared one and its
 * thread's nice value; with `waitMs`, it answers with a promise settled that much later (the
 * thread free meanwhile), a rejected one with `fail`.
 */
import fs from "node:fs";
import os from "node:os";
import { serveTasks } from "../../shared/worker-pool";

/** This thread's own nice value (Linux: its task id). */
const nice = () => os.getPriority(Number(fs.readlinkSync("/proc/thread-self").split("/").pop()));

let prepared = 0;

serveTasks<{ value: number; ms: number; fail?: boolean; waitMs?: number }, string, string, unknown>(
  (shared) => {
    prepared++;
    return shared.toUpperCase();
  },
  (task, shared) => {
    if (task.waitMs !== undefined)
      return new Promise((resolve, reject) =>
        setTimeout(() => {
          if (task.fail) reject(new Error(`task ${task.value} failed later`));
          else resolve({ value: task.value, waited: task.waitMs });
        }, task.waitMs),
      );
    const until = performance.now() + task.ms;
    while (performance.now() < until); // CPU work that nothing but terminate() can stop
    if (task.fail) throw new Error(`task ${task.value} failed`);
    return { value: task.value, shared, prepared, nice: nice() };
  },
);
