/**
 * Packets of one turn to one node as one NATS message (app/nats-batch.ts, app/nats-transporter.ts),
 * over a real NATS: a batch is split in order on arrival; a node without the capability flag (an
 * older release) gets each packet alone; a batch to a dead node fails every request in it as each
 * would fail alone (app/departed-nodes.ts); no batch is larger than the server's max_payload, and a
 * packet too large alone fails as it did before, its neighbours answered.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Errors, ServiceBroker, Transporters } from "moleculer";
import { connect, type NatsConnection } from "nats";
import { CoalescingNatsTransporter } from "../../app/nats-transporter";
import { freePort } from "../support/processes";
import { tempDir } from "../support/platform";

const NATS_URL = process.env.NATS_URL!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function broker(namespace: string, nodeID: string, url = NATS_URL, old = false): ServiceBroker {
  return new ServiceBroker({
    namespace,
    nodeID,
    transporter: old ? new Transporters.NATS({ url }) : new CoalescingNatsTransporter({ url }),
    requestTimeout: 5000,
    logger: false,
  });
}

/** Every message a broker's NATS client publishes: its subject and size. */
function published(b: ServiceBroker): { subject: string; size: number }[] {
  const seen: { subject: string; size: number }[] = [];
  const client = (b.transit!.tx as any).client;
  const publish = client.publish.bind(client);
  client.publish = (subject: string, data: Uint8Array, options?: unknown) => {
    seen.push({ subject, size: data.length });
    return publish(subject, data, options);
  };
  return seen;
}

/** How many messages a plain NATS client sees on a subject while `run` runs. */
async function countOn(nc: NatsConnection, subject: string, run: () => Promise<void>): Promise<number> {
  let count = 0;
  const sub = nc.subscribe(subject, { callback: () => void count++ });
  await nc.flush();
  try {
    await run();
    await nc.flush();
    await sleep(50);
  } finally {
    sub.unsubscribe();
  }
  return count;
}

function echoService(b: ServiceBroker, heard: number[]) {
  b.createService({
    name: `echo-${b.nodeID}`,
    actions: { say: (ctx) => ({ heard: (ctx.params as { n: number }).n, by: b.nodeID }) },
    events: { [`tick.${b.nodeID}`]: (ctx) => void heard.push((ctx.params as { n: number }).n) },
  });
}

async function eventually(check: () => boolean, ms = 10_000) {
  const until = Date.now() + ms;
  while (!check() && Date.now() < until) await sleep(20);
}

describe("two nodes that take batches, and an older one", () => {
  const namespace = `batch-${randomUUID().slice(0, 8)}`;
  const sender = broker(namespace, "sender");
  const receiver = broker(namespace, "receiver");
  const old = broker(namespace, "old", NATS_URL, true);
  const heard: Record<string, number[]> = { sender: [], receiver: [], old: [] };
  let nc: NatsConnection;

  beforeAll(async () => {
    echoService(sender, heard.sender);
    echoService(receiver, heard.receiver);
    echoService(old, heard.old);
    await Promise.all([sender.start(), receiver.start(), old.start()]);
    await sender.waitForServices(["echo-receiver", "echo-old"], 10_000);
    await old.waitForServices(["echo-sender"], 10_000);
    nc = await connect({ servers: NATS_URL.replace("nats://", "") });
  });
  afterAll(async () => {
    await nc.close();
    await Promise.all([sender.stop(), receiver.stop(), old.stop()]);
  });

  test("the flag is in the node info of a node that takes batches only", () => {
    expect(sender.registry.nodes.get("receiver")!.metadata).toEqual({ natsBatch: 1 });
    expect(sender.registry.nodes.get("old")!.metadata).toEqual({});
  });

  test("events and calls of one turn go as batches and are handled one by one, in order", async () => {
    let answers: { heard: number }[] = [];
    const singles = await countOn(nc, `MOL-${namespace}.EVENT.receiver`, async () => {
      const batches = await countOn(nc, `MOL-${namespace}.BATCH.receiver`, async () => {
        const calls: Promise<{ heard: number }>[] = [];
        for (let n = 0; n < 200; n++) {
          void sender.emit("tick.receiver", { n });
          calls.push(sender.call("echo-receiver.say", { n }));
        }
        answers = await Promise.all(calls);
        await eventually(() => heard.receiver.length === 200);
      });
      expect(batches).toBeGreaterThan(0);
      expect(batches).toBeLessThan(200);
    });
    expect(singles).toBe(0);
    expect(heard.receiver).toEqual(Array.from({ length: 200 }, (_, n) => n));
    expect(answers.map((a) => a.heard)).toEqual(Array.from({ length: 200 }, (_, n) => n));
    // A batch's request ids are kept for its 503 only while one of them waits: once all are
    // answered, the next look forgets them (no growth on a live node).
    const departed = (sender.transit!.tx as any).departed;
    await eventually(() => departed.batches.size === 0, 2000);
    expect(departed.batches.size).toBe(0);
  });

  test("a node without the flag gets each packet alone, and its packets are taken", async () => {
    let answers: { heard: number }[] = [];
    const batches = await countOn(nc, `MOL-${namespace}.BATCH.old`, async () => {
      const singles = await countOn(nc, `MOL-${namespace}.EVENT.old`, async () => {
        const calls: Promise<{ heard: number }>[] = [];
        for (let n = 0; n < 50; n++) {
          void sender.emit("tick.old", { n });
          calls.push(sender.call("echo-old.say", { n }));
        }
        answers = await Promise.all(calls);
        await eventually(() => heard.old.length === 50);
      });
      expect(singles).toBe(50);
    });
    expect(batches).toBe(0);
    expect(heard.old).toEqual(Array.from({ length: 50 }, (_, n) => n));
    expect(answers.map((a) => a.heard)).toEqual(Array.from({ length: 50 }, (_, n) => n));
    // The older node's calls to a newer one are answered too (it sends, and gets, single packets).
    const back = await Promise.all(
      Array.from({ length: 20 }, (_, n) => old.call("echo-sender.say", { n }) as Promise<{ heard: number }>),
    );
    expect(back.map((a) => a.heard)).toEqual(Array.from({ length: 20 }, (_, n) => n));
  });
});

