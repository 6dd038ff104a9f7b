/**
 * The store node keeps the values of a call from another node as they came out of its message
 * (shared/frozen-json.ts withMessageValues, services/store/store.service.ts runMethod): no copy
 * of an inserted document or of a `$set` value. What must hold: what is stored is what was sent,
 * in memory and after a replay of the log; and a caller in the store's own process, whose values
 * are its own objects, still has them copied: changing them afterwards changes nothing stored.
 */
import { randomUUID } from "node:crypto";
import { openEmbeddedStore } from "../../shared/store";
import type { Collection, Doc } from "../../shared/store/types";
import { startRemoteStore, type RemoteStore } from "../support/remote-store";

let nodes: RemoteStore;

beforeAll(async () => {
  nodes = await startRemoteStore("store-message-values");
}, 30_000);

afterAll(async () => {
  await nodes?.stop();
});

const fresh = (prefix: string) => `${prefix}${randomUUID().slice(0, 8)}`;

/** A value with nesting, arrays, nulls, unicode and numbers that JSON keeps exactly. */
const task = (status: string) => ({
  name: "noop",
  status,
  previous: { incomplete: [], complete: ["t0"], error: [] },
  claim: null,
  iterations: ["f6b1f67e-caea-4c62-a1cf-fd40d3bc205b"],
  note: "naïve ☃ \u2028",
  numbers: [0, 1.5, -2, 1e21, 123456789012345],
});

/** The store node's own view of a collection (its embedded store, local calls). */
const onStoreNode = (name: string) => ({
  findOne: (_id: string) =>
    nodes.store.broker.call<Doc | null, unknown>("store.findOne", { collection: name, filter: { _id } }),
});

test("writes from another node are stored as sent: inserts, versioned and generic updates", async () => {
  const name = fresh("m");
  const coll: Collection = nodes.remote.collection(name);
  const job = { _id: "j1", version: 1, tasks: { t1: task("incomplete"), t2: task("incomplete") }, n: 0 };
  await coll.insertOne(job);
  // The versioned compare-and-set's shape (the engine's transitions) and a generic update.
  const versioned = await coll.updateOne(
    { _id: "j1", version: 1 },
    { $set: { "tasks.t1": task("complete"), "tasks.t2": task("running") }, $inc: { version: 1 } },
  );
  const generic = await coll.updateOne({ _id: "j1" }, { $set: { result: { answer: [task("done")] } } });
  expect([versioned.matchedCount, generic.matchedCount]).toEqual([1, 1]);
  const expected = {
    ...job,
    version: 2,
    tasks: { t1: task("complete"), t2: task("running") },
    result: { answer: [task("done")] },
  };
  expect(await coll.findOne({ _id: "j1" })).toEqual(expected);
  expect(await onStoreNode(name).findOne("j1")).toEqual(expected);
  // The log says the same: a store opened on the node's files after it stops replays it.
  const dataDir = nodes.store.dataDir;
  await nodes.stop();
  const reopened = await openEmbeddedStore(dataDir);
  try {
    expect(await reopened.collection(name).findOne({ _id: "j1" })).toEqual(expected);
  } finally {
    await reopened.close();
    nodes = await startRemoteStore("store-message-values");
  }
});

test("a caller in the store's own process keeps its objects: changing them after changes nothing stored", async () => {
  const name = fresh("l");
  const call = (method: string, params: Record<string, unknown>) =>
    nodes.store.broker.call(`store.${method}`, { collection: name, ...params });
  const doc = { _id: "d1", version: 1, tasks: { t1: task("incomplete") } };
  await call("insertOne", { doc });
  const value = task("complete");
  await call("updateOne", {
    filter: { _id: "d1", version: 1 },
    update: { $set: { "tasks.t1": value }, $inc: { version: 1 } },
  });
  const answer = { rows: [1, 2, 3] };
  await call("updateOne", { filter: { _id: "d1" }, update: { $set: { answer } } });
  // The caller goes on using its objects.
  doc.tasks.t1.status = "changed by the caller";
  value.previous.complete.push("changed by the caller");
  answer.rows.push(4);
  expect(await onStoreNode(name).findOne("d1")).toEqual({
    _id: "d1",
    version: 2,
    tasks: { t1: task("complete") },
    answer: { rows: [1, 2, 3] },
  });
});
