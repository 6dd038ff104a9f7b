/**
 * Several Moleculer packets to one node as one NATS message (app/nats-transporter.ts).
 *
 * Why: each NATS message is routed on its own by nats-server, parsed on its own by the receiver's
 * NATS client and handed to Moleculer by its own callback. A node sends several packets to the same
 * node in one turn of the event loop (the engine: a store batch and the task's call; the store: the
 * answers of several engine requests), so one message carries them all.
 *
 * A batch goes to `<prefix>.BATCH.<node>`, a subject the receiving node subscribes to only if it
 * understands batches; it says so in its node info (`metadata[BATCH_FLAG]`), and no batch is sent to
 * a node that does not (an older release during a rolling upgrade gets each packet alone).
 *
 * The framing, packet after packet: the packet's type (1 byte: its length, then its ASCII name,
 * "REQ", "RES", "EVENT"...) and its bytes (4 bytes, big-endian: their length, then the bytes).
 */

/** In a node's metadata: this node takes batches on `<prefix>.BATCH.<nodeID>`. */
export const BATCH_FLAG = "natsBatch";
export const BATCH_VERSION = 1;

export const batchSubject = (prefix: string, nodeID: string) => `${prefix}.BATCH.${nodeID}`;

export interface Framed {
  type: string;
  data: Buffer;
}

/** The bytes a packet takes in a batch. */
export const framedSize = (packet: Framed) => 1 + packet.type.length + 4 + packet.data.length;

export function encodeBatch(packets: Framed[], size: number): Buffer {
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const { type, data } of packets) {
    out[at++] = type.length;
    at += out.write(type, at, "latin1");
    out.writeUInt32BE(data.length, at);
    at += 4;
    at += data.copy(out, at);
  }
  return out;
}

/** The packets of a batch, in order (views of its bytes); throws on bytes that are not a whole batch. */
export function decodeBatch(batch: Buffer): Framed[] {
  const packets: Framed[] = [];
  let at = 0;
  while (at < batch.length) {
    const typeEnd = at + 1 + batch[at]!;
    if (typeEnd + 4 > batch.length) throw new Error("truncated NATS batch");
    const dataEnd = typeEnd + 4 + batch.readUInt32BE(typeEnd);
    if (dataEnd > batch.length) throw new Error("truncated NATS batch");
    packets.push({
      type: batch.toString("latin1", at + 1, typeEnd),
      data: batch.subarray(typeEnd + 4, dataEnd),
    });
    at = dataEnd;
  }
  return packets;
}
