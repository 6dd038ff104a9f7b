/**
 * engine.jobChanges over a real NATS, several to a message (shared/job-changes-batch.ts): the changes
 * an engine replica makes in one turn reach every listener of every node exactly once, in order,
 * whether they travel as one batch (every listening node takes batches) or one by one (a node of
 * an older release, without the batch listener, is on the bus).
 */
import { randomUUID } from "node:crypto";
import { ServiceBroker } from "moleculer";
import { brokerOptions } from "../../app/broker-options";
import { loadConfig } from "../../shared/config";
import { ENGINE_EVENTS } from "../../shared/contracts/events";
import { emitChanges } from "../../services/engine/run/events";
import { ids, job, listen, listenToBatches, until } from "../support/job-changes";

const NATS_URL = process.env.NATS_URL!;
const brokers: ServiceBroker[] = [];

afterEach(async () => {
  await Promise.all(brokers.splice(0).map((b) => b.stop()));
});

function platformBroker(namespace: string, name: string): ServiceBroker {
  const broker = new ServiceBroker({
    ...brokerOptions(loadConfig({ TRANSPORTER: NATS_URL, NAMESPACE: namespace, METRICS_PORT: "off" })),
    nodeID: `${namespace}-${name}`,
    logger: false,
  });
  brokers.push(broker);
  return broker;
}

/** A node of a release before batches: the same bus, none of the platform's middlewares. */
function olderBroker(namespace: string, name: string): ServiceBroker {
  const broker = new ServiceBroker({
    namespace,
    nodeID: `${namespace}-${name}`,
    transporter: { type: "NATS", options: { url: NATS_URL } },
    logger: false,
  });
  brokers.push(broker);
  return broker;
}

test("the changes of one turn reach every listener once, in order, as one message per node", async () => {
  const ns = `jcb-${randomUUID().slice(0, 8)}`;
  const engine = platformBroker(ns, "engine");
  const gateway = platformBroker(ns, "gateway");
  const first = listen(gateway, "first");
  const second = listen(gateway, "second");
  const other = platformBroker(ns, "other");
  const third = listen(other, "third");
  await Promise.all(brokers.map((b) => b.start()));
  await engine.waitForServices(["first", "second", "third"], 10_000);
  const broadcasts = jest.spyOn(engine, "broadcast");

  for (let i = 0; i < 12; i++) emitChanges(engine, null, job(i));
  const want = Array.from({ length: 12 }, (_, i) => `job-${i}`);
  await until(() => first.length >= 12 && second.length >= 12 && third.length >= 12);
  await new Promise((r) => setTimeout(r, 200)); // any duplicate would arrive meanwhile
  expect([ids(first), ids(second), ids(third)]).toEqual([want, want, want]);
  expect(first[3]).toEqual({
    jobId: "job-3",
    name: "job 3",
    workflow: "wf",
    status: "running",
    groups: ["g3"],
    at: new Date(1_000_003).toISOString(),
    jobChanged: true,
    tasks: [],
  });
  expect(broadcasts.mock.calls.map((c) => c[0])).toEqual([ENGINE_EVENTS.changesBatch]);
});

test("with a node of an older release listening, each change goes alone, and still once", async () => {
  const ns = `jcb-${randomUUID().slice(0, 8)}`;
  const engine = platformBroker(ns, "engine");
  const gateway = platformBroker(ns, "gateway");
  const current = listen(gateway, "current");
  const older = olderBroker(ns, "older");
  const old = listen(older, "old");
  await Promise.all(brokers.map((b) => b.start()));
  await engine.waitForServices(["current", "old"], 10_000);
  const broadcasts = jest.spyOn(engine, "broadcast");

  for (let i = 0; i < 5; i++) emitChanges(engine, null, job(i));
  const want = ["job-0", "job-1", "job-2", "job-3", "job-4"];
  await until(() => current.length >= 5 && old.length >= 5);
  await new Promise((r) => setTimeout(r, 200));
  expect([ids(current), ids(old)]).toEqual([want, want]);
  expect(broadcasts.mock.calls.map((c) => c[0])).toEqual(Array(5).fill(ENGINE_EVENTS.changes));
});

test("a listener that takes batches itself gets each change once, beside listeners of single changes", async () => {
  const ns = `jcb-${randomUUID().slice(0, 8)}`;
  const engine = platformBroker(ns, "engine");
  const gateway = platformBroker(ns, "gateway");
  const single = listen(gateway, "single");
  const batched = listenToBatches(gateway, "batched");
  const other = platformBroker(ns, "other");
  const alone = listenToBatches(other, "alone");
  await Promise.all(brokers.map((b) => b.start()));
  await engine.waitForServices(["single", "batched", "alone"], 10_000);

  for (let i = 0; i < 12; i++) emitChanges(engine, null, job(i));
  const want = Array.from({ length: 12 }, (_, i) => `job-${i}`);
  await until(() => single.length >= 12 && batched.heard.length >= 12 && alone.heard.length >= 12);
  await new Promise((r) => setTimeout(r, 200)); // any duplicate would arrive meanwhile
  expect([ids(single), ids(batched.heard), ids(alone.heard)]).toEqual([want, want, want]);
  // The batch listeners took the turn in one call each; the single listener's node handed it on.
  expect([batched.calls, alone.calls]).toEqual([[12], [12]]);
});