describe("a batch to a node that is gone", () => {
  const namespace = `batch-dead-${randomUUID().slice(0, 8)}`;
  const sender = broker(namespace, "sender");
  const doomed = broker(namespace, "doomed");

  beforeAll(async () => {
    echoService(doomed, []);
    await Promise.all([sender.start(), doomed.start()]);
    await sender.waitForServices(["echo-doomed"], 10_000);
  });
  afterAll(async () => {
    await sender.stop();
    await doomed.stop().catch(() => {});
  });

  test("fails every request in it with ServiceNotAvailableError naming the node, as each alone would", async () => {
    const sent = published(sender);
    // Its NATS connection gone without a goodbye, as when the process is SIGKILLed: the sender
    // still holds it as available, and nats-server has dropped its subscriptions.
    await (doomed.transit!.tx as any).client.close();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 5 }, (_, n) => sender.call("echo-doomed.say", { n })),
    );
    expect(sent.filter((m) => m.subject === `MOL-${namespace}.BATCH.doomed`)).toHaveLength(1);
    expect(sent.filter((m) => m.subject === `MOL-${namespace}.REQ.doomed`)).toHaveLength(0);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe("rejected");
      const err = (outcome as PromiseRejectedResult).reason;
      expect(err).toBeInstanceOf(Errors.ServiceNotAvailableError);
      expect(err.data).toEqual({ action: "echo-doomed.say", nodeID: "doomed" });
    }
    expect(sender.registry.nodes.get("doomed")?.available).toBe(false);
  });
});

describe("a server with a small max_payload", () => {
  const MAX_PAYLOAD = 4096;
  const namespace = `batch-big-${randomUUID().slice(0, 8)}`;
  let server: ChildProcess;
  let sender: ServiceBroker;
  let receiver: ServiceBroker;

  beforeAll(async () => {
    const port = await freePort();
    const config = path.join(tempDir(), "nats.conf");
    fs.writeFileSync(config, `max_payload: ${MAX_PAYLOAD}\n`);
    server = spawn("nats-server", ["-a", "127.0.0.1", "-p", String(port), "-c", config], { stdio: "ignore" });
    const url = `nats://127.0.0.1:${port}`;
    for (let i = 0; i < 100; i++) {
      const nc = await connect({ servers: `127.0.0.1:${port}` }).catch(() => undefined);
      if (nc) {
        await nc.close();
        break;
      }
      await sleep(50);
    }
    sender = broker(namespace, "sender", url);
    receiver = broker(namespace, "receiver", url);
    echoService(receiver, []);
    await Promise.all([sender.start(), receiver.start()]);
    await sender.waitForServices(["echo-receiver"], 10_000);
  }, 20_000);
  afterAll(async () => {
    await sender?.stop();
    await receiver?.stop();
    server?.kill();
  });

  test("no batch is larger than it; a packet too large alone fails as before, its neighbours answered", async () => {
    const sent = published(sender);
    const pad = "x".repeat(1500);
    const calls = Array.from({ length: 6 }, (_, n) =>
      sender.call("echo-receiver.say", { n, pad: n === 3 ? pad.repeat(4) : pad }),
    );
    const outcomes = await Promise.allSettled(calls);
    const batches = sent.filter((m) => m.subject === `MOL-${namespace}.BATCH.receiver`);
    expect(batches.length).toBeGreaterThanOrEqual(2);
    for (const m of batches) expect(m.size).toBeLessThanOrEqual(MAX_PAYLOAD);
    // The one too large alone was tried alone, as before (nats.js refuses it before it leaves).
    const tooLarge = sent.filter((m) => m.size > MAX_PAYLOAD);
    expect(tooLarge).toEqual([{ subject: `MOL-${namespace}.REQ.receiver`, size: expect.any(Number) }]);
    expect(outcomes.map((o) => o.status)).toEqual([
      "fulfilled",
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
    ]);
    expect((outcomes[3] as PromiseRejectedResult).reason.code).toBe("MAX_PAYLOAD_EXCEEDED");
    expect(
      outcomes.flatMap((o) => (o.status === "fulfilled" ? [(o.value as { heard: number }).heard] : [])),
    ).toEqual([0, 1, 2, 4, 5]);
  });
});
