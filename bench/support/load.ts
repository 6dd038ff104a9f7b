/**
 * The load generator: autocannon's CLI in its own child process, so it never shares an event loop
 * with the server under test (it still shares the machine's cores: see docs/performance.md).
 * Every scenario gets the same settings: a warm-up run whose figures are discarded, then the
 * measured run. autocannon keeps its connections alive (HTTP keep-alive), pipelining 1.
 */
import path from "node:path";
import { childPids, spawnTracked, waitExit } from "./children";
import { waitQuiet, watchCpu, type CpuShares } from "./cpu";

export interface LoadSettings {
  connections: number;
  durationS: number;
  warmupS: number;
  /** Longest wait for a quiet machine before each measured run, in seconds. */
  quietWaitS: number;
}

export interface LoadResult {
  /** Mean of autocannon's per-second request counts. */
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** CPU during the measured run: the whole machine's share, and that of processes outside the bench. */
  cpu: Omit<CpuShares, "byPid" | "byThread" | "natsPids"> & {
    /** CPU ms in the run by role: this process, server children, nats-server, autocannon. */
    ms: { bench: number; children: number; natsServer: number; generator: number; outside: number };
  };
  /**
   * CPU time the servers spent per answered request, in µs: the bench process, its server children
   * and nats-server, not autocannon. Unlike req/s it hardly moves when others load the machine.
   */
  serverCpuUsPerReq: number | null;
}

const WRITE_LOAD = path.join(__dirname, "write-load.js");
const AUTOCANNON = path.join(path.dirname(require.resolve("autocannon/package.json")), "autocannon.js");

/** A request other than a plain GET: method and body text (sent with the given headers). */
export interface LoadRequest {
  method: string;
  body?: string;
  /** Each `[<id>]` in the body becomes a fresh id per request (./write-load.ts): unique names for creates. */
  idReplacement?: boolean;
}

async function autocannon(
  url: string,
  headers: Record<string, string>,
  connections: number,
  durationS: number,
  onSpawn: (pid: number) => void = () => undefined,
  request?: LoadRequest,
): Promise<Omit<LoadResult, "cpu" | "serverCpuUsPerReq">> {
  const u = new URL(url);
  if (u.hostname !== "127.0.0.1") throw new Error(`the bench only targets 127.0.0.1, not ${u.hostname}`);
  const args = [AUTOCANNON, "-c", String(connections), "-d", String(durationS), "-j"];
  for (const [k, v] of Object.entries(headers)) args.push("-H", `${k}=${v}`);
  if (request) args.push("-m", request.method, ...(request.body !== undefined ? ["-b", request.body] : []));
  args.push(url);
  if (request?.idReplacement) {
    // A fresh id per request: ./write-load.ts (the CLI's -I sends nothing in this version).
    args.splice(
      0,
      args.length,
      WRITE_LOAD,
      JSON.stringify({ url, connections, durationS, headers, ...request }),
    );
  }
  const child = spawnTracked(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  if (child.pid) onSpawn(child.pid);
  let out = "";
  let err = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (err += d));
  // Bounded: the run's own duration plus a generous margin for start-up and the last replies.
  const code = await waitExit(child, (durationS + 30) * 1000);
  if (code !== 0) throw new Error(`autocannon exited ${code}: ${err.trim().slice(-500)}`);
  const r = JSON.parse(out);
  return {
    reqPerSec: r.requests.average,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    requests: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
  };
}

export async function measure(
  url: string,
  headers: Record<string, string>,
  settings: LoadSettings,
  request?: LoadRequest,
  /** Children standing in for systems outside the platform (a metrics scraper): not server CPU. */
  outside: () => number[] = () => [],
): Promise<LoadResult> {
  if (settings.quietWaitS > 0) await waitQuiet(settings.quietWaitS * 1000);
  if (settings.warmupS > 0)
    await autocannon(url, headers, settings.connections, settings.warmupS, undefined, request);
  const watch = watchCpu(childPids);
  let generator = 0;
  const run = await autocannon(
    url,
    headers,
    settings.connections,
    settings.durationS,
    (pid) => (generator = pid),
    request,
  );
  const { byPid, byThread: _byThread, natsPids, ...cpu } = watch.stop();
  const cpuMs = { bench: 0, children: 0, natsServer: 0, generator: 0, outside: 0 };
  const outsidePids = outside();
  for (const [pid, ms] of Object.entries(byPid).map(([p, ms]) => [Number(p), ms])) {
    const role =
      pid === process.pid
        ? "bench"
        : pid === generator
          ? "generator"
          : outsidePids.includes(pid)
            ? "outside"
            : natsPids.includes(pid)
              ? "natsServer"
              : "children";
    cpuMs[role] += Math.round(ms);
  }
  const serverMs = cpuMs.bench + cpuMs.children + cpuMs.natsServer;
  const result: LoadResult = {
    ...run,
    cpu: { ...cpu, ms: cpuMs },
    serverCpuUsPerReq:
      cpu.others === null || run.requests === 0 ? null : Math.round((serverMs * 1000) / run.requests),
  };
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    // Fast error answers would inflate req/s: such a run is reported, flagged, never silently used.
    console.warn(
      `  ! ${url}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`,
    );
  }
  return result;
}
