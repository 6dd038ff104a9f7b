/**
 * The remote store's calls of one turn travel as one `store.batch` request (shared/store/remote-batch.ts),
 * over a real NATS: the store in one broker, a RemoteBackend on another. Each call must get its own
 * answer (not its neighbour's), its own error (a duplicate key stays the call's, a refused call
 * fails alone), and every write a batch acknowledges must be stored.
 */
import { randomUUID } from "node:crypto";
import { ServiceBroker } from "moleculer";
import { brokerOptions } from "../../app/broker-options";
import { loadConfig } from "../../shared/config";
import { RemoteBackend } from "../../shared/store/remote";
import { MAX_BATCH, type BatchOutcome } from "../../shared/store/remote-batch";
import { DuplicateKeyError, type Collection, type Doc } from "../../shared/store/types";
import { parseFrozen } from "../../shared/frozen-json";
import { bindConfig } from "../../shared/runtime";
import storeService from "../../services/store/store.service";
import { tempDir } from "../support/platform";
import { startRemoteStore, type RemoteStore } from "../support/remote-store";

const NATS_URL = process.env.NATS_URL!;
let nodes: RemoteStore;
let caller: ServiceBroker;
let remote: RemoteBackend;
let calls: jest.SpyInstance;

beforeAll(async () => {
  nodes = await startRemoteStore("store-batch");
  ({ caller, remote } = nodes);
  calls = jest.spyOn(caller, "call");
}, 30_000);

afterAll(async () => {
  await nodes?.stop();
});

beforeEach(() => calls.mockClear());

/** The actions RemoteBackend called on the bus since the last clear. */
const actionsCalled = () => calls.mock.calls.map((c) => c[0] as string);

async function seeded(): Promise<Collection> {
  const coll = remote.collection(`c${randomUUID().slice(0, 8)}`);
  // Indexed as a service would declare them (the run's index-plan check).
  await coll.createIndex({ keys: { group: 1 } });
  await coll.createIndex({ keys: { n: 1 } });
  for (let i = 0; i < 10; i++) await coll.insertOne({ _id: `d${i}`, group: i % 4, n: i });
  calls.mockClear();
  return coll;
}

test("calls of one turn go as one request, each answered with its own result", async () => {
  const coll = await seeded();
  // Groups 0..3 hold 3, 3, 2 and 2 documents: a shuffled answer gives some call a wrong count.
  const [u0, u1, u2, u3, c0, c1, c2, c3, missing, one] = await Promise.all([
    ...[0, 1, 2, 3].map((g) => coll.updateMany({ group: g }, { $inc: { n: 100 * (g + 1) } })),
    ...[0, 1, 2, 3].map((g) => coll.count({ group: g })),
    coll.deleteOne({ _id: "nowhere" }),
    coll.updateOne({ _id: "d1" }, { $set: { x: 1 } }),
  ]);
  expect([u0, u1, u2, u3]).toEqual([
    { matchedCount: 3, modifiedCount: 3 },
    { matchedCount: 3, modifiedCount: 3 },
    { matchedCount: 2, modifiedCount: 2 },
    { matchedCount: 2, modifiedCount: 2 },
  ]);
  expect([c0, c1, c2, c3]).toEqual([3, 3, 2, 2]);
  expect(missing).toBe(0);
  expect(one).toEqual({ matchedCount: 1, modifiedCount: 1 });
  expect(actionsCalled()).toEqual(["store.batch"]);
  // Every acknowledged write is stored, each on its own documents.
  const docs = await coll.find({}, { sort: { _id: 1 } });
  expect(docs.map((d) => [d._id, d.n, d.x])).toEqual([
    ["d0", 100, undefined],
    ["d1", 201, 1],
    ["d2", 302, undefined],
    ["d3", 403, undefined],
    ["d4", 104, undefined],
    ["d5", 205, undefined],
    ["d6", 306, undefined],
    ["d7", 407, undefined],
    ["d8", 108, undefined],
    ["d9", 209, undefined],
  ]);
});

