/**
 * Moleculer's Metrics middleware with its per-call work bound once (docs/operations-guide.md#cost),
 * and the action calls' context tracking (graceful shutdown) in the same promise reaction.
 *
 * Moleculer's own middleware builds five label objects per action call and has the registry hash
 * each of them (moleculer.request.total, .active up and down, .levels, .time), and its timer
 * allocates an hrtime pair and a closure. Here each action keeps, per caller, the series it updates
 * (./series.ts), so a call adds to those (a few sums, folded into Moleculer's items when the
 * metrics are read). The events sent and received go the same way (./event-metrics.ts). Everything
 * else of Moleculer's middleware (its metric registrations, transit and transporter counts, the
 * error counters) is kept as is: the same names, labels and values reach /metrics.
 *
 * Moleculer's ContextTracker chains `.then().catch()` on every action call (two promises, two
 * reactions) to take the context off its service's list when the call settles; the metrics took a
 * reaction of their own on the same call. Here one reaction, beside the caller's chain, does both:
 * the tracker keeps its event hook and its shutdown waits (`trackerWithoutActions`), and the action
 * calls are tracked here, at the Metrics middleware's place in the chain (outside the tracker's:
 * a context is on the list from before the circuit breaker to after the error handler, a little
 * longer than before, which a shutdown's wait only makes safer). docs/performance-rounds.md, "Metrics, tenth round".
 */
import * as moleculer from "moleculer";
import { METRIC, type Context, type Middleware, type ServiceBroker } from "moleculer";
import { errorLabels, type ThrownError } from "./error-labels";
import { eventMetricsHooks } from "./event-metrics";
import { CallSeries, type CallMetricNames } from "./call-series";
import { metricOf, Series } from "./series";

interface ActionDef {
  name: string;
  service?: { fullName: string };
}

type Handler = (ctx: Context) => Promise<unknown>;

/** Moleculer's metrics of an action call. */
const REQUEST: CallMetricNames = {
  total: METRIC.MOLECULER_REQUEST_TOTAL,
  active: METRIC.MOLECULER_REQUEST_ACTIVE,
  time: METRIC.MOLECULER_REQUEST_TIME,
};

/** Where Moleculer keeps a context being tracked: its service's list, or the broker's (remote). */
interface Tracked {
  service?: { _trackedContexts: Context[] };
  broker: { _trackedContexts: Context[] };
}
const trackedList = (ctx: Context) => {
  const c = ctx as unknown as Tracked;
  return c.service ? c.service._trackedContexts : c.broker._trackedContexts;
};
function untrack(ctx: Context): void {
  const list = trackedList(ctx);
  const i = list.indexOf(ctx);
  if (i !== -1) list.splice(i, 1);
}

/** Moleculer's rule: the call's own `tracking` option, else the broker's. */
const isTracked = (broker: ServiceBroker, ctx: Context): boolean =>
  (ctx.options as { tracking?: boolean }).tracking ?? broker.options.tracking!.enabled!;

/** Tracking only (metrics off): one reaction per call, where Moleculer's tracker had two. */
function trackingHandler(broker: ServiceBroker, next: Handler): Handler {
  return function trackedCall(ctx: Context) {
    if (!isTracked(broker, ctx)) return next(ctx);
    trackedList(ctx).push(ctx);
    let answer: Promise<unknown>;
    try {
      answer = next(ctx);
    } catch (err) {
      untrack(ctx);
      throw err;
    }
    const settled = () => untrack(ctx);
    answer.then(settled, settled);
    return answer;
  };
}

function actionHandler(
  broker: ServiceBroker,
  type: "local" | "remote",
  action: ActionDef,
  next: Handler,
  levels: Series[],
  tracking: boolean,
): Handler {
  const service = action.service ? action.service.fullName : null;
  const name = action.name;
  const byCaller = new Map<string | null, CallSeries>();
  const bind = (caller: string | null): CallSeries => {
    const s = new CallSeries(broker, REQUEST, { service, action: name, caller, type });
    byCaller.set(caller, s);
    return s;
  };
  const levelSeries = (level: number): Series =>
    (levels[level] ??= new Series(metricOf(broker, METRIC.MOLECULER_REQUEST_LEVELS)!, { level }));

  return function metricsMiddleware(ctx: Context) {
    const caller = ctx.caller;
    const s = byCaller.get(caller) ?? bind(caller);
    const start = s.began();
    levelSeries(ctx.level).add(1);
    const tracked = tracking && isTracked(broker, ctx);
    if (tracked) trackedList(ctx).push(ctx);
    let answer: Promise<unknown>;
    try {
      answer = next(ctx);
    } catch (err) {
      // As Moleculer's tracker: a handler throwing instead of rejecting is not tracked any longer.
      if (tracked) untrack(ctx);
      throw err;
    }
    // Measured beside the caller's chain, not in it: the caller gets the handler's own promise,
    // one promise and one microtask fewer per call than Moleculer's `.then().catch()`. Registered
    // before the caller's own reaction, so the context is off the list before the caller resumes.
    answer.then(
      () => {
        s.ended(start);
        if (tracked) untrack(ctx);
      },
      (err: ThrownError | undefined) => {
        s.ended(start);
        if (tracked) untrack(ctx);
        // Errors are rare and their labels vary: Moleculer's own path.
        broker.metrics.increment(METRIC.MOLECULER_REQUEST_ERROR_TOTAL, {
          service,
          action: name,
          caller,
          type,
          ...errorLabels(err),
        } as never);
      },
    );
    return answer;
  };
}

/**
 * Replaces Moleculer's internal "Metrics" middleware (see ./internal-middlewares.ts), and tracks
 * the action calls for the ContextTracker (`trackerWithoutActions`) whether metrics are on or not.
 */
export function actionMetricsMiddleware(broker: ServiceBroker): Middleware {
  // Moleculer exports its built-in middlewares without typings.
  const builtin = builtins().Metrics.call(broker, broker);
  // One series per context level, shared by every action (the metric's only label is the level).
  const levels: Series[] = [];
  const wrap = (type: "local" | "remote") => (next: Handler, action: ActionDef) => {
    const tracking = !!broker.options.tracking?.enabled;
    if (broker.isMetricsEnabled()) return actionHandler(broker, type, action, next, levels, tracking);
    return tracking ? trackingHandler(broker, next) : next;
  };
  return {
    ...builtin,
    name: "Metrics",
    localAction: wrap("local"),
    remoteAction: wrap("remote"),
    ...eventMetricsHooks(broker),
  } as unknown as Middleware;
}

/**
 * Replaces Moleculer's internal "ContextTracker": the same middleware without its action hooks
 * (the action calls are tracked by `actionMetricsMiddleware`, in the reaction the metrics take);
 * its event hook, its lists and its shutdown waits are Moleculer's.
 */
export function trackerWithoutActions(broker: ServiceBroker): Middleware {
  const builtin = builtins().ContextTracker.call(broker, broker) as Record<string, unknown>;
  const { localAction: _local, remoteAction: _remote, ...rest } = builtin;
  return rest as Middleware;
}

const builtins = () =>
  (moleculer as unknown as { Middlewares: Record<string, (b: ServiceBroker) => object> }).Middlewares;
