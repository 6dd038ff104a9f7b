/**
 * Who used the CPU during a measured run. The machine is shared (other engineers' builds and
 * tests, 2 cores), so every figure carries the share of CPU used by processes outside the bench:
 * machine busy time (os.cpus) minus the bench's own tree (this process, its children, autocannon)
 * and nats-server. Linux only (/proc); elsewhere `others` is null.
 */
import fs from "node:fs";
import os from "node:os";

/** clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const HZ = 100;

function machineMs(): { busy: number; all: number } {
  let busy = 0;
  let all = 0;
  for (const { times: t } of os.cpus()) {
    busy += t.user + t.nice + t.sys + t.irq;
    all += t.user + t.nice + t.sys + t.irq + t.idle;
  }
  return { busy, all };
}

/** utime + stime in ms of a /proc stat file (a process's or a thread's), or undefined when it is gone. */
function statMs(file: string): number | undefined {
  try {
    const stat = fs.readFileSync(file, "utf8");
    // Fields after the command name (which may contain spaces), counted from field 3.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / HZ;
  } catch {
    return undefined;
  }
}

/** utime + stime of a process in ms (all its threads, ended ones too), or undefined when it is gone (or not Linux). */
function processMs(pid: number): number | undefined {
  return statMs(`/proc/${pid}/stat`);
}

/**
 * What a thread of a Node process does, by the name Node and V8 give it (`/proc/<pid>/task/<tid>/comm`):
 *   main     the event loop (`MainThread`)
 *   v8       V8's helpers (`V8Worker`, `DelayedTaskSche`): parallel scavenges, concurrent marking,
 *            compilation on background threads
 *   workers  worker_threads (`WorkerThread`): the embedded store's compaction, aggregations
 *   libuv    libuv's thread pool (`libuv-worker`): file system calls, DNS, zlib
 *   other    the rest: the inspector's signal thread, a server's own threads (nats-server's), and
 *            what threads that ended within a watched window used after their last sample
 */
export type ThreadKind = "main" | "v8" | "workers" | "libuv" | "other";
export const THREAD_KINDS: readonly ThreadKind[] = ["main", "v8", "workers", "libuv", "other"];

export function threadKind(comm: string): ThreadKind {
  if (comm === "MainThread") return "main";
  if (comm === "V8Worker" || comm.startsWith("DelayedTaskSch")) return "v8";
  if (comm === "WorkerThread") return "workers";
  if (comm === "libuv-worker") return "libuv";
  return "other";
}

/** Each live thread of `pid`: its kind and its utime + stime in ms (empty when the process is gone). */
export function threadsMs(pid: number): Map<number, { kind: ThreadKind; ms: number }> {
  const threads = new Map<number, { kind: ThreadKind; ms: number }>();
  let tids: string[];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return threads;
  }
  for (const tid of tids) {
    const ms = statMs(`/proc/${pid}/task/${tid}/stat`);
    if (ms === undefined) continue; // ended since the listing
    let comm: string;
    try {
      comm = fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
    } catch {
      continue;
    }
    threads.set(Number(tid), { kind: threadKind(comm), ms });
  }
  return threads;
}

/**
 * pids of the servers a run measures besides its own processes: nats-server (the bus of the NATS
 * scenarios) by default; bench:peers adds redis-server and postgres.
 */
export function serverPids(names: string[]): number[] {
  try {
    return fs
      .readdirSync("/proc")
      .filter((d) => /^\d+$/.test(d))
      .filter((d) => {
        try {
          return names.includes(fs.readFileSync(`/proc/${d}/comm`, "utf8").trim());
        } catch {
          return false;
        }
      })
      .map(Number);
  } catch {
    return [];
  }
}

export interface CpuShares {
  /** Share of all cores busy during the run. */
  machine: number;
  /** Share of all cores used by processes outside the bench and the servers watched. */
  others: number | null;
  /** CPU ms used in the window by each process of the bench (and nats-server), by pid. */
  byPid: Record<number, number>;
  /**
   * The same ms by pid, split by the kind of thread that used them (threadKind). A thread that
   * started within the window counts whole; one that ended within it counts under its kind up to
   * its last sample (every 200 ms), and the rest of its time as `other` (the process's total less
   * its threads' readings). Empty where /proc has no threads (not Linux).
   */
  byThread: Record<number, Record<ThreadKind, number>>;
  /** Which of those pids are the servers watched (nats-server unless told otherwise). */
  natsPids: number[];
}

/**
 * The CPU of the watched processes (the bench's tree and nats-server) a unit of work, in µs: what
 * the work cost the machine, busy or not. On a machine shared with nothing else, `machine` near 1
 * and this figure say whether a shape is bound by CPU (twice the throughput needs half of it) or by
 * its waits. nats-server's share counts whole, its other clients' too (a shared server).
 */
export function cpuUsPer(shares: CpuShares | null, units: number): number | null {
  if (!shares || units <= 0 || Object.keys(shares.byPid).length === 0) return null;
  const ms = Object.values(shares.byPid).reduce((sum, v) => sum + v, 0);
  return Math.round((ms * 1000) / units);
}

/** CPU µs a unit of work of one role (a process, or several of one kind), by kind of thread, and in all. */
export type RoleCpu = Record<ThreadKind | "total", number>;

