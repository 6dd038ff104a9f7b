/**
 * A store call made while an action runs is that action's child (its request id, its place in the
 * trace) but does not carry the action's meta (shared/store/remote.ts withoutMeta): the caller's
 * identity and session id have no business on the store's node, and they crossed the bus to it and
 * back in every unbatched store call's request and answer. Over a real NATS, the packets read off
 * the bus itself.
 */
import { connect, type NatsConnection } from "nats";
import type { Context } from "moleculer";
import { startRemoteStore, type RemoteStore } from "../support/remote-store";

let nodes: RemoteStore;
let bus: NatsConnection;
/** Each store request and answer that crossed the bus, parsed, with its subject. */
const packets: { subject: string; packet: Record<string, unknown> }[] = [];

const caller = {
  accountId: "acc-meta-1",
  username: "alice-meta",
  roles: ["admin"],
  groupIds: ["g-meta"],
  sessionId: "5e55".repeat(16),
};

beforeAll(async () => {
  nodes = await startRemoteStore("store-meta");
  bus = await connect({ servers: process.env.NATS_URL! });
  const sub = bus.subscribe(`MOL-${nodes.caller.namespace}.>`);
  void (async () => {
    for await (const m of sub) {
      if (!/\.(REQ|RES)\./.test(m.subject)) continue;
      packets.push({ subject: m.subject, packet: JSON.parse(new TextDecoder().decode(m.data)) });
    }
  })();
  await bus.flush();
  // An action of the calling node that reads through the remote store, as a service's handler does.
  nodes.caller.createService({
    name: "metaprobe",
    actions: {
      async read(ctx: Context) {
        const docs = nodes.remote.collection("meta_things");
        const one = await docs.findOne({ _id: "t1" });
        const all = await docs.find({ kind: "thing" });
        return { one, all, id: ctx.id, requestID: ctx.requestID };
      },
    },
  });
  await nodes.caller.waitForServices(["metaprobe"]);
  const things = nodes.remote.collection("meta_things");
  await things.createIndex({ keys: { kind: 1 } });
  await things.insertOne({ _id: "t1", kind: "thing", n: 1 });
  await things.insertOne({ _id: "t2", kind: "thing", n: 2 });
}, 30_000);

afterAll(async () => {
  await bus?.close();
  await nodes?.stop();
});

test("a store read inside an action answers the same, and neither its request nor its answer carries the caller", async () => {
  packets.length = 0;
  const answer = await nodes.caller.call<
    { one: unknown; all: unknown[]; id: string; requestID: string },
    Record<string, never>
  >("metaprobe.read", {}, { meta: { caller } });
  await bus.flush();
  await new Promise((r) => setTimeout(r, 100));

  expect(answer.one).toEqual({ _id: "t1", kind: "thing", n: 1 });
  expect(answer.all).toEqual([
    { _id: "t1", kind: "thing", n: 1 },
    { _id: "t2", kind: "thing", n: 2 },
  ]);

  const requests = packets.filter(({ packet }) => /^store\.(findOne|findPage)$/.test(String(packet.action)));
  expect(requests.map(({ packet }) => packet.action).sort()).toEqual(["store.findOne", "store.findPage"]);
  for (const { packet } of requests) {
    // Still the action's child: its request id for the log lines, the action's context as parent.
    expect(packet.requestID).toBe(answer.requestID);
    expect(packet.parentID).toBe(answer.id);
    expect(packet.meta).toEqual({});
  }
  const answers = packets.filter(({ subject }) => subject.includes(".RES."));
  expect(answers.length).toBeGreaterThanOrEqual(2);
  // Nothing of the caller anywhere on the bus between the two nodes.
  for (const { packet } of [...requests, ...answers]) {
    const text = JSON.stringify(packet);
    expect(text).not.toContain(caller.username);
    expect(text).not.toContain(caller.sessionId);
  }
});
