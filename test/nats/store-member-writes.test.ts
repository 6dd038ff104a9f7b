/**
 * Over a real NATS, the engine's compare-and-set sends a task's changed members, not the whole
 * task (shared/store/member-writes.ts): the store in one broker, the engine's JobStore on a
 * RemoteBackend in another. The job the store's node holds is the engine's, member order included,
 * after every write; with the performance machinery off the tasks go whole. With metrics on (the
 * default), through the store a service holds (shared/runtime.ts: timed and noting wrappers), too.
 */
import type { ServiceBroker } from "moleculer";
import { createBroker } from "../../app/broker";
import { loadConfig } from "../../shared/config";
import { acquireStore } from "../../shared/runtime";
import type { RemoteBackend } from "../../shared/store/remote";
import { JobRepository } from "../../services/engine/jobs.repository";
import { JobStore, writableTask } from "../../services/engine/run/jobs";
import type { RunJob } from "../../services/engine/run/types";
import { newJob } from "../support/run-jobs";
import { startRemoteStore, type RemoteStore } from "../support/remote-store";

let nodes: RemoteStore;
let remote: RemoteBackend;
let calls: jest.SpyInstance;

beforeAll(async () => {
  nodes = await startRemoteStore("store-member-writes");
  remote = nodes.remote;
  calls = jest.spyOn(nodes.caller, "call");
}, 30_000);

afterAll(async () => {
  await nodes?.stop();
});

/**
 * The `$set` and `$unset` paths of each store update sent since the last clear, alone or batched,
 * by the broker whose `call` is `spied` (the caller's by default).
 */
function pathsSent(spied: jest.SpyInstance = calls): { set: string[]; unset: string[] }[] {
  const sent: { set: string[]; unset: string[] }[] = [];
  const note = (params: any) =>
    sent.push({ set: Object.keys(params.update.$set ?? {}), unset: Object.keys(params.update.$unset ?? {}) });
  for (const [action, params] of spied.mock.calls as [string, any][]) {
    if (action === "store.updateOne") note(params);
    if (action === "store.batch") for (const c of params.calls) if (c.method === "updateOne") note(c.params);
  }
  return sent;
}

async function storedText(id: string): Promise<string> {
  return JSON.stringify(await remote.collection("jobs").findOne({ _id: id }));
}

test("a task's start and finish cross the bus as its changed members; the stored job is the engine's", async () => {
  const jobs = new JobStore(new JobRepository(remote));
  await jobs.insert(newJob("m1"));
  calls.mockClear();

  // Task b finishes (its claim dropped), task c starts: two tasks of one write, and the progress.
  let written = await jobs.update("m1", (draft) => {
    const b = writableTask(draft, "b")!;
    b.status = "complete";
    b.finish_state = "success";
    delete b.claim;
    const c = writableTask(draft, "c")!;
    c.status = "running";
    c.start_time = "2026-12-01T08:00:00.000Z";
    c.claim = { owner: "y", until: 2, run: "s" };
    draft.metrics = { ...draft.metrics, progress: 50 };
  });
  const [first] = pathsSent();
  // The metrics had one member, now changed: no fewer bytes member by member, so whole.
  expect(first.set.filter((p) => p !== "last_updated").sort()).toEqual([
    "metrics",
    "tasks.b.finish_state",
    "tasks.b.status",
    "tasks.c.claim",
    "tasks.c.start_time",
    "tasks.c.status",
  ]);
  expect(first.unset).toEqual(["tasks.b.claim"]);
  expect(await storedText("m1")).toBe(JSON.stringify(written!.job));

  // A write from the remembered copy again, then one from a fresh read: the same each time.
  written = await jobs.update("m1", (draft) => {
    writableTask(draft, "c")!.status = "complete";
  });
  expect(await storedText("m1")).toBe(JSON.stringify(written!.job));
  written = await jobs.update(
    "m1",
    (draft) => {
      draft.status = "complete";
      const a = writableTask(draft, "a")!;
      a.variables = { ...a.variables, outgoing: { done: true } };
    },
    { fresh: true },
  );
  expect(pathsSent().at(-1)!.set).toContain("tasks.a.variables");
  expect(await storedText("m1")).toBe(JSON.stringify(written!.job));
});

test("with the performance machinery off, tasks cross the bus whole and store the same job", async () => {
  const jobs = new JobStore(new JobRepository(remote), { machinery: false });
  await jobs.insert(newJob("m2"));
  calls.mockClear();
  const written = await jobs.update("m2", (draft) => {
    const b = draft.tasks.b as RunJob["tasks"][string] & { status: string };
    b.status = "complete";
  });
  expect(pathsSent()[0].set.filter((p) => p !== "last_updated")).toEqual(["tasks.b"]);
  expect(await storedText("m2")).toBe(JSON.stringify(written!.job));
});

test("with metrics on, the store a service holds sends the members too", async () => {
  // A caller built as a platform process is (app/broker.ts), with metrics on as by default.
  const config = loadConfig({
    TRANSPORTER: process.env.NATS_URL!,
    NAMESPACE: nodes.caller.namespace,
    SERVICES: "engine",
    METRICS_PORT: "0",
    NODE_ID: `${nodes.caller.nodeID}-metrics`,
    LOG_LEVEL: "warn",
  });
  const broker: ServiceBroker = createBroker(config);
  await broker.start();
  const store = await acquireStore(broker);
  try {
    expect(broker.isMetricsEnabled()).toBe(true);
    await broker.waitForServices(["store"], 10_000);
    const sent = jest.spyOn(broker, "call");
    const jobs = new JobStore(new JobRepository(store));
    await jobs.insert(newJob("m3"));
    sent.mockClear();
    const written = await jobs.update("m3", (draft) => {
      const b = writableTask(draft, "b")!;
      b.status = "complete";
      b.finish_state = "success";
    });
    const [update] = pathsSent(sent);
    expect(update.set.filter((p) => p !== "last_updated").sort()).toEqual([
      "tasks.b.finish_state",
      "tasks.b.status",
    ]);
    expect(await storedText("m3")).toBe(JSON.stringify(written!.job));
  } finally {
    await store.close();
    await broker.stop();
  }
});
