"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.CoalescingNatsTransporter = void 0;
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
 */
const moleculer_1 = require("moleculer");
class CoalescingNatsTransporter extends moleculer_1.Transporters.NATS {
    waiting = [];
    send(topic, data) {
        if (!this.client)
            return Promise.resolve();
        const sent = new Promise((resolve, reject) => {
            if (this.waiting.length === 0)
                setImmediate(() => this.publishWaiting());
            this.waiting.push({ topic, data, resolve, reject });
        });
        // Moleculer's publish used to throw at once; now a failure settles later. A caller that drops
        // the promise (Moleculer's balanced-event prepublish does) must not crash the process with an
        // unhandled rejection: it is marked handled here, and callers that await it still see it.
        sent.catch(() => undefined);
        return sent;
    }
    unsubscribeFromBalancedCommands() {
        this.publishWaiting();
        return super.unsubscribeFromBalancedCommands();
    }
    disconnect() {
        this.publishWaiting();
        // Moleculer's answers undefined when there is no client (already disconnected).
        return super.disconnect() ?? Promise.resolve();
    }
    /** Publishes every waiting packet, in order; each one's send settles as its publish did. */
    publishWaiting() {
        const batch = this.waiting;
        this.waiting = [];
        for (const packet of batch) {
            try {
                // A client gone meanwhile (disconnected) drops the packet, as send does without one.
                this.client?.publish(packet.topic, packet.data);
                packet.resolve();
            }
            catch (err) {
                packet.reject(err);
            }
        }
    }
}
exports.CoalescingNatsTransporter = CoalescingNatsTransporter;
//# sourceMappingURL=nats-transporter.js.map