/**
 * The engine's "settled" hint (the write that ends a job) crosses the bus to the store's node, over
 * a real NATS: the store in one broker, the engine's JobStore on a RemoteBackend in another. On the
 * store's node an ended job is held as its text at once (doc-map.ts settleOnWrite), as it is in one
 * process, instead of after its newest 1,024 writes; a running or paused job stays an object.
 */
import { randomUUID } from "node:crypto";
import type { RemoteBackend } from "../../shared/store/remote";
import type { Store } from "../../shared/store/types";
import type { EmbeddedBackend } from "../../shared/store/embedded/backend";
import { JobRepository } from "../../services/engine/jobs.repository";
import { JobStore, writableTask } from "../../services/engine/run/jobs";
import type { RunJob } from "../../services/engine/run/types";
import { newJob } from "../support/run-jobs";
import { startRemoteStore, type RemoteStore } from "../support/remote-store";

let nodes: RemoteStore;
let remote: RemoteBackend;
let calls: jest.SpyInstance;

beforeAll(async () => {
  // Two hot documents a collection on the store's node: with three jobs, one is always cold.
  nodes = await startRemoteStore("store-settled", { STORE_HOT_DOCUMENTS: "2" });
  remote = nodes.remote;
  calls = jest.spyOn(nodes.caller, "call");
}, 30_000);

afterAll(async () => {
  await nodes?.stop();
});

/**
 * The store node's own embedded store, to see which documents it holds as text: the service holds a
 * shared handle (shared/store/index.ts), whose collections are the EmbeddedBackend's own.
 */
function embedded(): EmbeddedBackend {
  const handle = (nodes.store.broker.getLocalService("store") as unknown as { store: Store }).store;
  return (handle.collection("jobs") as unknown as { store: EmbeddedBackend }).store;
}

/** The update options each store write carried on the bus since the last clear, alone or batched. */
function optionsSent(): unknown[] {
  const sent: unknown[] = [];
  for (const [action, params] of calls.mock.calls as [string, any][]) {
    if (action === "store.updateOne") sent.push(params.options);
    if (action === "store.batch")
      for (const c of params.calls) if (c.method === "updateOne") sent.push(c.params.options);
  }
  return sent;
}

test("the write that ends a job leaves it cold on the store's node at once; running and paused jobs stay objects", async () => {
  const name = "jobs";
  const jobs = new JobStore(new JobRepository(remote));
  const docs = () => embedded().table(name).docs;
  const cold = (...ids: string[]) => ids.map((id) => docs().isCold(id));
  for (const id of ["e1", "e2", "e3"]) await jobs.insert(newJob(id));
  calls.mockClear();
  await jobs.update("e1", (draft) => {
    writableTask(draft, "b")!.status = "complete";
  });
  await jobs.update("e2", (draft) => {
    draft.status = "paused";
  });
  // The two newest writes hot, the third job pushed out by them; no write said settled.
  expect(cold("e1", "e2", "e3")).toEqual([false, false, true]);
  expect(optionsSent()).toEqual([undefined, undefined]);

  calls.mockClear();
  const ended = await jobs.update("e3", (draft) => {
    draft.status = "complete";
  });
  // Parsed for its last write and held as text again: it pushed neither hot job out.
  expect(cold("e1", "e2", "e3")).toEqual([false, false, true]);
  expect(optionsSent()).toEqual([{ settled: true }]);
  const storedE3 = await remote.collection(name).findOne({ _id: "e3" });
  expect(JSON.stringify(storedE3)).toBe(JSON.stringify(ended!.job));

  // A hot job that ends goes cold at once; the paused one stays an object.
  calls.mockClear();
  await jobs.update("e1", (draft) => {
    draft.status = "error";
  });
  expect(cold("e1", "e2")).toEqual([true, false]);
  expect(optionsSent()).toEqual([{ settled: true }]);
  expect(((await remote.collection(name).findOne({ _id: "e1" })) as RunJob).status).toBe("error");
});

test("a settled compare-and-set that lost changes nothing, and an unhinted one keeps its document an object", async () => {
  const coll = remote.collection(`c${randomUUID().slice(0, 8)}`);
  const docs = () => embedded().table(coll.name).docs;
  for (const id of ["d1", "d2", "d3"]) await coll.insertOne({ _id: id, version: 1, n: 0 });
  expect(docs().isCold("d1")).toBe(true);

  // A stale version: no match, the document as it was.
  expect(await coll.updateVersioned!("d1", 7, { n: 1 }, undefined, { settled: true })).toBe(false);
  expect(await coll.findOne({ _id: "d1" })).toEqual({ _id: "d1", version: 1, n: 0 });

  // Matched and settled: written, and cold. Matched without the hint: written, and hot.
  expect(await coll.updateVersioned!("d2", 1, { n: 2 }, undefined, { settled: true })).toBe(true);
  expect(docs().isCold("d2")).toBe(true);
  expect(await coll.updateVersioned!("d1", 1, { n: 1 }, { gone: "" })).toBe(true);
  expect(docs().isCold("d1")).toBe(false);
  expect(await coll.find({}, { sort: { _id: 1 } })).toEqual([
    { _id: "d1", version: 2, n: 1 },
    { _id: "d2", version: 2, n: 2 },
    { _id: "d3", version: 1, n: 0 },
  ]);
});
