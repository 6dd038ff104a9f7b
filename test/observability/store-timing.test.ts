/**
 * The store's operation timing (shared/observability/store-timing.ts): a timed collection answers
 * exactly what the backend answers (its answer, its rejection), runs the backend's
 * methods on the backend, and counts each operation once under its operation, collection and outcome.
 */
import { ServiceBroker } from "moleculer";
import { metricsOptions, registerPlatformMetrics } from "../../shared/observability/metrics";
import { timedStore } from "../../shared/observability/store-timing";
import type { Collection, Store } from "../../shared/store/types";

class FakeCollection {
  readonly name = "things";
  readonly seenThis: unknown[] = [];
  readonly indexes: unknown[] = [];
  find(filter: unknown) {
    this.seenThis.push(this);
    return Promise.resolve([{ _id: "a", filter }]);
  }
  count() {
    this.seenThis.push(this);
    return Promise.reject(new Error("count failed"));
  }
  async createIndex(spec: unknown) {
    this.indexes.push(spec);
  }
  async dropIndex(name: string) {
    this.indexes.push(`drop ${name}`);
  }
}

function fakeStore(collection: FakeCollection): Store {
  return {
    collection: () => collection as unknown as Collection,
    ping: async () => {},
    close: async () => {},
  } as unknown as Store;
}

let broker: ServiceBroker;
beforeEach(async () => {
  broker = new ServiceBroker({ logger: false, metrics: metricsOptions(0) });
  registerPlatformMetrics(broker);
  await broker.start();
});
afterEach(() => broker.stop());

function observations(operation: string, outcome: string): number | undefined {
  // Read as a scrape reads it (Moleculer's list: a series' waiting observations folded in).
  const [metric] = broker.metrics.list({ includes: "platform.store.operation.time" }) as any[];
  for (const item of metric.values)
    if (item.labels.operation === operation && item.labels.outcome === outcome) {
      expect(item.labels.collection).toBe("things");
      return item.count;
    }
  return undefined;
}

test("a timed collection answers what the backend answers and counts each outcome once", async () => {
  const backend = new FakeCollection();
  const things = timedStore(fakeStore(backend), broker).collection("things");
  expect(things.name).toBe("things");
  const answer = things.find({ x: 1 });
  await expect(answer).resolves.toEqual([{ _id: "a", filter: { x: 1 } }]);
  await things.find({});
  await expect(things.count({})).rejects.toThrow("count failed");
  await new Promise((resolve) => setImmediate(resolve));
  expect(observations("find", "ok")).toBe(2);
  expect(observations("find", "error")).toBeUndefined();
  expect(observations("count", "error")).toBe(1);
  expect(observations("count", "ok")).toBeUndefined();
  // The backend's methods run on the backend, never on the wrapper.
  expect(backend.seenThis).toEqual([backend, backend, backend]);
  await things.createIndex({ name: "byX", keys: { x: 1 } } as never);
  await things.dropIndex("byX");
  expect(backend.indexes).toEqual([{ name: "byX", keys: { x: 1 } }, "drop byX"]);
  // One wrapper per collection name.
  const store = timedStore(fakeStore(backend), broker);
  expect(store.collection("things")).toBe(store.collection("things"));
});

test("a backend method replaced after wrapping is the one called", async () => {
  const backend = new FakeCollection();
  const things = timedStore(fakeStore(backend), broker).collection("things");
  backend.find = () => Promise.resolve([{ _id: "replaced", filter: null }]);
  await expect(things.find({})).resolves.toEqual([{ _id: "replaced", filter: null }]);
});

test("a backend's compare-and-set (updateVersioned) passes through timed, hints included", async () => {
  const seen: unknown[][] = [];
  const backend = Object.assign(new FakeCollection(), {
    updateVersioned(this: FakeCollection, ...args: unknown[]) {
      this.seenThis.push(this);
      seen.push(args);
      return Promise.resolve(true);
    },
  });
  const things = timedStore(fakeStore(backend), broker).collection("things");
  const hints = { settled: true, before: { _id: "j", version: 3 } };
  await expect(things.updateVersioned!("j", 3, { a: 1 }, { b: "" }, hints)).resolves.toBe(true);
  await new Promise((resolve) => setImmediate(resolve));
  expect(seen).toEqual([["j", 3, { a: 1 }, { b: "" }, hints]]);
  expect(seen[0][4]).toBe(hints);
  expect(backend.seenThis).toEqual([backend]);
  expect(observations("updateVersioned", "ok")).toBe(1);
  // A backend without it (MongoDB's): the wrapper has none either, so callers send updateOne.
  const plain = timedStore(fakeStore(new FakeCollection()), broker).collection("things");
  expect(plain.updateVersioned).toBeUndefined();
});

test("without metrics the store is the backend's, untouched", async () => {
  const off = new ServiceBroker({ logger: false, metrics: metricsOptions(null) });
  const store = fakeStore(new FakeCollection());
  expect(timedStore(store, off)).toBe(store);
});
