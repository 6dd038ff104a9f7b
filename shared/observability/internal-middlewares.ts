/**
 * Moleculer's internal middlewares, in Moleculer's order, with three of them replaced by versions
 * that cost a request less (docs/operations-guide.md#cost): "Tracing" by one that skips unsampled
 * requests (shared/telemetry.ts), "Metrics" by one that updates pre-bound series and tracks the
 * action calls in the same reaction, and "ContextTracker" by Moleculer's without its action hooks
 * (./action-metrics.ts). The broker is built with `internalMiddlewares: false` and this list after
 * the platform's own middlewares, which is where Moleculer puts its internal ones.
 * test/observability/action-metrics.test.ts checks the list against Moleculer's.
 */
import type { Middleware, ServiceBroker } from "moleculer";
import { sampledTracingMiddleware } from "../telemetry";
import { actionMetricsMiddleware, trackerWithoutActions } from "./action-metrics";

/** Moleculer 0.15's INTERNAL_MIDDLEWARES (moleculer/src/service-broker.js), hot reload aside. */
export const MOLECULER_INTERNAL_MIDDLEWARES = [
  "ActionHook",
  "Validator",
  "Bulkhead",
  "Cacher",
  "ContextTracker",
  "CircuitBreaker",
  "Timeout",
  "Retry",
  "Fallback",
  "ErrorHandler",
  "Tracing",
  "Metrics",
  "Debounce",
  "Throttle",
] as const;

const REPLACED: Partial<Record<string, (broker: ServiceBroker) => Middleware>> = {
  ContextTracker: trackerWithoutActions,
  Tracing: sampledTracingMiddleware,
  Metrics: actionMetricsMiddleware,
};

/** The platform's middlewares followed by Moleculer's internal ones (for `internalMiddlewares: false`). */
export function withInternalMiddlewares(own: Middleware[]): (Middleware | string)[] {
  return [
    ...own,
    ...MOLECULER_INTERNAL_MIDDLEWARES.map(
      (name) => (REPLACED[name] as unknown as Middleware | undefined) ?? name,
    ),
  ];
}
