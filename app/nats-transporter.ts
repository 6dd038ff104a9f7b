/**
 * Moleculer's NATS transporter, with the packets a node sends in one turn of the event loop
 * handed to the NATS client together, so they leave in one socket write.
 *
 * Why: the NATS client writes everything published before its next microtask in one go, but
 * Moleculer publishes each packet after a few promise hops of its own, so under load nearly every
 * packet (a request, its response, each event) cost a write of its own, and the same again as a
 * read on the other side and in nats-server. (Socket writes looked like a quarter to a third of every
 * process's time in V8's profiles; most of that was time waiting for a CPU after the write woke
 * another process, docs/performance-rounds.md, twenty-fifth round.)
 *
 * Here a packet waits for the end of the current event-loop turn (setImmediate): everything the node
 * sends while handling one batch of incoming data goes out together. It adds no timer: an idle node
 * sends at once, after the work in hand. Order is kept. Before anything that waits for the server to
 * have seen what was sent (flush on unsubscribe and on disconnect), the waiting packets go first.
 */
import { Transporters } from "moleculer";
import { createInbox, type Msg } from "nats";
import { DepartedNodes, type OutgoingPacket } from "./departed-nodes";

interface Waiting {
  topic: string;
  data: Buffer;
  reply?: string;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class CoalescingNatsTransporter extends Transporters.NATS {
  private waiting: Waiting[] = [];
  /** Packets to one node carry a reply subject: a dead node is known at once (./departed-nodes.ts). */
  private departed?: DepartedNodes;

  /** Moleculer subscribes here after each fresh connection: this node's inbox goes with the rest. */
  override makeSubscriptions(topics: Record<string, any>[]): Promise<void> {
    this.departed?.stop();
    const departed = new DepartedNodes(this.broker, createInbox());
    this.client.subscribe(`${departed.inbox}.>`, {
      callback: (_err: unknown, msg: Msg) => departed.received(msg.subject, msg.headers?.code),
    });
    departed.start();
    this.departed = departed;
    return super.makeSubscriptions(topics);
  }

  override send(topic: string, data: Buffer, meta?: { packet?: OutgoingPacket }): Promise<void> {
    if (!this.client) return Promise.resolve();
    const reply = this.departed?.replyFor(meta?.packet);
    const sent = new Promise<void>((resolve, reject) => {
      if (this.waiting.length === 0) setImmediate(() => this.publishWaiting());
      this.waiting.push({ topic, data, reply, resolve, reject });
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

  /** Publishes every waiting packet, in order; each one's send settles as its publish did. */
  private publishWaiting(): void {
    const batch = this.waiting;
    this.waiting = [];
    for (const packet of batch) {
      try {
        // A client gone meanwhile (disconnected) drops the packet, as send does without one.
        this.client?.publish(packet.topic, packet.data, packet.reply ? { reply: packet.reply } : undefined);
        packet.resolve();
      } catch (err) {
        packet.reject(err);
      }
    }
  }
}
