/**
 * Moleculer's event metrics (its Metrics middleware's `localEvent`, `emit`, `broadcast` and
 * `broadcastLocal` hooks, moleculer/src/middlewares/metrics.js, 0.15) with their series bound once,
 * as ./action-metrics.ts binds the action calls' (docs/operations-guide.md#cost).
 *
 * Moleculer's hooks build a label object per update and have the registry hash it: four per event
 * a handler receives (received total, active up and down, time) and one per event sent. The engine
 * sends and receives its job-change events on every task transition: with metrics on (the
 * default), about 6 % of a one-process transition's instructions went to those lookups and
 * timers (thirty-seventh round, docs/performance-rounds.md). Here each handler keeps the series of
 * each event name and caller it met, and each send hook those of each event name; the same names,
 * labels and values reach /metrics (test/observability/action-metrics.test.ts compares the scrape
 * with Moleculer's own middleware's). Errors, rare and with labels of their own, go Moleculer's way.
 */
import { METRIC, type Context, type ServiceBroker } from "moleculer";
import { errorLabels, type ThrownError } from "./error-labels";
import { CallSeries, type CallMetricNames } from "./call-series";
import { metricOf, Series } from "./series";

/**
 * Label sets a hook keeps bound, at most (event names and callers come from the platform's code;
 * this only bounds a handler subscribed to a pattern that meets many names). Past it an update
 * goes through Moleculer, as before.
 */
const MAX_BOUND_SERIES = 1_000;

type EventHandler = (ctx: Context) => Promise<unknown>;
type Send = (...args: unknown[]) => unknown;

interface EventDef {
  group?: string;
  service?: { name: string };
}

/** Moleculer's metrics of an event a handler receives. */
const RECEIVED: CallMetricNames = {
  total: METRIC.MOLECULER_EVENT_RECEIVED_TOTAL,
  active: METRIC.MOLECULER_EVENT_RECEIVED_ACTIVE,
  time: METRIC.MOLECULER_EVENT_RECEIVED_TIME,
};

/** A local event handler with Moleculer's received-event metrics, through bound series. */
function receivedHandler(broker: ServiceBroker, next: EventHandler, event: EventDef): EventHandler {
  const service = event.service ? event.service.name : null;
  const group = event.group || service;
  const byName = new Map<string, Map<string | null, CallSeries>>();
  let bound = 0;
  const seriesOf = (name: string, caller: string | null): CallSeries | undefined => {
    let byCaller = byName.get(name);
    const kept = byCaller?.get(caller);
    if (kept) return kept;
    if (bound >= MAX_BOUND_SERIES) return undefined;
    if (!byCaller) byName.set(name, (byCaller = new Map()));
    const s = new CallSeries(broker, RECEIVED, { service, event: name, group, caller });
    byCaller.set(caller, s);
    bound++;
    return s;
  };
  const failed = (name: string, caller: string | null, err: ThrownError | undefined) =>
    broker.metrics.increment(METRIC.MOLECULER_EVENT_RECEIVED_ERROR_TOTAL, {
      service,
      event: name,
      group,
      caller,
      ...errorLabels(err),
    } as never);

  return function eventMetrics(ctx: Context) {
    const name = (ctx as Context & { eventName: string }).eventName;
    const caller = ctx.caller;
    const s = seriesOf(name, caller);
    if (!s) return viaMoleculer(broker, next, ctx, { service, event: name, group, caller }, failed);
    const start = s.began();
    // The handler's own promise to the caller; the metrics beside it, as the action calls' are.
    const handler = next as unknown as Send;
    // eslint-disable-next-line prefer-rest-params -- the handler's arguments as Moleculer passes them
    const answer = handler.apply(broker, arguments as unknown as unknown[]) as Promise<unknown>;
    answer.then(
      () => s.ended(start),
      (err) => {
        s.ended(start);
        failed(name, caller, err);
      },
    );
    return answer;
  };
}

/** Moleculer's own updates, for a label set past MAX_BOUND_SERIES. */
function viaMoleculer(
  broker: ServiceBroker,
  next: EventHandler,
  ctx: Context,
  labels: Record<string, string | null>,
  failed: (name: string, caller: string | null, err: ThrownError | undefined) => void,
): Promise<unknown> {
  const metrics = broker.metrics;
  metrics.increment(METRIC.MOLECULER_EVENT_RECEIVED_TOTAL, labels);
  metrics.increment(METRIC.MOLECULER_EVENT_RECEIVED_ACTIVE, labels);
  const timeEnd = metrics.timer(METRIC.MOLECULER_EVENT_RECEIVED_TIME, labels);
  const answer = next.call(broker, ctx);
  answer.then(
    () => {
      timeEnd();
      metrics.decrement(METRIC.MOLECULER_EVENT_RECEIVED_ACTIVE, labels);
    },
    (err) => {
      timeEnd();
      metrics.decrement(METRIC.MOLECULER_EVENT_RECEIVED_ACTIVE, labels);
      failed(labels.event!, labels.caller, err);
    },
  );
  return answer;
}

/** broker.emit, broadcast or broadcastLocal counting each event sent by its name, through bound series. */
function sentCounter(broker: ServiceBroker, metricName: string, next: Send): Send {
  const byName = new Map<string, Series>();
  // The hook wraps the broker's method when the broker is made, before the metric is registered.
  return function sentEventMetrics(this: unknown, eventName: unknown) {
    let s = byName.get(eventName as string);
    if (!s && byName.size < MAX_BOUND_SERIES && typeof eventName === "string")
      byName.set(eventName, (s = new Series(metricOf(broker, metricName)!, { event: eventName })));
    if (s) s.add(1);
    else broker.metrics.increment(metricName, { event: eventName } as never);
    // eslint-disable-next-line prefer-rest-params -- the sender's arguments as given
    return next.apply(this, arguments as unknown as unknown[]);
  };
}

/** The event hooks of the platform's Metrics middleware: Moleculer's, on bound series. */
export function eventMetricsHooks(broker: ServiceBroker) {
  const on = () => broker.isMetricsEnabled();
  return {
    localEvent: (next: EventHandler, event: EventDef) => (on() ? receivedHandler(broker, next, event) : next),
    emit: (next: Send) => (on() ? sentCounter(broker, METRIC.MOLECULER_EVENT_EMIT_TOTAL, next) : next),
    broadcast: (next: Send) =>
      on() ? sentCounter(broker, METRIC.MOLECULER_EVENT_BROADCAST_TOTAL, next) : next,
    broadcastLocal: (next: Send) =>
      on() ? sentCounter(broker, METRIC.MOLECULER_EVENT_BROADCASTLOCAL_TOTAL, next) : next,
  };
}
