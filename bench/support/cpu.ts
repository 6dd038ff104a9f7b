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

/** utime + stime of a process in ms, or undefined when it is gone (or not Linux). */
function processMs(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may contain spaces), counted from field 3.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / HZ;
  } catch {
    return undefined;
  }
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

/**
 * Starts watching; `pids()` names the bench's live children (they come and go: autocannon is one
 * per run), so they are sampled every 200 ms and their last reading counts.
 */
export function watchCpu(pids: () => number[], servers: string[] = ["nats-server"]): { stop(): CpuShares } {
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  const nats = serverPids(servers);
  let started = false;
  const sample = () => {
    for (const pid of [process.pid, ...nats, ...pids()]) {
      const ms = processMs(pid);
      if (ms === undefined) continue;
      // A child first seen after the start started within the window: all its time counts.
      if (!first.has(pid)) first.set(pid, started ? 0 : ms);
      last.set(pid, ms);
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
      for (const [pid, ms] of last) {
        byPid[pid] = ms - (first.get(pid) ?? ms);
        ours += byPid[pid];
      }
      const linux = last.size > 0;
      const round = (x: number) => Number(Math.min(1, Math.max(0, x)).toFixed(2));
      return {
        machine: all > 0 ? round(busy / all) : 0,
        others: linux && all > 0 ? round((busy - ours) / all) : null,
        byPid,
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
