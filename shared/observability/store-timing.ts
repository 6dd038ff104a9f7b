/**
 * Store operation latency for the metrics (platform.store.operation.time, by operation, collection
 * and outcome). A thin proxy over the store a broker's services share (shared/runtime.ts): each
 * collection method is timed around its promise; nothing else changes. Only when metrics are on.
 */
import type { ServiceBroker } from "moleculer";
import type { Collection, Store } from "../store/types";
import { observe } from "./metrics";

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
  return new Proxy(collection, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof prop !== "string" || !TIMED.has(prop) || typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const started = performance.now();
        const labels = (outcome: string) => ({ operation: prop, collection: target.name, outcome });
        return (value.apply(target, args) as Promise<unknown>).then(
          (result) => {
            observe(broker, "storeTime", performance.now() - started, labels("ok"));
            return result;
          },
          (err: unknown) => {
            observe(broker, "storeTime", performance.now() - started, labels("error"));
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
