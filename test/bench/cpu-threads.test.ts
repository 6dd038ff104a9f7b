/**
 * The benches' CPU by kind of thread (bench/support/cpu.ts): which of a Node process's threads used
 * the CPU of a window (the event loop, V8's helpers, worker threads, libuv's pool), read from
 * /proc, and the µs a unit of work by role that bench:engine prints. Linux only, as the benches'
 * CPU figures are.
 */
import { Worker } from "node:worker_threads";
import {
  THREAD_KINDS,
  cpuUsPerByRole,
  roleCpuText,
  threadKind,
  threadsMs,
  watchCpu,
  type CpuShares,
} from "../../bench/support/cpu";

/**
 * Source of a loop that uses `ms` of its thread's CPU (not of the clock: on a loaded machine a
 * thread gets less CPU than time passes).
 */
const spin = (ms: string) =>
  `const t0 = process.threadCpuUsage();
   for (;;) { const t = process.threadCpuUsage(); if (t.user + t.system - t0.user - t0.system >= ${ms} * 1000) break; }`;

/** A worker thread that uses `ms` of CPU, then ends. */
function burn(ms: number): Promise<void> {
  const worker = new Worker(spin(String(ms)), { eval: true });
  return new Promise((resolve, reject) => {
    worker.once("error", reject);
    worker.once("exit", () => resolve());
  });
}

const sumOfKinds = (kinds: Record<string, number>) => THREAD_KINDS.reduce((sum, k) => sum + kinds[k], 0);

test("Node's and V8's thread names map to their kinds", () => {
  expect(
    [
      "MainThread",
      "V8Worker",
      "DelayedTaskSche",
      "WorkerThread",
      "libuv-worker",
      "SignalInspector",
      "nats-server",
    ].map(threadKind),
  ).toEqual(["main", "v8", "v8", "workers", "libuv", "other", "other"]);
});

test("this process's threads are listed with their kinds", () => {
  const kinds = [...threadsMs(process.pid).values()].map((t) => t.kind);
  expect(kinds).toContain("main");
  expect(kinds).toContain("v8");
  expect(threadsMs(2 ** 22 + 1).size).toBe(0); // no such process
});

test("a worker thread's CPU is its kind's, and the kinds add up to the process's", async () => {
  const watch = watchCpu(() => [], []);
  await burn(600);
  const shares = watch.stop();
  const kinds = shares.byThread[process.pid];
  // It ended within the window: its time up to its last sample under `workers`, the rest `other`.
  expect(kinds.workers).toBeGreaterThan(0);
  expect(kinds.workers + kinds.other).toBeGreaterThanOrEqual(580);
  expect(kinds.main).toBeLessThan(kinds.workers + kinds.other);
  // The process's total and its threads' are read at slightly different instants, in 10 ms ticks.
  expect(Math.abs(sumOfKinds(kinds) - shares.byPid[process.pid])).toBeLessThanOrEqual(20);
}, 20_000);

test("a live worker thread's CPU counts under `workers` whole", async () => {
  const worker = new Worker(
    `const { parentPort } = require("node:worker_threads");
     parentPort.on("message", (ms) => { ${spin("ms")} parentPort.postMessage("done"); });`,
    { eval: true },
  );
  try {
    await new Promise((r) => setTimeout(r, 100)); // the thread exists before the window opens
    const watch = watchCpu(() => [], []);
    await new Promise<void>((resolve) => {
      worker.once("message", () => resolve());
      worker.postMessage(500);
    });
    const kinds = watch.stop().byThread[process.pid];
    // 10 ms ticks; its own reply and the loop's last turn are all it adds.
    expect(kinds.workers).toBeGreaterThanOrEqual(480);
    expect(kinds.workers).toBeLessThanOrEqual(650);
  } finally {
    await worker.terminate();
  }
}, 20_000);

test("µs a unit by role: named pids, the servers, the rest; each split by kind of thread", () => {
  const shares: CpuShares = {
    machine: 0.9,
    others: 0,
    byPid: { 10: 300, 11: 200, 12: 100, 13: 50, 14: 40 },
    byThread: {
      10: { main: 200, v8: 60, workers: 30, libuv: 0, other: 10 },
      11: { main: 150, v8: 50, workers: 0, libuv: 0, other: 0 },
      13: { main: 40, v8: 10, workers: 0, libuv: 0, other: 0 },
      14: { main: 30, v8: 10, workers: 0, libuv: 0, other: 0 },
    },
    natsPids: [12],
  };
  const byRole = cpuUsPerByRole(shares, { 10: "store", 11: "engine 1" }, 1000);
  expect(byRole).toEqual({
    store: { main: 200, v8: 60, workers: 30, libuv: 0, other: 10, total: 300 },
    "engine 1": { main: 150, v8: 50, workers: 0, libuv: 0, other: 0, total: 200 },
    // No thread list (a server): all of it `other`.
    "nats-server": { main: 0, v8: 0, workers: 0, libuv: 0, other: 100, total: 100 },
    // Two pids nobody named: one role, summed.
    "load client": { main: 70, v8: 20, workers: 0, libuv: 0, other: 0, total: 90 },
  });
  expect(roleCpuText("store", byRole!.store)).toBe("store 300 (main 200, V8 60, workers 30, other 10)");
  expect(cpuUsPerByRole(shares, {}, 0)).toBeNull();
  expect(cpuUsPerByRole(null, {}, 10)).toBeNull();
});
