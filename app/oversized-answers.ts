/**
 * An answer too big for the bus fails at once, saying so (docs/deployment.md#nats-and-mongodb).
 * NATS refuses a message over its `max_payload` (1 MiB by default). Moleculer logs the refusal on
 * the node that answered and sends nothing, so its caller waits out its whole timeout and answers
 * 504 as if the service were slow (a job list of 1,000 jobs did, in the chaos test). This
 * middleware wraps the transit's publish: an answer the bus refuses as too large is replaced by a
 * small error answer, so the caller gets 500 `ANSWER_TOO_LARGE` naming the size at once and can ask
 * for a smaller page (or the operator raise `max_payload`).
 */
import type { Middleware, ServiceBroker } from "moleculer";
import { AnswerTooLargeError } from "../shared/errors";

/** What the transit hands its publish: a packet with its type, target and payload. */
interface OutgoingPacket {
  type: string;
  target: string | null;
  payload: Record<string, unknown>;
}

const RESPONSE = "RES";

function tooLarge(err: unknown): boolean {
  const e = err as { code?: string; type?: string; message?: string } | null;
  return e?.code === "MAX_PAYLOAD_EXCEEDED" || /MAX_PAYLOAD_EXCEEDED|max.?payload/i.test(e?.message ?? "");
}

export function oversizedAnswersMiddleware(): Middleware {
  let broker: ServiceBroker;
  return {
    name: "OversizedAnswers",
    created(b: ServiceBroker) {
      broker = b;
    },
    transitPublish(next: (packet: OutgoingPacket) => Promise<unknown>) {
      return (packet: OutgoingPacket) =>
        next(packet).catch((err: unknown) => {
          if (packet.type !== RESPONSE || packet.payload.success !== true || !tooLarge(err)) throw err;
          const bytes = Buffer.byteLength(JSON.stringify(packet.payload.data ?? null));
          const error = new AnswerTooLargeError(
            `The answer (${bytes} bytes) is larger than the message bus carries (NATS max_payload): ` +
              "ask for a smaller page, or raise max_payload.",
            { bytes },
          );
          const transit = broker.transit as unknown as {
            _createPayloadErrorField(err: Error, payload: unknown): unknown;
          };
          const payload = { ...packet.payload, success: false, data: null };
          const replacement = {
            ...packet,
            payload: { ...payload, error: transit._createPayloadErrorField(error, payload) },
          };
          Object.setPrototypeOf(replacement, Object.getPrototypeOf(packet));
          return next(replacement);
        });
    },
  } as unknown as Middleware;
}