test("a duplicate key fails its own call only, as a DuplicateKeyError naming the key", async () => {
  const coll = remote.collection(`c${randomUUID().slice(0, 8)}`);
  await coll.createIndex({ keys: { email: 1 }, unique: true });
  await coll.insertOne({ _id: "d0", email: "a@example.com" });
  await coll.insertOne({ _id: "d1", email: "b@example.com" });
  await coll.insertOne({ _id: "d2", email: "c@example.com", n: 0 });
  calls.mockClear();
  const outcomes = await Promise.allSettled([
    coll.updateOne({ _id: "d2" }, { $set: { n: 42 } }),
    coll.updateOne({ _id: "d1" }, { $set: { email: "a@example.com" } }),
    coll.count({}),
  ]);
  expect(actionsCalled()).toEqual(["store.batch"]);
  expect(outcomes[0]).toEqual({ status: "fulfilled", value: { matchedCount: 1, modifiedCount: 1 } });
  expect(outcomes[1].status).toBe("rejected");
  const err = (outcomes[1] as PromiseRejectedResult).reason;
  expect(err).toBeInstanceOf(DuplicateKeyError);
  expect(err).toMatchObject({ collection: coll.name, key: { email: "a@example.com" } });
  expect(outcomes[2]).toEqual({ status: "fulfilled", value: 3 });
  // The refused write was not stored; its neighbour was.
  expect(await coll.findOne({ _id: "d1" })).toMatchObject({ email: "b@example.com" });
  expect(await coll.findOne({ _id: "d2" })).toMatchObject({ n: 42 });
});

test("a call the store refuses fails alone, with the error it gets alone", async () => {
  const coll = await seeded();
  // The same refused call, alone: the error it must keep inside a batch.
  const alone = await coll.updateOne({ _id: "d3" }, { $bogus: { n: 1 } } as never).catch((e: unknown) => e);
  expect(alone).toBeInstanceOf(Error);
  calls.mockClear();
  const outcomes = await Promise.allSettled([
    coll.updateOne({ _id: "d3" }, { $bogus: { n: 1 } } as never),
    coll.updateOne({ _id: "d4" }, { $set: { n: -4 } }),
    coll.deleteOne({ _id: "d5" }),
  ]);
  expect(actionsCalled()).toEqual(["store.batch"]);
  expect(outcomes[0].status).toBe("rejected");
  const err = (outcomes[0] as PromiseRejectedResult).reason as Error & { code?: number; type?: string };
  const want = alone as Error & { code?: number; type?: string };
  expect({ name: err.name, code: err.code, type: err.type, message: err.message }).toEqual({
    name: want.name,
    code: want.code,
    type: want.type,
    message: want.message,
  });
  expect(outcomes[1]).toEqual({ status: "fulfilled", value: { matchedCount: 1, modifiedCount: 1 } });
  expect(outcomes[2]).toEqual({ status: "fulfilled", value: 1 });
  expect(await coll.count({})).toBe(9);
});

/** A batch sent as RemoteBackend sends one, and the same calls each alone: what each answered. */
async function batchAndAlone(calls: { method: string; params: Record<string, unknown> }[]) {
  const batch = await caller.call<BatchOutcome[], unknown>("store.batch", { calls });
  const alone = await Promise.all(
    calls.map((c) => caller.call(`store.${c.method}`, c.params).catch((err: unknown) => err)),
  );
  return { batch, alone };
}

/** What of an error a caller sees, as plain data (a batch carries it so). */
const seen = (e: { name?: string; code?: number; type?: string; message?: string; data?: unknown }) => ({
  name: e.name,
  code: e.code,
  type: e.type,
  message: e.message,
  data: e.data,
});

test("inserts travel in their turn's batch, each answered with its stored image, the store's own", async () => {
  const coll = await seeded();
  const frozen = parseFrozen('{"_id":"f1","kind":"frozen","n":[1,2]}') as Doc;
  const [plain, later, idless, kept, one] = await Promise.all([
    coll.insertOne({ _id: "p1", group: 9, nested: { a: [1, { b: null }] } }),
    // `_id` not first, and a member JSON drops: the image has `_id` first and no `gone`.
    coll.insertOne({ group: 9, gone: undefined, _id: "p2" }),
    coll.insertOne({ group: 9, n: 1 }),
    coll.insertOne(frozen),
    coll.updateOne({ _id: "d1" }, { $set: { x: 1 } }),
  ]);
  expect(actionsCalled()).toEqual(["store.batch"]);
  expect(plain).toEqual({ _id: "p1", group: 9, nested: { a: [1, { b: null }] } });
  expect(Object.keys(later)).toEqual(["_id", "group"]);
  expect(idless._id).toMatch(/^[0-9a-f]{24}$/);
  // A frozen JSON value is its own image, as the embedded store answers it in one process.
  expect(kept).toBe(frozen);
  expect(one).toEqual({ matchedCount: 1, modifiedCount: 1 });
  // Each answer is what the store holds, member order included.
  for (const answer of [plain, later, idless, kept]) {
    const stored = await coll.findOne({ _id: answer._id });
    expect(stored).toEqual(answer);
    expect(Object.keys(stored!)).toEqual(Object.keys(answer));
  }
});

