/**
 * The platform's NATS transporter (app/nats-transporter.ts) over a real NATS: packets sent in one
 * event-loop turn are published together after it, in order; nothing is lost on the way (many
 * concurrent calls, events in emission order); a disconnect publishes what is waiting first; a
 * publish that fails rejects its send.
 */
import { randomUUID } from "node:crypto";
import { ServiceBroker } from "moleculer";
import { connect, type NatsConnection } from "nats";
import { brokerOptions } from "../../app/broker-options";
import { CoalescingNatsTransporter } from "../../app/nats-transporter";
import { loadConfig } from "../../shared/config";

const NATS_URL = process.env.NATS_URL!;
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function broker(namespace: string, nodeID: string): ServiceBroker {
  return new ServiceBroker({
    namespace,
    nodeID,
    transporter: new CoalescingNatsTransporter({ url: NATS_URL }),
    logger: false,
  });
}

test("the platform's brokers use it for nats:// transporters", () => {
  const options = brokerOptions(loadConfig({ TRANSPORTER: NATS_URL, ADMIN_PASSWORD: "x".repeat(16) }));
  expect(options.transporter).toBeInstanceOf(CoalescingNatsTransporter);
  expect(brokerOptions(loadConfig({ ADMIN_PASSWORD: "x".repeat(16) })).transporter).toBeNull();
});

describe("one transporter and a plain NATS subscriber", () => {
  let transporter: CoalescingNatsTransporter;
  let nc: NatsConnection;
  const subject = `coalescing-${randomUUID()}`;

  beforeEach(async () => {
    const host = new ServiceBroker({ logger: false, transporter: null });
    transporter = new CoalescingNatsTransporter({ url: NATS_URL });
    transporter.init(
      { broker: host, nodeID: "t", logger: host.logger } as never,
      () => {},
      () => {},
    );
    // connect() reports "connected" to the transit; only the client is wanted here.
    (transporter as any).onConnected = () => Promise.resolve();
    await transporter.connect();
    nc = await connect({ servers: NATS_URL.replace("nats://", "") });
  });
  afterEach(async () => {
    await transporter.disconnect().catch(() => {});
    await nc.close();
  });

  test("packets sent in one turn are published together after it, in order", async () => {
    const published: string[] = [];
    const publish = transporter.client.publish.bind(transporter.client);
    transporter.client.publish = (topic: string, data: Uint8Array) => {
      published.push(Buffer.from(data).toString());
      publish(topic, data);
    };
    const sends = ["a", "b", "c"].map((text) => transporter.send(subject, Buffer.from(text)));
    await Promise.resolve();
    expect(published).toEqual([]);
    await nextTurn();
    expect(published).toEqual(["a", "b", "c"]);
    await expect(Promise.all(sends)).resolves.toEqual([undefined, undefined, undefined]);
  });

  test("a disconnect publishes what is waiting first", async () => {
    const received: string[] = [];
    const sub = nc.subscribe(subject, {
      callback: (_err, msg) => received.push(Buffer.from(msg.data).toString()),
    });
    await nc.flush();
    void transporter.send(subject, Buffer.from("last words"));
    await transporter.disconnect();
    await nc.flush();
    for (let i = 0; i < 50 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(received).toEqual(["last words"]);
    sub.unsubscribe();
  });

  test("a send on a closed connection rejects (it is not lost silently)", async () => {
    await transporter.client.close();
    await expect(transporter.send(subject, Buffer.from("x"))).rejects.toThrow(/closed/i);
  });

  test("a failed send nobody awaits is no unhandled rejection", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      await transporter.client.close();
      void transporter.send(subject, Buffer.from("dropped"));
      await nextTurn();
      await new Promise((r) => setTimeout(r, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});

describe("two brokers over it", () => {
  const namespace = `coalescing-${randomUUID().slice(0, 8)}`;
  const sender = broker(namespace, "sender");
  const receiver = broker(namespace, "receiver");
  const seen: number[] = [];

  beforeAll(async () => {
    receiver.createService({
      name: "echo",
      actions: { say: (ctx) => ({ heard: (ctx.params as { n: number }).n }) },
      events: { "seq.tick": (ctx) => void seen.push((ctx.params as { n: number }).n) },
    });
    await Promise.all([sender.start(), receiver.start()]);
    await sender.waitForServices(["echo"], 10_000);
  });
  afterAll(async () => {
    await sender.stop();
    await receiver.stop();
  });

  test("500 concurrent calls each get their own answer", async () => {
    const answers = await Promise.all(
      Array.from({ length: 500 }, (_, n) => sender.call("echo.say", { n }) as Promise<{ heard: number }>),
    );
    expect(answers.map((a) => a.heard)).toEqual(Array.from({ length: 500 }, (_, n) => n));
  });

  test("300 events emitted in one turn arrive, in the order they were emitted", async () => {
    for (let n = 0; n < 300; n++) void sender.emit("seq.tick", { n });
    const until = Date.now() + 10_000;
    while (seen.length < 300 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual(Array.from({ length: 300 }, (_, n) => n));
  });
});
