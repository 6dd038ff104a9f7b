/**
 * The gateway's own key (shared/idempotency.ts GENERATED_KEY_META): a request without
 * `Idempotency-Key` gets a made key that becomes the call's key only when the call is sent to
 * another node, where the gateway's retry (shared/retry-left-node.ts) may repeat it. Served on the
 * gateway's node, the call keeps no record: nobody can repeat it. Two brokers over Moleculer's
 * in-memory transporter, with the platform's two middlewares in the platform's order.
 */
import { hash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ServiceBroker, type Context } from "moleculer";
import {
  GENERATED_KEY_META,
  IDEMPOTENCY_META,
  idempotencyMiddleware,
  KEY_MADE_META,
  MAKE_KEY_IF_SENT,
} from "../../shared/idempotency";
import { keyedDocumentId, notingKeyedInserts } from "../../shared/keyed-inserts";
import { retryLeftNodeMiddleware } from "../../shared/retry-left-node";
import { openEmbeddedStore } from "../../shared/store";
import { DuplicateKeyError, type Doc, type Store } from "../../shared/store/types";

const WRITES = new Set(["probe.make", "probe.create", "probe.start"]);
/** Its contract would say `madeKeyRecord: false`: it finds its own repeat (as engine.startJob does). */
const WITHOUT_MADE_KEY_RECORD = new Set(["probe.start"]);
/** How many times probe.create's handler ran. */
let creates = 0;
let dir: string;
let store: Store;
const brokers: ServiceBroker[] = [];

function broker(nodeID: string, withService: boolean): ServiceBroker {
  const b = new ServiceBroker({
    nodeID,
    namespace: `made-keys-${process.pid}`,
    transporter: "Fake",
    logger: false,
    middlewares: [
      retryLeftNodeMiddleware(new Set(), WRITES),
      idempotencyMiddleware(WRITES, WITHOUT_MADE_KEY_RECORD),
    ],
  });
  if (withService)
    b.createService({
      name: "probe",
      created() {
        (this as unknown as { store: Store }).store = notingKeyedInserts(store);
      },
      actions: {
        // A create as a job start is one: its document under a made id, answered as stored.
        create(this: { store: Store }) {
          creates++;
          return this.store.collection("things").insertOne({ _id: keyedDocumentId("thing"), run: creates });
        },
        // A start as engine.startJob is one: its document under a made id, the repeat answered the
        // document it finds there; beside it an id-less insert and one under an id of its own.
        async start(this: { store: Store }) {
          const things = this.store.collection("things");
          const id = keyedDocumentId("started");
          try {
            const doc = await things.insertOne({ _id: id });
            creates++;
            const made = await things.insertOne({ madeFor: id });
            const own = await things.insertOne({ _id: `own-${creates}`, ownFor: id });
            return { doc, made: made._id, own: own._id };
          } catch (err) {
            if (!(err instanceof DuplicateKeyError)) throw err;
            return { doc: await things.findOne({ _id: id }), repeat: true };
          }
        },
        make(ctx: Context<unknown, Record<string, unknown>>) {
          // Inside a keyed call made ids exist; the key itself never reaches the handler.
          return {
            keyed: keyedDocumentId("probe") !== undefined,
            metaKeys: [IDEMPOTENCY_META, GENERATED_KEY_META, KEY_MADE_META].filter((k) => k in ctx.meta),
          };
        },
      },
    });
  brokers.push(b);
  return b;
}

const records = () =>
  store
    .collection("idempotency")
    .count({ action: "probe.make" }, { scan: "a test counting one action's records" });

