/**
 * Store operation latency for the metrics (platform.store.operation.time, by operation, collection
 * and outcome). A thin proxy over the store a broker's services share (shared/runtime.ts): each
 * collection method is timed around its promise; nothing else changes. Only when metrics are on.
 */
import type { ServiceBroker } from "moleculer";
import type { Collection, Store } from "../store/types";
import { PLATFORM_METRICS } from "./metrics";
import { metricOf, seriesOf, type Series } from "./series";

const TIMED = new Set([
  "find",
  "findOne",
  "count",
  "insertOne",
  "insertMany",
  "updateOne",
  "updateMany",
  "findOneAndUpdate",
  "findOneAndDelete",
  "deleteOne",
  "deleteMany",
  "aggregate",
]);

function timedCollection<T extends Collection>(collection: T, broker: ServiceBroker): T {
  // Per operation, its two series (ok, error), bound on first use (./series.ts).
  const bound = new Map<string, { ok: Series; error: Series } | undefined>();
  const seriesFor = (operation: string) => {
    let s = bound.get(operation);
    if (!s) {
      const metric = metricOf(broker, PLATFORM_METRICS.storeTime.name);
      if (!metric) return undefined;
      const labels = (outcome: string) => ({ operation, collection: collection.name, outcome });
      bound.set(
        operation,
        (s = { ok: seriesOf(metric, labels("ok")), error: seriesOf(metric, labels("error")) }),
      );
    }
    return s;
  };
  // One timed function per operation, made on first use: the trap answers it without allocating.
  const timed = new Map<string, { of: unknown; timed: unknown }>();
  const timedOf = (operation: string, fn: (...args: unknown[]) => Promise<unknown>) =>
    function timedOperation(this: unknown) {
      const started = performance.now();
      // eslint-disable-next-line prefer-rest-params -- no array per call on this hot path
      const answer = fn.apply(collection, arguments as unknown as unknown[]);
      // Observed beside the caller's chain, not in it: the caller awaits the store's own promise.
      answer.then(
        () => seriesFor(operation)?.ok.observe(performance.now() - started),
        () => seriesFor(operation)?.error.observe(performance.now() - started),
      );
      return answer;
    };
  return new Proxy(collection, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof prop !== "string" || !TIMED.has(prop) || typeof value !== "function") return value;
      let t = timed.get(prop);
      if (t?.of !== value)
        timed.set(
          prop,
          (t = { of: value, timed: timedOf(prop, value as (...args: unknown[]) => Promise<unknown>) }),
        );
      return t.timed;
    },
  });
}

export function timedStore(store: Store, broker: ServiceBroker): Store {
  if (!broker.isMetricsEnabled()) return store;
  const collections = new Map<string, Collection>();
  const collectionOf = (name: string) => {
    let c = collections.get(name);
    if (!c) collections.set(name, (c = timedCollection(store.collection(name), broker)));
    return c;
  };
  return new Proxy(store, {
    get(target, prop, receiver) {
      return prop === "collection" ? collectionOf : Reflect.get(target, prop, receiver);
    },
  });
}
