/**
 * A pool of worker threads for CPU-heavy work (docs/architecture.md#worker-threads), so one big
 * input cannot hold the event loop every other caller shares. Each worker runs one task at a time
 * (with one more sent ahead, so it never waits for this thread); a task that outlives its time
 * budget has its worker terminated (the only way to stop a busy thread) and settles as
 * `{ overBudget: true }`, and a fresh worker takes the tasks that were waiting. Workers
 * start when work arrives and are terminated by `close()` (a service's `stopped`), so no thread
 * outlives its service.
 *
 * A task may carry a `shared` value under a key (a compiled spec for many devices): it crosses to a
 * worker only when that worker has not had it yet. A worker keeps the last SHARED_KEPT keys, and
 * the pool mirrors that list per worker (the worker handles messages in the order they were sent,
 * so both evict the same key).
 *
 * The worker entry is a module that calls `serveTasks(handler)` (below). `workerEntry` names it for
 * both ways the code runs: compiled (`dist/…/x.js`, what `npm start` runs) and from TypeScript
 * sources (jest through swc), where the worker registers @swc/core (a dev dependency) to load `.ts`.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parentPort, Worker, workerData } from "node:worker_threads";

export const SHARED_KEPT = 8;

export interface PoolOptions {
  /** Worker threads at most (0: none, the caller runs tasks inline). */
  size: number;
  /** How long one task may run before its worker is terminated. */
  budgetMs: number;
  /** Linux nice value of the worker threads (0: the process's; higher gives the main thread way). */
  nice?: number;
}

/** The pool was closed (its service is stopping): the task did not run, or did not finish. */
export class PoolClosedError extends Error {
  constructor() {
    super("worker pool closed");
  }
}

export type TaskOutcome<R> = { overBudget: false; result: R } | { overBudget: true; budgetMs: number };

interface Pending<R> {
  task: unknown;
  shared?: { key: string; value: unknown };
  /** This task's own time budget, when it is not the pool's. */
  budgetMs?: number;
  resolve(outcome: TaskOutcome<R>): void;
  reject(err: Error): void;
}

interface Sent {
  id: number;
  pending: Pending<unknown>;
}

interface Slot {
  worker: Worker;
  sharedKeys: string[];
  /** Tasks sent, oldest first: the first is running, the others wait in the worker's queue. */
  sent: Sent[];
  /** The budget of the running task: it starts when the task before it answered. */
  timer?: NodeJS.Timeout;
}

interface Reply {
  id: number;
  result?: unknown;
  error?: string;
}

/** How a worker file is started: compiled JS as is, a TypeScript source through @swc/core. */
export function workerEntry(dir: string, name: string): { file: string; eval: boolean } {
  const js = path.join(dir, `${name}.js`);
  if (fs.existsSync(js)) return { file: js, eval: false };
  const ts = path.join(dir, `${name}.ts`);
  const swc = require.resolve("@swc/core");
  const code = `
    const fs = require("node:fs");
    const { transformSync } = require(${JSON.stringify(swc)});
    require.extensions[".ts"] = (module, filename) => {
      const source = fs.readFileSync(filename, "utf8");
      const { code } = transformSync(source, {
        filename,
        jsc: { target: "es2022", parser: { syntax: "typescript" } },
        module: { type: "commonjs" },
      });
      module._compile(code, filename);
    };
    require(${JSON.stringify(ts)});
  `;
  return { file: code, eval: true };
}

/**
 * Tasks sent to one worker ahead of the one it runs, so it never waits for this thread between two
 * tasks. The next task's budget starts when the one before it answers.
 */
const AHEAD = 1;

export class WorkerPool<R> {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending<R>[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly entry: { file: string; eval: boolean },
    private readonly options: PoolOptions,
  ) {}

  get size(): number {
    return this.options.size;
  }

