/**
 * `GET /health` every `everyMs` on one kept-alive connection while a bench runs: how long the
 * platform's event loop made a caller wait (p99 and max), the bench counterpart of
 * test/support/loop-probe.ts.
 */
import http from "node:http";

export interface HealthProbe {
  /** Stops probing; the probe still waiting counts to now. */
  stop(): Promise<{ probes: number; p99Ms: number; maxMs: number }>;
}

export function probeHealth(baseUrl: string, everyMs = 20): HealthProbe {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  let running = true;
  let pendingSince: number | undefined;
  const once = () =>
    new Promise<void>((resolve, reject) => {
      http
        .get(`${baseUrl}/health`, { agent }, (res) => {
          res.resume();
          res.on("end", resolve);
          res.on("error", reject);
        })
        .on("error", reject);
    });
  const loop = (async () => {
    while (running) {
      pendingSince = performance.now();
      await once();
      latencies.push(performance.now() - pendingSince);
      pendingSince = undefined;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      if (pendingSince !== undefined) latencies.push(performance.now() - pendingSince);
      await loop.catch(() => undefined);
      agent.destroy();
      const sorted = [...latencies].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
      const round = (ms: number) => Math.round(ms * 10) / 10;
      return {
        probes: latencies.length,
        p99Ms: round(at(0.99)),
        maxMs: round(sorted[sorted.length - 1] ?? 0),
      };
    },
  };
}