/**
 * cpuUsPer by role: `roles` names the pids a caller knows (`store`, `engine 1`); the servers
 * watched are `nats-server`, any other pid is `rest` (a load client). Each role's µs a unit are
 * split by the kind of thread that used them (threadKind), where /proc lists threads.
 */
export function cpuUsPerByRole(
  shares: CpuShares | null,
  roles: Record<number, string>,
  units: number,
  rest = "load client",
): Record<string, RoleCpu> | null {
  if (!shares || units <= 0 || Object.keys(shares.byPid).length === 0) return null;
  const ms: Record<string, RoleCpu> = {};
  for (const [key, total] of Object.entries(shares.byPid)) {
    const pid = Number(key);
    const role = roles[pid] ?? (shares.natsPids.includes(pid) ? "nats-server" : rest);
    const sum = (ms[role] ??= { main: 0, v8: 0, workers: 0, libuv: 0, other: 0, total: 0 });
    sum.total += total;
    const kinds = shares.byThread[pid];
    if (kinds) for (const k of THREAD_KINDS) sum[k] += kinds[k];
    else sum.other += total;
  }
  const us = (x: number) => Math.round((x * 1000) / units);
  const out: Record<string, RoleCpu> = {};
  for (const [role, sum] of Object.entries(ms))
    out[role] = {
      main: us(sum.main),
      v8: us(sum.v8),
      workers: us(sum.workers),
      libuv: us(sum.libuv),
      other: us(sum.other),
      total: us(sum.total),
    };
  return out;
}

/** A role's line: `store 113 (main 62, V8 28, workers 35)`, kinds at 0 left out. */
export function roleCpuText(role: string, cpu: RoleCpu): string {
  const parts = THREAD_KINDS.filter((k) => cpu[k] > 0).map((k) => `${k === "v8" ? "V8" : k} ${cpu[k]}`);
  return `${role} ${cpu.total}${parts.length > 0 ? ` (${parts.join(", ")})` : ""}`;
}

/**
 * Starts watching; `pids()` names the bench's live children (they come and go: autocannon is one
 * per run), so they are sampled every 200 ms and their last reading counts.
 */
export function watchCpu(pids: () => number[], servers: string[] = ["nats-server"]): { stop(): CpuShares } {
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  /** Each thread's first and last reading, by pid, then tid. */
  const threads = new Map<number, Map<number, { kind: ThreadKind; first: number; last: number }>>();
  const nats = serverPids(servers);
  let started = false;
  const sample = () => {
    for (const pid of [process.pid, ...nats, ...pids()]) {
      const ms = processMs(pid);
      if (ms === undefined) continue;
      // A child first seen after the start started within the window: all its time counts.
      if (!first.has(pid)) first.set(pid, started ? 0 : ms);
      last.set(pid, ms);
      let known = threads.get(pid);
      if (!known) threads.set(pid, (known = new Map()));
      for (const [tid, thread] of threadsMs(pid)) {
        const seen = known.get(tid);
        if (seen) seen.last = thread.ms;
        else known.set(tid, { kind: thread.kind, first: started ? 0 : thread.ms, last: thread.ms });
      }
    }
  };
  const start = machineMs();
  sample();
  started = true;
  const timer = setInterval(sample, 200);
  return {
    stop() {
      clearInterval(timer);
      sample();
      const end = machineMs();
      const all = end.all - start.all;
      const busy = end.busy - start.busy;
      let ours = 0;
      const byPid: Record<number, number> = {};
      const byThread: Record<number, Record<ThreadKind, number>> = {};
      for (const [pid, ms] of last) {
        byPid[pid] = ms - (first.get(pid) ?? ms);
        ours += byPid[pid];
        const known = threads.get(pid);
        if (!known || known.size === 0) continue;
        const kinds = { main: 0, v8: 0, workers: 0, libuv: 0, other: 0 };
        for (const t of known.values()) kinds[t.kind] += t.last - t.first;
        // Threads that ended within the window: in the process's total, no longer in its task list.
        const gone = byPid[pid] - THREAD_KINDS.reduce((sum, k) => sum + kinds[k], 0);
        if (gone > 0) kinds.other += gone;
        byThread[pid] = kinds;
      }
      const linux = last.size > 0;
      const round = (x: number) => Number(Math.min(1, Math.max(0, x)).toFixed(2));
      return {
        machine: all > 0 ? round(busy / all) : 0,
        others: linux && all > 0 ? round((busy - ours) / all) : null,
        byPid,
        byThread,
        natsPids: nats,
      };
    },
  };
}

/**
 * Waits (at most `maxMs`) for a second in which the machine is almost idle, before a run starts:
 * the bench is idle then, so what is busy is someone else's build or tests. Returns the last share.
 */
export async function waitQuiet(maxMs: number, threshold = 0.15): Promise<number> {
  const deadline = Date.now() + maxMs;
  for (;;) {
    const start = machineMs();
    await new Promise((r) => setTimeout(r, 1000));
    const end = machineMs();
    const busy = (end.busy - start.busy) / Math.max(1, end.all - start.all);
    if (busy <= threshold || Date.now() >= deadline) return Number(busy.toFixed(2));
  }
}
