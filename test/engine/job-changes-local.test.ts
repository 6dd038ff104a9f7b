/**
 * engine.jobChanges in one process (shared/job-changes-batch.ts, services/engine/run/events.ts): the
 * changes of a few milliseconds (CHANGES_WINDOW_MS from the first) go as one
 * `engine.jobChangesBatch` event. A listener that takes batches itself gets the batch in one call;
 * every listener of single changes gets each change once, in order; none gets a change twice. A
 * change alone in its window goes alone. A stopping engine sends what waits at once (flushChanges).
 */
import { ServiceBroker } from "moleculer";
import { brokerOptions } from "../../app/broker-options";
import { loadConfig } from "../../shared/config";
import { ENGINE_EVENTS } from "../../shared/contracts/events";
import {
  CHANGES_BATCH_MAX,
  CHANGES_WINDOW_MS,
  emitChanges,
  flushChanges,
} from "../../services/engine/run/events";
import type { RunJob } from "../../services/engine/run/types";
import { ids, job, listen, listenToBatches, until } from "../support/job-changes";

let broker: ServiceBroker;

beforeEach(() => {
  broker = new ServiceBroker({ ...brokerOptions(loadConfig({ METRICS_PORT: "off" })), logger: false });
});

afterEach(async () => {
  await broker.stop();
});

test("a turn's changes reach each listener once, in order: one call to a batch listener", async () => {
  const first = listen(broker, "first");
  const batched = listenToBatches(broker, "batched");
  const second = listen(broker, "second");
  await broker.start();
  const broadcasts = jest.spyOn(broker, "broadcast");

  for (let i = 0; i < 12; i++) emitChanges(broker, null, job(i));
  // Nothing is sent before the window ends.
  expect(broadcasts).not.toHaveBeenCalled();
  const want = Array.from({ length: 12 }, (_, i) => `job-${i}`);
  await until(() => first.length >= 12 && second.length >= 12 && batched.heard.length >= 12);
  await new Promise((r) => setTimeout(r, 50)); // any duplicate would arrive meanwhile
  expect([ids(first), ids(second), ids(batched.heard)]).toEqual([want, want, want]);
  expect(batched.calls).toEqual([12]);
  expect(broadcasts.mock.calls.map((c) => c[0])).toEqual([ENGINE_EVENTS.changesBatch]);
  expect(first[5]).toEqual({
    jobId: "job-5",
    name: "job 5",
    workflow: "wf",
    status: "running",
    groups: ["g5"],
    at: new Date(1_000_005).toISOString(),
    jobChanged: true,
    tasks: [],
  });
});

test("with only batch listeners, a window is one call each; a change alone in its window goes alone", async () => {
  const a = listenToBatches(broker, "a");
  const b = listenToBatches(broker, "b");
  await broker.start();

  for (let i = 0; i < 5; i++) emitChanges(broker, null, job(i));
  await until(() => a.heard.length >= 5 && b.heard.length >= 5);
  emitChanges(broker, null, job(5));
  await until(() => a.heard.length >= 6 && b.heard.length >= 6);
  await new Promise((r) => setTimeout(r, 50));
  const want = ["job-0", "job-1", "job-2", "job-3", "job-4", "job-5"];
  expect([ids(a.heard), ids(b.heard)]).toEqual([want, want]);
  expect([a.calls, b.calls]).toEqual([
    [5, 1],
    [5, 1],
  ]);
});

test("changes of several event-loop turns within the window leave as one batch", async () => {
  const batched = listenToBatches(broker, "batched");
  await broker.start();
  emitChanges(broker, null, job(0));
  await new Promise((r) => setImmediate(r)); // the turn ends
  emitChanges(broker, null, job(1));
  await new Promise((r) => setImmediate(r));
  emitChanges(broker, null, job(2));
  await until(() => batched.heard.length >= 3);
  await new Promise((r) => setTimeout(r, 50));
  expect(ids(batched.heard)).toEqual(["job-0", "job-1", "job-2"]);
  expect(batched.calls).toEqual([3]);
});

test("flushChanges sends the waiting changes at once, and nothing more when their window ends", async () => {
  const batched = listenToBatches(broker, "batched");
  await broker.start();
  const broadcasts = jest.spyOn(broker, "broadcast");
  emitChanges(broker, null, job(0));
  emitChanges(broker, null, job(1));
  expect(broadcasts).not.toHaveBeenCalled();
  flushChanges(broker);
  expect(broadcasts).toHaveBeenCalledTimes(1);
  flushChanges(broker); // nothing waits now
  await new Promise((r) => setTimeout(r, CHANGES_WINDOW_MS + 50));
  expect(broadcasts).toHaveBeenCalledTimes(1);
  await until(() => batched.heard.length >= 2);
  expect([ids(batched.heard), batched.calls]).toEqual([["job-0", "job-1"], [2]]);
  // A later change opens a window of its own.
  emitChanges(broker, null, job(2));
  await until(() => batched.heard.length >= 3);
  expect(batched.calls).toEqual([2, 1]);
});

test("a burst leaves as batches of at most CHANGES_BATCH_MAX, the first at once, in order", async () => {
  const batched = listenToBatches(broker, "batched");
  await broker.start();
  const broadcasts = jest.spyOn(broker, "broadcast");
  const count = 2 * CHANGES_BATCH_MAX + 3;
  for (let i = 0; i < count; i++) emitChanges(broker, null, job(i));
  expect(broadcasts).toHaveBeenCalledTimes(2); // two full batches, without waiting for the window
  await until(() => batched.heard.length >= count);
  expect(batched.calls).toEqual([CHANGES_BATCH_MAX, CHANGES_BATCH_MAX, 3]);
  expect(ids(batched.heard)).toEqual(Array.from({ length: count }, (_, i) => `job-${i}`));
});

test("a write's event names the tasks whose status or finish state changed, looking only at those it stored", async () => {
  const heard = listen(broker, "heard");
  await broker.start();
  const task = (status: string, finish_state?: string) => ({ status, ...(finish_state && { finish_state }) });
  const before = {
    ...job(1),
    tasks: { a: task("complete", "success"), b: task("running"), c: task("incomplete") },
  };
  const after = {
    ...before,
    tasks: { a: before.tasks.a, b: task("complete", "success"), c: task("running") },
  } as unknown as RunJob;
  // Without the write's list, every task is compared; with it (jobs.ts Written), only those.
  emitChanges(broker, before as unknown as RunJob, after);
  await until(() => heard.length >= 1);
  emitChanges(broker, before as unknown as RunJob, after, ["c"]);
  await until(() => heard.length >= 2);
  expect(heard.map((e) => e.tasks)).toEqual([
    [
      { taskId: "b", taskStatus: "complete", finish_state: "success" },
      { taskId: "c", taskStatus: "running" },
    ],
    [{ taskId: "c", taskStatus: "running" }],
  ]);
});
