/**
 * Does one request stall everybody else? While `work` runs, a probe asks `GET /health` every
 * `everyMs` (20 ms by default) on its own connection and records how long each answer took
 * (docs/security.md#stalls).
 *
 * A slow answer has two possible causes: the platform's event loop was busy (the platform's fault:
 * a request holding the loop), or the platform's main thread was runnable but waited for a core
 * behind other processes (the host's: a loaded 2-core CI machine shows waits of 100-300 ms while
 * the platform does nothing). So, given the platform's pid, the probe also reads the main thread's
 * CPU time (Linux `/proc/<pid>/task/<pid>/stat`, 10 ms ticks) before and after each answer: a
 * probe's `heldMs` is the smaller of its latency and the CPU the main thread spent meanwhile. The
 * loop was held at most `maxHeldMs`; `maxLatencyMs` is what the client saw, the host included.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";

export interface ProbeResult<T> {
  result: T;
  /** The slowest probe answer, in ms (a probe still waiting when `work` ended counts to then). */
  maxLatencyMs: number;
  /**
   * The longest the platform's main thread was busy while one probe waited (min of latency and
   * main-thread CPU time), in ms; equals maxLatencyMs when no pid was given.
   */
  maxHeldMs: number;
  /** Probes answered while `work` ran. */
  probes: number;
  /** How long `work` took, in ms. */
  workMs: number;
}

function healthOnce(baseUrl: string, agent: http.Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${baseUrl}/health`, { agent }, (res) => {
      res.resume();
      res.on("end", () => resolve());
      res.on("error", reject);
    });
    req.on("error", reject);
  });
}

const MS_PER_TICK = 1000 / 100; // USER_HZ is 100 on Linux

/** CPU time (user + system) the process's main thread has used, in ms; undefined off Linux. */
export function mainThreadCpuMs(pid: number): number | undefined {
  if (os.platform() !== "linux") return undefined;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces, inside parentheses): utime is the
    // 14th field of the line, stime the 15th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
  } catch {
    return undefined;
  }
}

export async function probeWhile<T>(
  baseUrl: string,
  work: () => Promise<T>,
  options: { everyMs?: number; pid?: number } = {},
): Promise<ProbeResult<T>> {
  const { everyMs = 20, pid } = options;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const cpu = () => (pid === undefined ? undefined : mainThreadCpuMs(pid));
  // One warm-up answer, so connection set-up is not counted as a stall.
  await healthOnce(baseUrl, agent);
  let running = true;
  let maxLatencyMs = 0;
  let maxHeldMs = 0;
  let probes = 0;
  let pending: { since: number; cpu: number | undefined } | undefined;
  const record = () => {
    if (!pending) return;
    const latency = performance.now() - pending.since;
    const cpuNow = cpu();
    // One tick of slack each side: the CPU clock counts in 10 ms steps.
    const busy =
      pending.cpu === undefined || cpuNow === undefined ? latency : cpuNow - pending.cpu + MS_PER_TICK;
    maxLatencyMs = Math.max(maxLatencyMs, latency);
    maxHeldMs = Math.max(maxHeldMs, Math.min(latency, busy));
    pending = undefined;
  };
  const probing = (async () => {
    while (running) {
      pending = { since: performance.now(), cpu: cpu() };
      await healthOnce(baseUrl, agent);
      record();
      probes++;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  const started = performance.now();
  try {
    const result = await work();
    const workMs = performance.now() - started;
    record();
    return { result, maxLatencyMs, maxHeldMs, probes, workMs };
  } finally {
    running = false;
    await probing.catch(() => undefined);
    agent.destroy();
  }
}

/** The bound the stall suites hold a platform's loop to (docs/security.md#stalls). */
export const MAX_HELD_MS = 100;

/**
 * Runs `work` under the probe against a platform in a process of its own, prints the figures the
 * docs quote (not asserted but for the bound), and expects the loop never held MAX_HELD_MS (a
 * probe's wait for which the platform's main thread was busy; the host's own scheduling delays on a
 * loaded machine are not the platform's). Answers what `work` answered.
 */
export async function expectLoopFree<T>(
  label: string,
  platform: { baseUrl: string; pid: number },
  work: () => Promise<T>,
): Promise<T> {
  const { result, maxLatencyMs, maxHeldMs, probes, workMs } = await probeWhile(platform.baseUrl, work, {
    pid: platform.pid,
  });
  process.stdout.write(
    `stall ${label}: loop held at most ${maxHeldMs.toFixed(0)} ms, max /health ${maxLatencyMs.toFixed(1)} ms, ` +
      `${probes} probes, ${workMs.toFixed(0)} ms\n`,
  );
  expect(maxHeldMs).toBeLessThan(MAX_HELD_MS);
  return result;
}
