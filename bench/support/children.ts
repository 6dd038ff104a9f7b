/**
 * Child processes of the bench, tracked so they all die with it: on normal end, on a thrown error,
 * on Ctrl-C, and (best effort, SIGKILL) on process exit. Children watch the IPC channel too
 * (watchdog.ts), so even a SIGKILLed bench leaves nothing running for long.
 */
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const live = new Set<ChildProcess>();

export function spawnTracked(command: string, args: string[], options: SpawnOptions): ChildProcess {
  const child = spawn(command, args, options);
  live.add(child);
  child.once("exit", () => live.delete(child));
  return child;
}

/** pids of the children running now (for CPU accounting). */
export function childPids(): number[] {
  return [...live].flatMap((c) => (c.pid ? [c.pid] : []));
}

/** Resolves with the exit code; rejects when the child does not exit within `ms` (it is killed then). */
export function waitExit(child: ChildProcess, ms: number): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`child ${child.pid} did not finish within ${ms} ms (killed)`));
    }, ms);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/** SIGTERM (graceful broker stop), then SIGKILL after `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  await waitExit(child, graceMs).catch(() => undefined);
}

export async function stopAllChildren(): Promise<void> {
  await Promise.all([...live].map((c) => stopChild(c)));
}

// Last resort: 'exit' handlers must be synchronous, so only SIGKILL fits here.
process.once("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

/**
 * A bench's scratch space: a temp root removed at exit, and on SIGINT/SIGTERM every child stopped
 * first. Answers a function that makes a fresh data dir under it.
 */
export function scratchSpace(prefix: string): () => string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  process.once("exit", () => fs.rmSync(root, { recursive: true, force: true }));
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: stopping children`);
      void stopAllChildren().finally(() => process.exit(130));
    });
  }
  let dirs = 0;
  return () => fs.mkdtempSync(path.join(root, `data-${dirs++}-`));
}
