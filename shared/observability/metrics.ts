/**
 * Metrics (docs/operations-guide.md#metrics): Prometheus text on `METRICS_PORT` of every process,
 * served by Moleculer's metrics module and its Prometheus reporter. Moleculer measures every action
 * call (count, errors by type, latency, in-flight), the bus and the process; the platform adds
 * what only it knows, named here once (PLATFORM_METRICS) and registered on every broker, so any
 * service can count without a registration of its own. Labels are bounded sets (routes, actions,
 * collections, statuses, adapter names), never ids or user input.
 */
import type { BrokerOptions, ServiceBroker } from "moleculer";
import { trackEventLoopLag } from "./event-loop-lag";
import { metricOf, seriesOf, type MoleculerMetric } from "./series";
import { PrometheusReporter } from "./prometheus-reporter";

/** Latency buckets in ms, from a cached read to a slow orchestrator. */
const MS_BUCKETS = [1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000];

export const PLATFORM_METRICS = {
  httpRequests: {
    type: "counter",
    name: "platform.http.requests.total",
    labelNames: ["method", "route", "status"],
    description: "HTTP requests answered by the gateway, by route and status",
  },
  httpTime: {
    type: "histogram",
    name: "platform.http.request.time",
    labelNames: ["method", "route"],
    unit: "millisecond",
    buckets: MS_BUCKETS,
    description: "HTTP request latency at the gateway (ms), by route",
  },
  httpActive: {
    type: "gauge",
    name: "platform.http.requests.active",
    description: "HTTP requests in flight at the gateway",
  },
  jobs: {
    type: "counter",
    name: "platform.jobs.total",
    labelNames: ["status"],
    description: "Job status changes written by the engine (running = started; complete, error, canceled)",
  },
  tasks: {
    type: "counter",
    name: "platform.tasks.total",
    labelNames: ["status"],
    description: "Task status changes written by the engine",
  },
  schedulerFires: {
    type: "counter",
    name: "platform.scheduler.fires.total",
    labelNames: ["outcome"],
    description: "Scheduled runs fired (started) or failed to start",
  },
  schedulerLag: {
    type: "histogram",
    name: "platform.scheduler.lag",
    unit: "millisecond",
    buckets: MS_BUCKETS,
    description: "Job start minus due time of scheduled runs (ms)",
  },
  schedulerSkips: {
    type: "counter",
    name: "platform.scheduler.skips.total",
    labelNames: ["reason"],
    description: "Scheduled runs skipped (missed-run or overlap policy)",
  },
  adapterUp: {
    type: "gauge",
    name: "platform.adapter.up",
    labelNames: ["adapter"],
    description: "1 when the adapter's last health check reached its target, 0 when not",
  },
  upstreamTime: {
    type: "histogram",
    name: "platform.adapter.upstream.time",
    labelNames: ["adapter", "outcome"],
    unit: "millisecond",
    buckets: MS_BUCKETS,
    description:
      "Orchestrator request latency through an adapter (ms); outcome 2xx..5xx, timeout, unreachable",
  },
  storeTime: {
    type: "histogram",
    name: "platform.store.operation.time",
    labelNames: ["operation", "collection", "outcome"],
    unit: "millisecond",
    buckets: MS_BUCKETS,
    description: "Store operation latency (ms) by operation and collection",
  },
  busConnected: {
    type: "gauge",
    name: "platform.bus.connected",
    description: "1 while this process is connected to the bus (NATS)",
  },
  busReconnects: {
    type: "counter",
    name: "platform.bus.reconnects.total",
    description: "Reconnections of this process to the bus",
  },
} as const;

export type PlatformMetric = keyof typeof PLATFORM_METRICS;

/** Broker metrics options: on unless METRICS_PORT is `off`; port 0 picks a free one. */
export function metricsOptions(port: number | null): BrokerOptions["metrics"] {
  if (port === null) return { enabled: false };
  return {
    enabled: true,
    // Moleculer leaves Node's process metrics out under NODE_ENV=test; they are part of the contract.
    collectProcessMetrics: true,
    // Moleculer's Prometheus reporter, its label text kept per series (./prometheus-reporter.ts).
    reporter: [new PrometheusReporter({ port, path: "/metrics" }) as never],
  };
}

/**
 * Moleculer's own metrics (per action, per event, the bus), re-registered lean: the same names,
 * labels and units, without the per-series rate meters and sliding-window quantiles. Prometheus
 * computes rates and quantiles from counters and buckets itself, and in-process they cost:
 *  - every update: the action metrics are updated on every call, most of what metrics cost a
 *    request (docs/operations-guide.md#cost);
 *  - a timer per series, which Moleculer never clears: it kept each stopped broker, and all it
 *    held, alive (about 11 MB a platform started and stopped in one process; the test runner,
 *    which starts hundreds, ran out of heap).
 * The action latency keeps the platform's buckets (MS_BUCKETS), as the gateway's does.
 */
function leanMoleculerMetrics(broker: ServiceBroker): void {
  const registered = broker.metrics as unknown as { store: Map<string, MoleculerMetric> };
  for (const metric of [...registered.store.values()]) {
    if (!metric.rate && !metric.quantiles) continue;
    const histogram = metric.type === "histogram";
    broker.metrics.register({
      name: metric.name,
      type: metric.type,
      labelNames: metric.labelNames,
      unit: metric.unit,
      description: metric.description,
      ...(histogram && { buckets: metric.name === "moleculer.request.time" ? MS_BUCKETS : metric.buckets }),
    } as never);
  }
}

/** Registers the platform's metrics on this broker (once) and follows the bus's state. */
export function registerPlatformMetrics(broker: ServiceBroker): void {
  if (!broker.isMetricsEnabled()) return;
  leanMoleculerMetrics(broker);
  for (const def of Object.values(PLATFORM_METRICS))
    if (!broker.metrics.getMetric(def.name))
      broker.metrics.register({
        ...def,
        labelNames: [...(("labelNames" in def && def.labelNames) || [])],
      } as any);
  trackEventLoopLag(broker);
  broker.metrics.set(PLATFORM_METRICS.busConnected.name, broker.transit ? 0 : 1);
  broker.localBus.on("$transporter.connected", (payload: { wasReconnect?: boolean } | undefined) => {
    broker.metrics.set(PLATFORM_METRICS.busConnected.name, 1);
    if (payload?.wasReconnect) broker.metrics.increment(PLATFORM_METRICS.busReconnects.name);
  });
  broker.localBus.on("$transporter.disconnected", () =>
    broker.metrics.set(PLATFORM_METRICS.busConnected.name, 0),
  );
}

type Labels = Record<string, string | number>;

/*
 * Each update goes to its series through `seriesOf` (./series.ts): found by label values, no
 * label string built; the series keeps the update until the metric is read.
 */

/** Counts one (or `by`) of a platform counter; nothing when metrics are off. */
export function count(broker: ServiceBroker, metric: PlatformMetric, labels?: Labels, by = 1): void {
  const m = metricOf(broker, PLATFORM_METRICS[metric].name);
  if (m) seriesOf(m, labels).add(by);
}

/** Records one value of a platform histogram. */
export function observe(broker: ServiceBroker, metric: PlatformMetric, value: number, labels?: Labels): void {
  const m = metricOf(broker, PLATFORM_METRICS[metric].name);
  if (m) seriesOf(m, labels).observe(value);
}

/** Sets a platform gauge. */
export function gauge(broker: ServiceBroker, metric: PlatformMetric, value: number, labels?: Labels): void {
  const m = metricOf(broker, PLATFORM_METRICS[metric].name);
  if (m) seriesOf(m, labels).set(value);
}
