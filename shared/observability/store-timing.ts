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
  return new Proxy(collection, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof prop !== "string" || !TIMED.has(prop) || typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const started = performance.now();
        return (value.apply(target, args) as Promise<unknown>).then(
          (result) => {
            seriesFor(prop)?.ok.observe(performance.now() - started);
            return result;
          },
          (err: unknown) => {
            seriesFor(prop)?.error.observe(performance.now() - started);
            throw err;
          },
        );
      };
    },
  });
}

export function timedStore(store: Store, broker: ServiceBroker): Store {
  if (!broker.isMetricsEnabled()) return store;
  const collections = new Map<string, Collection>();
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop !== "collection") return Reflect.get(target, prop, receiver);
      return (name: string) => {
        let c = collections.get(name);
        if (!c) collections.set(name, (c = timedCollection(target.collection(name), broker)));
        return c;
      };
    },
  });
}
