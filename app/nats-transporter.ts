/**
 * Moleculer's NATS transporter, with the packets a node sends in one turn of the event loop
 * handed to the NATS client together, so they leave in one socket write.
 *
 * Why: over NATS, socket writes were the largest single cost of every process (a quarter to a third
 * of busy time, docs/performance.md). The NATS client already writes everything published before
 * its next microtask in one go, but Moleculer publishes each packet after a few promise hops of its
 * own, so under load nearly every packet (a request, its response, each event) cost a write of its
 * own, and the same again as a read on the other side and in nats-server.
 *
 * Here a packet waits for the end of the current event-loop turn (setImmediate): everything the node
 * sends while handling one batch of incoming data goes out together. It adds no timer: an idle node
 * sends at once, after the work in hand. Order is kept. Before anything that waits for the server to
 * have seen what was sent (flush on unsubscribe and on disconnect), the waiting packets go first.
 *
 * The packets of a turn to one node that understands it go as one NATS message (./nats-batch.ts):
 * one message for nats-server to route and for the receiver to parse, not one per packet. What any
 * one node sees keeps its order: a batch stops at the first packet that is not to one node
 * (a broadcast, a balanced request or event), and the next packets to that node start another.
 */
import { Transporters } from "moleculer";
import { createInbox, type Msg } from "nats";
import { DepartedNodes, type OutgoingPacket } from "./departed-nodes";
import { BATCH_FLAG, BATCH_VERSION, batchSubject, decodeBatch, encodeBatch, framedSize } from "./nats-batch";

interface Waiting {
  topic: string;
  data: Buffer;
  packet?: OutgoingPacket;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** Packets of one turn to one node, sent as one message. */
interface Batch {
  target: string;
  packets: Waiting[];
  size: number;
}

/** nats-server's default; the server's own figure is used once connected. */
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

interface NodeRegistry {
  nodes: {
    get(nodeID: string): { metadata?: Record<string, unknown> | null } | undefined;
    localNode?: { metadata?: Record<string, unknown> | null };
  };
}

export class CoalescingNatsTransporter extends Transporters.NATS {
  private waiting: Waiting[] = [];
  /** Packets to one node carry a reply subject: a dead node is known at once (./departed-nodes.ts). */
  private departed?: DepartedNodes;

  /** Other nodes learn from this node's info that it takes batches (set before that info is made). */
  override init(...args: Parameters<Transporters.NATS["init"]>): void {
    super.init(...args);
    const metadata = { ...this.broker.metadata, [BATCH_FLAG]: BATCH_VERSION };
    this.broker.metadata = metadata;
    // The registry made the local node (with the broker's metadata) before the transit existed.
    const local = (this.broker.registry as unknown as NodeRegistry).nodes.localNode;
    if (local) local.metadata = metadata;
  }

  /** Moleculer subscribes here after each fresh connection: this node's inbox and batches go with the rest. */
  override makeSubscriptions(topics: Record<string, any>[]): Promise<void> {
    this.departed?.stop();
    const departed = new DepartedNodes(this.broker, createInbox());
    this.client.subscribe(`${departed.inbox}.>`, {
      callback: (_err: unknown, msg: Msg) => departed.received(msg.subject, msg.headers?.code),
    });
    departed.start();
    this.departed = departed;
    this.client.subscribe(batchSubject(this.prefix, this.nodeID), {
      callback: (_err: unknown, msg: Msg) => this.receiveBatch(msg.data),
    });
    return super.makeSubscriptions(topics);
  }

  override send(topic: string, data: Buffer, meta?: { packet?: OutgoingPacket }): Promise<void> {
    if (!this.client) return Promise.resolve();
    const packet = meta?.packet;
    const sent = new Promise<void>((resolve, reject) => {
      if (this.waiting.length === 0) setImmediate(() => this.publishWaiting());
      this.waiting.push({ topic, data, packet, resolve, reject });
    });
    // Moleculer's publish used to throw at once; now a failure settles later. A caller that drops
    // the promise (Moleculer's balanced-event prepublish does) must not crash the process with an
    // unhandled rejection: it is marked handled here, and callers that await it still see it.
    sent.catch(() => undefined);
    return sent;
  }

  override unsubscribeFromBalancedCommands(): Promise<void> {
    this.publishWaiting();
    return super.unsubscribeFromBalancedCommands();
  }

  override disconnect(): Promise<void> {
    this.departed?.stop();
    this.publishWaiting();
    // Moleculer's answers undefined when there is no client (already disconnected).
    return super.disconnect() ?? Promise.resolve();
  }

  /** Publishes every waiting packet, in order, those of one turn to one node together (see above). */
  private publishWaiting(): void {
    const waiting = this.waiting;
    this.waiting = [];
    const maxPayload = this.client?.info?.max_payload ?? DEFAULT_MAX_PAYLOAD;
    const open = new Map<string, Batch>();
    const outgoing: (Waiting | Batch)[] = [];
    for (const packet of waiting) {
      const target = this.batchTarget(packet);
      const size = target === undefined ? 0 : framedSize({ type: packet.packet!.type, data: packet.data });
      if (target === undefined || size > maxPayload) {
        // Whatever the nodes see beside their own packets closes every batch: none crosses it.
        open.clear();
        outgoing.push(packet);
        continue;
      }
      let batch = open.get(target);
      if (batch && batch.size + size > maxPayload) batch = undefined;
      if (!batch) {
        batch = { target, packets: [], size: 0 };
        open.set(target, batch);
        outgoing.push(batch);
      }
      batch.packets.push(packet);
      batch.size += size;
    }
    for (const item of outgoing) {
      if ("target" in item && item.packets.length > 1) this.publishBatch(item);
      else for (const packet of "target" in item ? item.packets : [item]) this.publishOne(packet);
    }
  }

  /** The node a packet may go to in a batch: one that says it takes them, on its own subject. */
  private batchTarget({ topic, packet }: Waiting): string | undefined {
    const target = packet?.target;
    if (!target || topic !== `${this.prefix}.${packet.type}.${target}`) return undefined;
    const node = (this.broker.registry as unknown as NodeRegistry).nodes.get(target);
    return node?.metadata?.[BATCH_FLAG] === BATCH_VERSION ? target : undefined;
  }

  /** Each send settles as its publish did. */
  private publishOne(packet: Waiting): void {
    try {
      const reply = this.departed?.replyFor(packet.packet);
      // A client gone meanwhile (disconnected) drops the packet, as send does without one.
      this.client?.publish(packet.topic, packet.data, reply ? { reply } : undefined);
      packet.resolve();
    } catch (err) {
      packet.reject(err);
    }
  }

  /** One message; every send in it settles as that publish did. */
  private publishBatch({ target, packets, size }: Batch): void {
    try {
      const data = encodeBatch(
        packets.map(({ packet, data }) => ({ type: packet!.type, data })),
        size,
      );
      const reply = this.departed?.replyForBatch(
        target,
        packets.map(({ packet }) => packet!),
      );
      this.client?.publish(batchSubject(this.prefix, target), data, reply ? { reply } : undefined);
      for (const packet of packets) packet.resolve();
    } catch (err) {
      for (const packet of packets) packet.reject(err);
    }
  }

  /** Each packet of a batch to Moleculer, in order, as if each had come alone. */
  private receiveBatch(bytes: Uint8Array): void {
    let packets;
    try {
      packets = decodeBatch(Buffer.from(bytes));
    } catch (err) {
      this.logger.warn("Invalid incoming NATS batch:", err);
      return;
    }
    for (const { type, data } of packets) this.receive(type, data);
  }
}