  /**
   * Runs `task` on a worker; `shared` is sent along unless that worker already has `shared.key`.
   * `budgetMs` replaces the pool's budget for this task (work of another kind than the pool's own).
   */
  run(task: unknown, shared?: { key: string; value: unknown }, budgetMs?: number): Promise<TaskOutcome<R>> {
    if (this.closed) return Promise.reject(new PoolClosedError());
    return new Promise((resolve, reject) => {
      this.queue.push({ task, shared, budgetMs, resolve, reject });
      this.dispatch();
    });
  }

  /** Terminates every worker; tasks still queued or running are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    const stopped = new PoolClosedError();
    for (const pending of this.queue.splice(0)) pending.reject(stopped);
    const slots = this.slots.splice(0);
    for (const slot of slots) {
      clearTimeout(slot.timer);
      for (const sent of slot.sent.splice(0)) sent.pending.reject(stopped);
    }
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  /** Hands queued tasks to idle workers first, then one ahead to each busy one, spawning up to size. */
  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.sent.length === 0);
      if (!slot && this.slots.length < this.options.size) slot = this.spawn();
      slot ??= this.slots.find((s) => s.sent.length <= AHEAD);
      if (!slot) return;
      this.send(slot, this.queue.shift()!);
    }
  }

  private spawn(): Slot {
    const worker = new Worker(this.entry.file, {
      eval: this.entry.eval,
      workerData: { nice: this.options.nice ?? 0 },
    });
    const slot: Slot = { worker, sharedKeys: [], sent: [] };
    worker.on("message", (reply: Reply) => this.finish(slot, reply));
    worker.on("error", (err) => this.fail(slot, err));
    worker.on("exit", () => this.fail(slot, new Error("worker exited")));
    // A pending task holds the process through its budget timer, not the thread. After the
    // listeners: a 'message' listener refs the worker's port again.
    worker.unref();
    this.slots.push(slot);
    return slot;
  }

  private send(slot: Slot, pending: Pending<unknown>): void {
    const id = this.nextId++;
    let shared: Pending<unknown>["shared"];
    if (pending.shared && !slot.sharedKeys.includes(pending.shared.key)) {
      shared = pending.shared;
      slot.sharedKeys.push(shared.key);
      if (slot.sharedKeys.length > SHARED_KEPT) slot.sharedKeys.shift();
    }
    slot.sent.push({ id, pending });
    if (slot.sent.length === 1) this.startBudget(slot);
    slot.worker.postMessage({
      id,
      task: pending.task,
      sharedKey: pending.shared?.key,
      shared: shared?.value,
    });
  }

  private startBudget(slot: Slot): void {
    clearTimeout(slot.timer);
    slot.timer = setTimeout(() => this.overBudget(slot), this.budgetOf(slot.sent[0]?.pending));
  }

  private budgetOf(pending: Pending<unknown> | undefined): number {
    return pending?.budgetMs ?? this.options.budgetMs;
  }

  private finish(slot: Slot, reply: Reply): void {
    const done = slot.sent[0];
    if (!done || done.id !== reply.id) return;
    slot.sent.shift();
    clearTimeout(slot.timer);
    if (slot.sent.length > 0) this.startBudget(slot);
    if (reply.error !== undefined) done.pending.reject(new Error(reply.error));
    else done.pending.resolve({ overBudget: false, result: reply.result });
    this.dispatch();
  }

  /**
   * The running task ran out of time: its worker goes (with what it had), the task settles as over
   * budget, and the tasks waiting behind it go back to the front of the queue for another worker.
   */
  private overBudget(slot: Slot): void {
    const [running, ...waiting] = slot.sent.splice(0);
    this.drop(slot);
    this.queue.unshift(...waiting.map((w) => w.pending as Pending<R>));
    running?.pending.resolve({ overBudget: true, budgetMs: this.budgetOf(running?.pending) });
    this.dispatch();
  }

  /** The worker died (a crash, an exit): its running task fails, the waiting ones are queued again. */
  private fail(slot: Slot, err: Error): void {
    if (!this.slots.includes(slot)) return;
    const [running, ...waiting] = slot.sent.splice(0);
    this.drop(slot);
    this.queue.unshift(...waiting.map((w) => w.pending as Pending<R>));
    running?.pending.reject(err);
    if (!this.closed) this.dispatch();
  }

  private drop(slot: Slot): void {
    clearTimeout(slot.timer);
    const at = this.slots.indexOf(slot);
    if (at !== -1) this.slots.splice(at, 1);
    slot.worker.removeAllListeners();
    slot.worker.on("error", () => undefined);
    void slot.worker.terminate();
  }
}

