/**
 * Store operation latency for the metrics (platform.store.operation.time, by operation, collection
 * and outcome). A thin layer over the store a broker's services share (shared/runtime.ts): each
 * collection operation is timed around its promise; nothing else changes. Only when metrics are on.
 */
import { performance } from "node:perf_hooks";
import type { ServiceBroker } from "moleculer";
import type { Collection, Store } from "../store/types";
import { PLATFORM_METRICS } from "./metrics";
import { metricOf, seriesOf, type Series } from "./series";

/**
 * The operations timed: every Collection method but the index ones. `updateVersioned` is optional
 * (types.ts): timed where the backend has it, left out where it has not, so the caller sends its
 * updateOne as before. Leaving it out everywhere sent the engine's compare-and-sets as plain
 * updateOnes whenever metrics were on (the default): without `before`, so over NATS each task went
 * whole instead of as its changed members (thirty-seventh round, docs/performance-rounds.md).
 */
const TIMED = [
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
  "updateVersioned",
] as const satisfies readonly (keyof Collection)[];

type Operation = (...args: unknown[]) => Promise<unknown>;

/**
 * A collection whose operations are timed. Each timed method of the wrapper is its own function,
 * made once with its two series (ok, error) bound; the index methods and `name` pass through.
 * (A Proxy did the same at 60-100 ns more per operation: a trap on every method read, a map
 * lookup per answer.) Methods run with the backend's collection as `this`, as before.
 */
function timedCollection<T extends Collection>(collection: T, broker: ServiceBroker): T {
  const metric = metricOf(broker, PLATFORM_METRICS.storeTime.name);
  if (!metric) return collection;
  const timed: Record<string, unknown> = {
    name: collection.name,
    createIndex: (spec: Parameters<Collection["createIndex"]>[0]) => collection.createIndex(spec),
    dropIndex: (name: string) => collection.dropIndex(name),
  };
  for (const operation of TIMED) {
    if (typeof collection[operation] !== "function") continue; // an optional one the backend lacks
    const labels = (outcome: string) => ({ operation, collection: collection.name, outcome });
    const ok: Series = seriesOf(metric, labels("ok"));
    const error: Series = seriesOf(metric, labels("error"));
    timed[operation] = function timedOperation() {
      const started = performance.now();
      // The backend's method read at each call (a test may have replaced it since).
      const answer = (collection[operation] as unknown as Operation).apply(
        collection,
        // eslint-disable-next-line prefer-rest-params -- no array per call on this hot path
        arguments as unknown as unknown[],
      );
      // Observed beside the caller's chain, not in it: the caller awaits the store's own promise.
      answer.then(
        () => ok.observe(performance.now() - started),
        () => error.observe(performance.now() - started),
      );
      return answer;
    };
  }
  return timed as unknown as T;
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