let local: ServiceBroker;
let remoteCaller: ServiceBroker;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "made-keys-"));
  store = await openEmbeddedStore(dir);
  local = broker("with-probe", true);
  remoteCaller = broker("gateway-only", false);
  await Promise.all(brokers.map((b) => b.start()));
  await remoteCaller.waitForServices("probe");
});
afterAll(async () => {
  await Promise.all(brokers.map((b) => b.stop()));
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test("served on the node that made the key: no record, not keyed, the made key goes no further", async () => {
  const before = await records();
  const answer = await local.call("probe.make", {}, { meta: { [GENERATED_KEY_META]: "made-1" } });
  expect(answer).toEqual({ keyed: false, metaKeys: [] });
  expect(await records()).toBe(before);
});

test("sent to another node: the made key is the call's key there, with its record", async () => {
  const before = await records();
  const answer = await remoteCaller.call("probe.make", {}, { meta: { [GENERATED_KEY_META]: "made-2" } });
  expect(answer).toEqual({ keyed: true, metaKeys: [] });
  expect(await records()).toBe(before + 1);
  // A repeat under that key (the gateway's retry) answers as the first did, with no second record.
  const again = await remoteCaller.call("probe.make", {}, { meta: { [IDEMPOTENCY_META]: "made-2" } });
  expect(again).toEqual(answer);
  expect(await records()).toBe(before + 1);
});

describe("a made key's record keeps no answer: its repeat runs the call again, as a takeover does", () => {
  const recordOf = (key: string) =>
    store.collection("idempotency").findOne({ _id: hash("sha256", `\nprobe.create\n${key}`) });
  const thingsOf = (id: string) =>
    store.collection("things").count({ _id: id }, { scan: "a test's few things" });

  test("the repeat answers what the first run inserted, inserting nothing", async () => {
    const first = await remoteCaller.call<Doc, Record<string, never>>(
      "probe.create",
      {},
      { meta: { [GENERATED_KEY_META]: "made-c" } },
    );
    const record = await recordOf("made-c");
    expect(record).toMatchObject({ state: "done" });
    expect(record).not.toHaveProperty("result");
    const runsBefore = creates;
    // The gateway's retry, after the node that ran it left: the same key, marked made.
    const again = await remoteCaller.call<Doc, Record<string, never>>(
      "probe.create",
      {},
      { meta: { [IDEMPOTENCY_META]: "made-c", [KEY_MADE_META]: true } },
    );
    expect(creates).toBe(runsBefore + 1);
    expect(again).toEqual(first);
    expect(await thingsOf(first._id)).toBe(1);
    expect(await recordOf("made-c")).toEqual(record);
  });

  test("a client's key keeps its answer: its repeat answers it without running again", async () => {
    const key = { meta: { [IDEMPOTENCY_META]: "client-c" } };
    const first = await remoteCaller.call<Doc, Record<string, never>>("probe.create", {}, key);
    expect(await recordOf("client-c")).toMatchObject({ state: "done", result: first });
    const runsBefore = creates;
    expect(await remoteCaller.call("probe.create", {}, key)).toEqual(first);
    expect(creates).toBe(runsBefore);
  });
});

/** How long from now the record of `key` (no caller) is kept, in seconds. */
async function keptFor(key: string): Promise<number> {
  const _id = hash("sha256", `\nprobe.make\n${key}`);
  const record = await store.collection("idempotency").findOne({ _id });
  return ((record!.expiresAt as number) - Date.now()) / 1000;
}

test("a made key's record is kept for its window (10 min here), a client's for IDEMPOTENCY_TTL (24 h)", async () => {
  // Only the gateway's own retry can repeat a made key, within its request: a day of them, each
  // holding its answer, was most of what the collection held.
  await remoteCaller.call("probe.make", {}, { meta: { [GENERATED_KEY_META]: "made-window" } });
  const made = await keptFor("made-window");
  expect(made).toBeGreaterThan(590);
  expect(made).toBeLessThanOrEqual(600);
  // Its repeat (the retry) answers the kept answer and leaves the window as it was.
  const again = { meta: { [IDEMPOTENCY_META]: "made-window", [KEY_MADE_META]: true } };
  expect(await remoteCaller.call("probe.make", {}, again)).toEqual({ keyed: true, metaKeys: [] });
  expect(await keptFor("made-window")).toBeLessThanOrEqual(600);
  for (const node of [remoteCaller, local]) {
    const key = `client-window-${node.nodeID}`;
    await node.call("probe.make", {}, { meta: { [IDEMPOTENCY_META]: key } });
    const kept = await keptFor(key);
    expect(kept).toBeGreaterThan(86_390);
    expect(kept).toBeLessThanOrEqual(86_400);
  }
});

test("a client's key is kept wherever the call runs, and wins over a made one", async () => {
  const before = await records();
  const answer = await local.call(
    "probe.make",
    {},
    { meta: { [IDEMPOTENCY_META]: "client-1", [GENERATED_KEY_META]: "made-3" } },
  );
  expect(answer).toEqual({ keyed: true, metaKeys: [] });
  expect(await records()).toBe(before + 1);
});

describe("the gateway's mark (MAKE_KEY_IF_SENT): a key drawn only when the call is sent", () => {
  const marked = { meta: { [GENERATED_KEY_META]: MAKE_KEY_IF_SENT } };

  test("served locally: no key is made, no record, nothing reaches the handler", async () => {
    const before = await records();
    expect(await local.call("probe.make", {}, marked)).toEqual({ keyed: false, metaKeys: [] });
    expect(await records()).toBe(before);
  });

  test("sent: each call gets a fresh key of its own, with its record", async () => {
    const before = await records();
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const meta: Record<string, unknown> = { [GENERATED_KEY_META]: MAKE_KEY_IF_SENT };
      const ctx = { meta };
      expect(await remoteCaller.call("probe.make", {}, ctx)).toEqual({ keyed: true, metaKeys: [] });
      ids.add(String(meta[IDEMPOTENCY_META] ?? ""));
      // Marked as made, so the replica keeps its record for the made key's window only.
      expect(meta[KEY_MADE_META]).toBe(true);
    }
    // Three calls, three records: the mark is never itself a key (which would make them one request).
    expect(await records()).toBe(before + 3);
    expect(ids.size).toBe(3);
  });

  test("a client's key wins over the mark", async () => {
    const before = await records();
    const meta = { [IDEMPOTENCY_META]: "client-mark", [GENERATED_KEY_META]: MAKE_KEY_IF_SENT };
    expect(await remoteCaller.call("probe.make", {}, { meta })).toEqual({ keyed: true, metaKeys: [] });
    expect(
      await remoteCaller.call("probe.make", {}, { meta: { [IDEMPOTENCY_META]: "client-mark" } }),
    ).toEqual({
      keyed: true,
      metaKeys: [],
    });
    expect(await records()).toBe(before + 1);
  });
});

describe("an action without a made-key record (its contract: madeKeyRecord false)", () => {
  const recordsOf = () =>
    store
      .collection("idempotency")
      .count({ action: "probe.start" }, { scan: "a test counting one action's records" });
  type Started = { doc: Doc; made?: string; own?: string; repeat?: true };

  test("under a made key: no record; the repeat's made id is the first run's, and it finds the document", async () => {
    const first = await remoteCaller.call<Started, Record<string, never>>(
      "probe.start",
      {},
      { meta: { [GENERATED_KEY_META]: "made-s" } },
    );
    expect(await recordsOf()).toBe(0);
    // Made ids, from the request id alone (no claim, no seed): the job's and the id-less insert's.
    const recordId = hash("sha256", `\nprobe.start\nmade-s`);
    const madeId = (label: string) => hash("sha256", `${recordId}\n${label}`).slice(0, 24);
    expect(first.doc._id).toBe(madeId("started"));
    expect(first.made).toBe(madeId("insert\nthings\n0"));
    // The gateway's retry after the node left: the same key, marked made.
    const runs = creates;
    const again = await remoteCaller.call<Started, Record<string, never>>(
      "probe.start",
      {},
      { meta: { [IDEMPOTENCY_META]: "made-s", [KEY_MADE_META]: true } },
    );
    expect(creates).toBe(runs);
    expect(again).toEqual({ doc: first.doc, repeat: true });
    expect(await recordsOf()).toBe(0);
  });

  test("under a client's key: its record as any keyed write's, with its answer", async () => {
    const key = { meta: { [IDEMPOTENCY_META]: "client-s" } };
    const first = await remoteCaller.call<Started, Record<string, never>>("probe.start", {}, key);
    expect(await recordsOf()).toBe(1);
    const runs = creates;
    expect(await remoteCaller.call("probe.start", {}, key)).toEqual(first);
    expect(creates).toBe(runs);
  });
});