test("an insert of a taken key fails alone in its batch, as a DuplicateKeyError", async () => {
  const coll = await seeded();
  const outcomes = await Promise.allSettled([
    coll.insertOne({ _id: "d3", group: 7 }),
    coll.insertOne({ _id: "fresh", group: 7 }),
    coll.count({ group: 7 }),
  ]);
  expect(actionsCalled()).toEqual(["store.batch"]);
  expect((outcomes[0] as PromiseRejectedResult).reason).toBeInstanceOf(DuplicateKeyError);
  expect(outcomes[1]).toEqual({ status: "fulfilled", value: { _id: "fresh", group: 7 } });
  expect(outcomes[2]).toEqual({ status: "fulfilled", value: 1 });
  expect(await coll.findOne({ _id: "d3" })).toEqual({ _id: "d3", group: 3, n: 3 });
});

test("store.insertImage refuses a document without its `_id`, and stores nothing", async () => {
  const coll = await seeded();
  const err = await caller
    .call("store.insertImage", { collection: coll.name, doc: { group: 5 } })
    .catch((e: unknown) => e);
  expect(err).toMatchObject({ name: "ValidationError", code: 422 });
  expect(await coll.count({ group: 5 })).toBe(0);
});

test("a call its own params schema refuses fails alone in a batch, with the error it gets alone", async () => {
  const coll = await seeded();
  const { batch, alone } = await batchAndAlone([
    {
      method: "updateOne",
      params: { collection: coll.name, filter: { _id: "d1" }, update: { $set: { a: 1 } } },
    },
    // No filter: store.updateOne's schema refuses it (RemoteBackend never sends one).
    { method: "updateOne", params: { collection: coll.name, update: { $set: { b: 1 } } } },
    { method: "count", params: { collection: "", filter: {} } },
    { method: "deleteOne", params: { collection: coll.name, filter: { _id: "d2" }, extra: 1 } },
  ]);
  expect(batch[0]).toEqual({ value: { matchedCount: 1, modifiedCount: 1 } });
  for (const i of [1, 2]) {
    const err = (batch[i] as { error: Parameters<typeof seen>[0] }).error;
    expect(err).toMatchObject({ name: "ValidationError", code: 422, type: "VALIDATION_ERROR" });
    expect(seen(err)).toEqual(seen(alone[i] as Error));
  }
  // Unknown members pass as they do alone (the schema is not strict): d2 was deleted, once.
  expect(batch[3]).toEqual({ value: 1 });
  expect(alone[3]).toBe(0);
  expect(await coll.findOne({ _id: "d1" })).toMatchObject({ a: 1 });
  expect((await coll.find({})).filter((d) => "b" in d)).toEqual([]);
});

test("a call past the store's input bounds fails alone in a batch, with the error it gets alone", async () => {
  const coll = await seeded();
  let deep: Record<string, unknown> = { leaf: 1 };
  for (let i = 0; i < 200; i++) deep = { d: deep };
  const { batch, alone } = await batchAndAlone([
    {
      method: "updateOne",
      params: { collection: coll.name, filter: { _id: "d1" }, update: { $set: { deep } } },
    },
    {
      method: "updateOne",
      params: { collection: coll.name, filter: { _id: "d2" }, update: { $set: { n: -2 } } },
    },
  ]);
  const err = (batch[0] as { error: Parameters<typeof seen>[0] }).error;
  expect(err).toMatchObject({ code: 400 });
  expect(err.message).toMatch(/MAX_INPUT_DEPTH/);
  expect(seen(err)).toEqual(seen(alone[0] as Error));
  expect(batch[1]).toEqual({ value: { matchedCount: 1, modifiedCount: 1 } });
  expect(await coll.findOne({ _id: "d1" })).not.toHaveProperty("deep");
  expect(await coll.findOne({ _id: "d2" })).toMatchObject({ n: -2 });
});

test("a batch NATS refuses as too large goes call by call, each answered and stored", async () => {
  const coll = await seeded();
  // Four calls of about 300 KB each: every one fits in NATS's 1 MiB, the four together do not.
  const big = (i: number) => `${i}`.repeat(300 * 1024);
  const answers = await Promise.all(
    [1, 2, 3, 4].map((i) => coll.updateOne({ _id: `d${i}` }, { $set: { big: big(i) } })),
  );
  expect(answers).toEqual(Array(4).fill({ matchedCount: 1, modifiedCount: 1 }));
  expect(actionsCalled()).toEqual([
    "store.batch",
    "store.updateOne",
    "store.updateOne",
    "store.updateOne",
    "store.updateOne",
  ]);
  for (const i of [1, 2, 3, 4]) expect((await coll.findOne({ _id: `d${i}` }))?.big).toBe(big(i));
});

