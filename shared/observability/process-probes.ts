/**
 * `/health` and `/ready` on the metrics port of every process (docs/operations-guide.md#probes),
 * so a process without the gateway has probes that mean something: `/health` answers while the
 * process runs; `/ready` answers 200 while the broker is started, connected to the bus and its
 * store answers a ping (a process whose services hold no store pings none), and 503 from the
 * moment it starts stopping (a drain), while the bus is down or the store does not answer. They share the
 * Prometheus reporter's server: one port per process, one thing to scrape and probe.
 */
import type { IncomingMessage, ServerResponse, Server } from "node:http";
import type { ServiceBroker } from "moleculer";
import { publishEventLoopLag } from "./event-loop-lag";
import { pingStores } from "../runtime";

interface PrometheusReporter {
  server?: Server;
  handler(req: IncomingMessage, res: ServerResponse): void;
}

function answer(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** The process's readiness: started, not stopping, on the bus when there is one, its store answering when it holds one. */
export async function processReadiness(
  broker: ServiceBroker,
): Promise<{ ready: boolean; checks: Record<string, string> }> {
  const checks: Record<string, string> = { broker: broker.started && !broker.stopping ? "ok" : "stopping" };
  if (broker.transit) checks.bus = broker.transit.connected ? "ok" : "disconnected";
  const store = await pingStores(broker);
  if (store) checks.store = store;
  return { ready: Object.values(checks).every((v) => v === "ok"), checks };
}

export function attachProcessProbes(broker: ServiceBroker): void {
  if (!broker.isMetricsEnabled()) return;
  const reporter = ((broker.metrics as any).reporter ?? []).find((r: PrometheusReporter) => r.server) as
    PrometheusReporter | undefined;
  if (!reporter?.server) return;
  reporter.server.removeAllListeners("request");
  reporter.server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "").split("?")[0];
    if (path === "/health") return answer(res, 200, { status: "ok" });
    if (path === "/ready") {
      void processReadiness(broker).then(({ ready, checks }) =>
        answer(res, ready ? 200 : 503, { status: ready ? "ready" : "not ready", checks }),
      );
      return;
    }
    if (path === "/metrics") publishEventLoopLag(broker);
    reporter.handler(req, res);
  });
}
