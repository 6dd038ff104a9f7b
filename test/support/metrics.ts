/** Reading a platform's /metrics in tests. */
import type { ServiceBroker } from "moleculer";

/** The broker's Prometheus endpoint (the reporter's own server, METRICS_PORT). */
export function metricsUrl(broker: ServiceBroker): string {
  const reporter = (broker.metrics as any).reporter[0];
  return `http://127.0.0.1:${reporter.server.address().port}/metrics`;
}

/** Sum of a metric's samples whose labels include every given label. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(name + "{")) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    total += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return total;
}