test(`more than ${MAX_BATCH} calls in one turn go in several batches, each call its own answer`, async () => {
  const coll = await seeded();
  const n = MAX_BATCH + 6;
  const answers = await Promise.all(
    Array.from({ length: n }, (_, i) => coll.count(i % 2 === 0 ? { group: i % 4 } : { n: { $gte: i % 10 } })),
  );
  const want = Array.from({ length: n }, (_, i) => (i % 2 === 0 ? (i % 4 < 2 ? 3 : 2) : 10 - (i % 10)));
  expect(answers).toEqual(want);
  expect(actionsCalled()).toEqual(["store.batch", "store.batch"]);
});

test("a call alone in its turn goes as a call of its own", async () => {
  const coll = await seeded();
  expect(await coll.updateOne({ _id: "d0" }, { $set: { n: 7 } })).toEqual({
    matchedCount: 1,
    modifiedCount: 1,
  });
  expect(actionsCalled()).toEqual(["store.updateOne"]);
});

test("a store of an older release, without store.batch, gets each call alone, each answered", async () => {
  const namespace = `store-old-${randomUUID().slice(0, 8)}`;
  const options = (name: string) => ({
    ...brokerOptions(loadConfig({ TRANSPORTER: NATS_URL, NAMESPACE: namespace, METRICS_PORT: "off" })),
    nodeID: `${namespace}-${name}`,
    logger: false,
  });
  const older = new ServiceBroker(options("store"));
  const {
    batch: _batch,
    insertImage: _insertImage,
    ...actions
  } = storeService.actions as Record<string, unknown>;
  const dataDir = tempDir();
  bindConfig(older, loadConfig({ DATA_DIR: dataDir, METRICS_PORT: "off" }));
  older.createService({ ...storeService, actions } as never);
  const client = new ServiceBroker(options("client"));
  try {
    await Promise.all([older.start(), client.start()]);
    await client.waitForServices(["store"], 10_000);
    const coll = new RemoteBackend(client).collection("old");
    await coll.createIndex({ keys: { group: 1 } });
    for (let i = 0; i < 6; i++) await coll.insertOne({ _id: `d${i}`, group: i % 3 });
    const sent = jest.spyOn(client, "call");
    const answers = await Promise.all([
      coll.count({ group: 0 }),
      coll.updateMany({ group: 1 }, { $set: { seen: true } }),
      coll.deleteOne({ _id: "d5" }),
      coll.insertOne({ group: 4, _id: "d6" }),
    ]);
    expect(answers).toEqual([2, { matchedCount: 2, modifiedCount: 2 }, 1, { _id: "d6", group: 4 }]);
    // The insert, not batchable there, leaves at once; the others at the turn's end, one by one.
    expect(sent.mock.calls.map((c) => c[0])).toEqual([
      "store.insertOne",
      "store.count",
      "store.updateMany",
      "store.deleteOne",
    ]);
    expect(await coll.findOne({ _id: "d6" })).toEqual({ _id: "d6", group: 4 });
  } finally {
    await client.stop();
    await older.stop();
  }
});

test("a store call made after its action's own timeout has passed still goes (a job's next write)", async () => {
  const coll = await seeded();
  // An engine replica's writes run in the context of the action that started the job, long after
  // that call's timeout: the store call must not be skipped as Moleculer skips a late child call.
  let write: Promise<unknown> | undefined;
  caller.createService({
    name: "latewriter",
    actions: {
      start: {
        async handler() {
          await new Promise((r) => setTimeout(r, 300));
          write = coll.updateOne({ _id: "d0" }, { $set: { late: true } });
          return write;
        },
      },
    },
  });
  await caller.waitForServices(["latewriter"], 5000);
  await expect(
    caller.call("latewriter.start", {}, { timeout: 100, meta: { platform: true } }),
  ).rejects.toThrow();
  await new Promise((r) => setTimeout(r, 400));
  await expect(write).resolves.toEqual({ matchedCount: 1, modifiedCount: 1 });
  expect(await coll.findOne({ _id: "d0" })).toMatchObject({ late: true });
});
