/**
 * Does one request stall everybody else? While `work` runs, a probe asks `GET /health` every
 * `everyMs` (20 ms by default) on its own connection and records how long each answer took. The
 * largest latency says how long the platform's event loop was held (docs/security.md#stalls).
 */
import http from "node:http";

export interface ProbeResult<T> {
  result: T;
  /** The slowest probe answer, in ms (a probe still waiting when `work` ended counts to then). */
  maxLatencyMs: number;
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

export async function probeWhile<T>(
  baseUrl: string,
  work: () => Promise<T>,
  everyMs = 20,
): Promise<ProbeResult<T>> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  // One warm-up answer, so connection set-up is not counted as a stall.
  await healthOnce(baseUrl, agent);
  let running = true;
  let maxLatencyMs = 0;
  let probes = 0;
  let pendingSince: number | undefined;
  const probing = (async () => {
    while (running) {
      pendingSince = performance.now();
      await healthOnce(baseUrl, agent);
      maxLatencyMs = Math.max(maxLatencyMs, performance.now() - pendingSince);
      pendingSince = undefined;
      probes++;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  const started = performance.now();
  try {
    const result = await work();
    const workMs = performance.now() - started;
    if (pendingSince !== undefined) maxLatencyMs = Math.max(maxLatencyMs, performance.now() - pendingSince);
    return { result, maxLatencyMs, probes, workMs };
  } finally {
    running = false;
    await probing.catch(() => undefined);
    agent.destroy();
  }
}
