/**
 * The ids of Moleculer's contexts and spans (broker option `uidGenerator`): random UUIDs (version 4),
 * made as one flat string.
 *
 * Moleculer's own generator (`utils.generateToken`), like Node's `crypto.randomUUID`, joins the id
 * from 20 pieces with `+`: V8 keeps the result as a rope (a tree of some 20 strings), and whoever
 * first hashes, compares or reads the id by character (a map keyed by request id, a span's id
 * written as bytes, a packet's JSON) copies the rope into a flat string first
 * (docs/performance-rounds.md, forty-sixth round). Here the id's characters are written into a
 * buffer and read out once as a flat string. Its random bytes come from the system's CSPRNG, where
 * Moleculer's come from `Math.random`, whose next outputs follow from a few seen ones.
 */
import { randomFillSync } from "node:crypto";

/** A byte's two hex digits as char codes, low byte first. */
const HEX_PAIRS = new Uint16Array(256);
for (let byte = 0; byte < 256; byte++) {
  const hex = byte.toString(16).padStart(2, "0");
  HEX_PAIRS[byte] = hex.charCodeAt(0) | (hex.charCodeAt(1) << 8);
}
/** Where each of the 16 bytes' digits go in `xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx`. */
const AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

/** Random bytes for 256 ids at a time (crypto.randomUUID's cache holds 128). */
const pool = Buffer.allocUnsafe(16 * 256);
let used = pool.length;
const text = Buffer.alloc(36, "-");

export function contextId(): string {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  for (let i = 0; i < 16; i++) {
    let byte = pool[used + i];
    // RFC 9562: the version (4) in byte 6's high nibble, the variant (10) in byte 8's top bits.
    if (i === 6) byte = (byte & 0x0f) | 0x40;
    else if (i === 8) byte = (byte & 0x3f) | 0x80;
    const pair = HEX_PAIRS[byte];
    const at = AT[i];
    text[at] = pair & 255;
    text[at + 1] = pair >>> 8;
  }
  used += 16;
  return text.toString("latin1", 0, 36);
}
