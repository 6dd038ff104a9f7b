/**
 * Moleculer's Metrics middleware with its per-call work bound once (docs/operations-guide.md#cost).
 *
 * Moleculer's own middleware builds five label objects per action call and has the registry hash
 * each of them (moleculer.request.total, .active up and down, .levels, .time), and its timer
 * allocates an hrtime pair and a closure. Here each action keeps, per caller, the series it updates
 * (./series.ts), so a call updates items in place. Everything else of Moleculer's middleware (its
 * metric registrations, events, transit and transporter counts, the error counter) is kept as is:
 * the same names, labels and values reach /metrics.
 */
import * as moleculer from "moleculer";
import { METRIC, type Context, type Middleware, type ServiceBroker } from "moleculer";
import { metricOf, Series } from "./series";

interface ActionDef {
  name: string;
  service?: { fullName: string };
}

type Handler = (ctx: Context) => Promise<unknown>;

interface CallSeries {
  total: Series;
  active: Series;
  time: Series;
}

function actionHandler(
  broker: ServiceBroker,
  type: "local" | "remote",
  action: ActionDef,
  next: Handler,
  levels: Series[],
): Handler {
  const service = action.service ? action.service.fullName : null;
  const name = action.name;
  const byCaller = new Map<string | null, CallSeries>();
  const bind = (caller: string | null): CallSeries => {
    const labels = { service, action: name, caller, type };
    const of = (metric: string) => new Series(metricOf(broker, metric)!, labels);
    const s = {
      total: of(METRIC.MOLECULER_REQUEST_TOTAL),
      active: of(METRIC.MOLECULER_REQUEST_ACTIVE),
      time: of(METRIC.MOLECULER_REQUEST_TIME),
    };
    byCaller.set(caller, s);
    return s;
  };
  const levelSeries = (level: number): Series =>
    (levels[level] ??= new Series(metricOf(broker, METRIC.MOLECULER_REQUEST_LEVELS)!, { level }));

  return function metricsMiddleware(ctx: Context) {
    const caller = ctx.caller;
    const s = byCaller.get(caller) ?? bind(caller);
    s.total.add(1);
    s.active.add(1);
    levelSeries(ctx.level).add(1);
    const start = performance.now();
    const answer = next(ctx);
    // Measured beside the caller's chain, not in it: the caller gets the handler's own promise,
    // one promise and one microtask fewer per call than Moleculer's `.then().catch()`.
    answer.then(
      () => {
        s.time.observe(performance.now() - start);
        s.active.add(-1);
      },
      (err: { name?: string; code?: unknown; type?: unknown } | undefined) => {
        s.time.observe(performance.now() - start);
        s.active.add(-1);
        // Errors are rare and their labels vary: Moleculer's own path.
        broker.metrics.increment(METRIC.MOLECULER_REQUEST_ERROR_TOTAL, {
          service,
          action: name,
          caller,
          type,
          errorName: err ? err.name : null,
          errorCode: err ? err.code : null,
          errorType: err ? err.type : null,
        } as never);
      },
    );
    return answer;
  };
}

/** Replaces Moleculer's internal "Metrics" middleware (see ./internal-middlewares.ts). */
export function actionMetricsMiddleware(broker: ServiceBroker): Middleware {
  // Moleculer exports its built-in middlewares without typings.
  const builtins = (moleculer as unknown as { Middlewares: Record<string, (b: ServiceBroker) => object> })
    .Middlewares;
  const builtin = builtins.Metrics.call(broker, broker);
  // One series per context level, shared by every action (the metric's only label is the level).
  const levels: Series[] = [];
  const wrap = (type: "local" | "remote") => (next: Handler, action: ActionDef) =>
    broker.isMetricsEnabled() ? actionHandler(broker, type, action, next, levels) : next;
  return {
    ...builtin,
    name: "Metrics",
    localAction: wrap("local"),
    remoteAction: wrap("remote"),
  } as Middleware;
}
