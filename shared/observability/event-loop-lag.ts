/**
 * Event-loop lag (docs/operations-guide.md#metrics): how late this process's event loop ran what it
 * had to run, measured by Node (`monitorEventLoopDelay`, sampled every 10 ms), exported as the gauge
 * `nodejs_eventloop_lag{quantile="0.5"|"0.99"|"1"}` in seconds over the current window (the last
 * WINDOW_MS, or since it began). A request holding the loop (heavy work on the main thread instead
 * of a worker) shows here first: every caller of the process waits that long.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { ServiceBroker } from "moleculer";

export const EVENT_LOOP_LAG = {
  type: "gauge",
  name: "nodejs.eventloop.lag",
  labelNames: ["quantile"],
  unit: "second",
  description: "Event-loop lag (s) over the last 10 s: quantile 0.5, 0.99 and 1 (the max)",
} as const;

const WINDOW_MS = 10_000;
const QUANTILES: [string, (h: ReturnType<typeof monitorEventLoopDelay>) => number][] = [
  ["0.5", (h) => h.percentile(50)],
  ["0.99", (h) => h.percentile(99)],
  ["1", (h) => h.max],
];

const publishers = new WeakMap<ServiceBroker, () => void>();

/** Starts measuring this broker's process; the gauge is set at every window's end and every scrape. */
export function trackEventLoopLag(broker: ServiceBroker): void {
  if (!broker.isMetricsEnabled() || publishers.has(broker)) return;
  if (!broker.metrics.getMetric(EVENT_LOOP_LAG.name))
    broker.metrics.register({ ...EVENT_LOOP_LAG, labelNames: [...EVENT_LOOP_LAG.labelNames] } as any);
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const publish = () => {
    if (histogram.count === 0) return;
    for (const [quantile, of] of QUANTILES)
      broker.metrics.set(EVENT_LOOP_LAG.name, of(histogram) / 1e9, { quantile });
  };
  const timer = setInterval(() => {
    publish();
    histogram.reset();
  }, WINDOW_MS);
  timer.unref();
  publishers.set(broker, publish);
  broker.localBus.once("$broker.stopped", () => {
    clearInterval(timer);
    histogram.disable();
    publishers.delete(broker);
  });
}

/** Sets the gauge from the current window (called before a scrape is answered). */
export function publishEventLoopLag(broker: ServiceBroker): void {
  publishers.get(broker)?.();
}