/**
 * Linux, with a `nice` above 0: this thread gives way to the process's main thread, so a request
 * waiting for the event loop gets a core before evaluation does when the host is short of CPU (at
 * the price of evaluation's share against other processes). A Linux thread is a task with its own
 * id (`/proc/thread-self`), which setpriority accepts; elsewhere nothing changes.
 */
function lowerThreadPriority(nice: number): void {
  if (!(nice > 0)) return;
  try {
    const tid = Number(fs.readlinkSync("/proc/thread-self").split("/").pop());
    if (Number.isInteger(tid) && tid > 0) os.setPriority(tid, Math.max(os.getPriority(tid), nice));
  } catch {
    // not Linux, or not allowed: the thread keeps the process's priority
  }
}

/**
 * The worker side: answers each task with `handler(task, prepared)`, where `prepared` is
 * `prepare(shared)` of the value last sent under the task's key, computed once when it arrives and
 * kept for the last SHARED_KEPT keys (as the pool expects). A handler may answer with a promise
 * (an export over HTTP, ../shared/observability/export-thread.ts): the answers still leave in the
 * order the tasks came, as the pool reads them.
 */
export function serveTasks<T, S, P, R>(
  prepare: (shared: S) => P,
  handler: (task: T, prepared: P | undefined) => R | Promise<R>,
): void {
  const port = parentPort;
  if (!port) throw new Error("serveTasks runs in a worker thread");
  lowerThreadPriority(Number((workerData as { nice?: number } | undefined)?.nice ?? 0));
  const kept = new Map<string, { prepared?: P; error?: Error }>();
  const failed = (id: number, err: unknown) =>
    port.postMessage({ id, error: (err as Error)?.message ?? String(err) });
  // The answer of the last task that answered with a promise: later answers wait for it.
  let tail: Promise<void> | null = null;
  port.on("message", (message: { id: number; task: T; sharedKey?: string; shared?: S }) => {
    const { id, task, sharedKey, shared } = message;
    let outcome: { result: R | Promise<R> } | { error: unknown };
    try {
      if (sharedKey !== undefined && shared !== undefined) {
        // Kept even when it fails to prepare, so this list and the pool's stay the same.
        let entry: { prepared?: P; error?: Error };
        try {
          entry = { prepared: prepare(shared) };
        } catch (err) {
          entry = { error: err as Error };
        }
        kept.set(sharedKey, entry);
        if (kept.size > SHARED_KEPT) kept.delete(kept.keys().next().value!);
      }
      const entry = sharedKey === undefined ? undefined : kept.get(sharedKey);
      if (entry?.error) throw entry.error;
      outcome = { result: handler(task, entry?.prepared) };
    } catch (err) {
      outcome = { error: err };
    }
    if (tail === null && !("result" in outcome && outcome.result instanceof Promise)) {
      if ("result" in outcome) port.postMessage({ id, result: outcome.result });
      else failed(id, outcome.error);
      return;
    }
    const settled = outcome;
    const answered: Promise<void> = (tail ?? Promise.resolve())
      .then(() => ("result" in settled ? settled.result : Promise.reject(settled.error)))
      .then(
        (value) => port.postMessage({ id, result: value }),
        (err: unknown) => failed(id, err),
      )
      .finally(() => {
        if (tail === answered) tail = null;
      });
    tail = answered;
  });
}
