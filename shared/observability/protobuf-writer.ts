/**
 * The protobuf writer of the platform's OTLP/protobuf encoding (./otlp-protobuf.ts, ./span-bytes.ts):
 * the SDK serializer's bytes (@opentelemetry/otlp-transformer 0.301) for varints, lengths, strings,
 * ids, times, and OTLP's common `AnyValue` and `KeyValue` messages.
 */
import type { HrTime } from "@opentelemetry/api";

/** An id that is not hex digits of its size: the SDK's serializer takes that batch. */
export class NotHex extends Error {}

/** A hex digit's value by its character code (either case), -1 for any other character. */
const HEX_DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) {
  HEX_DIGIT["0123456789abcdef".charCodeAt(i)] = i;
  HEX_DIGIT["0123456789ABCDEF".charCodeAt(i)] = i;
}

/** The SDK's `hexToBinary` digit value of any character (./otlp-protobuf.ts's `sdkIds`). */
function sdkDigit(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  return code - 55;
}

const MIN_64_BIT_INT = -(2 ** 63);
const MAX_64_BIT_INT = 2 ** 63;

/**
 * The protobuf writer, kept between batches (the bytes handed out are a copy). Its buffer grows to
 * the largest request written and stays: a request is one batch (OTEL_BSP_MAX_EXPORT_BATCH_SIZE
 * spans, 512 by default, about 200 KB for a traced read's spans).
 */
export class Writer {
  buf = Buffer.allocUnsafe(64 * 1024);
  pos = 0;

  private room(size: number): void {
    if (this.pos + size <= this.buf.length) return;
    let length = this.buf.length * 2;
    while (length < this.pos + size) length *= 2;
    const grown = Buffer.allocUnsafe(length);
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  /** The SDK's `writeVarint`, a negative or a 64-bit value included. */
  varint(value: number): void {
    this.room(10);
    const buf = this.buf;
    if (value >= 0 && value <= 4294967295) {
      let v = value >>> 0;
      while (v > 127) {
        buf[this.pos++] = (v & 127) | 128;
        v >>>= 7;
      }
      buf[this.pos++] = v;
      return;
    }
    let low: number;
    let high: number;
    if (value >= 0) {
      low = value >>> 0;
      high = (value / 4294967296) >>> 0;
    } else {
      const abs = Math.abs(value);
      low = ~(abs >>> 0) >>> 0;
      high = ~((abs / 4294967296) >>> 0) >>> 0;
      low = (low + 1) >>> 0;
      if (low === 0) high = (high + 1) >>> 0;
    }
    while (high > 0 || low > 127) {
      buf[this.pos++] = (low & 127) | 128;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    buf[this.pos++] = low & 127;
  }

  tag(field: number, wire: number): void {
    const key = (field << 3) | wire;
    if (key > 127) return this.varint(key);
    this.room(1);
    this.buf[this.pos++] = key;
  }

  /** A length to come: one byte reserved, as the SDK's writer reserves. */
  start(): number {
    this.room(1);
    return this.pos++;
  }

  /** The length of what was written since `start`, in its varint (what follows moved if longer). */
  finish(at: number): void {
    const length = this.pos - at - 1;
    if (length < 128) {
      this.buf[at] = length;
      return;
    }
    const size = length < 16384 ? 2 : length < 2097152 ? 3 : length < 268435456 ? 4 : 5;
    this.room(size - 1);
    this.buf.copyWithin(at + size, at + 1, this.pos);
    this.pos += size - 1;
    let v = length;
    let p = at;
    while (v > 127) {
      this.buf[p++] = (v & 127) | 128;
      v >>>= 7;
    }
    this.buf[p] = v;
  }

  /** UTF-8 with its length; the SDK's TextEncoder and Buffer both write a lone surrogate as U+FFFD. */
  string(text: string): void {
    const length = text.length;
    if (length < 128) {
      // Most are short ASCII: its one-byte length, then a byte a character, in one loop.
      this.room(length + 1);
      const buf = this.buf;
      let p = this.pos + 1;
      for (let i = 0; i < length; i++) {
        const code = text.charCodeAt(i);
        if (code > 127) return this.utf8(text);
        buf[p++] = code;
      }
      buf[this.pos] = length;
      this.pos = p;
      return;
    }
    for (let i = 0; i < length; i++) if (text.charCodeAt(i) > 127) return this.utf8(text);
    this.varint(length);
    this.room(length);
    this.pos += this.buf.write(text, this.pos, length, "latin1");
  }

  private utf8(text: string): void {
    const bytes = Buffer.byteLength(text, "utf8");
    this.varint(bytes);
    this.room(bytes);
    this.pos += this.buf.write(text, this.pos, bytes, "utf8");
  }

  /**
   * Whether an id that is not hex is written as the SDK's `hexToBinary` writes it (its digit values
   * for any character) instead of refused: set for a batch that holds spans already written
   * (./span-bytes.ts), which the SDK's serializer could not take over.
   */
  sdkIds = false;

  /** An id's bytes from its hex digits (the SDK's `hexToBinary`, without a `Uint8Array` for it). */
  id(hex: string): void {
    const size = hex.length >>> 1;
    if (hex.length !== size * 2) {
      if (this.sdkIds) throw new RangeError(`Invalid typed array length: ${hex.length / 2}`);
      throw new NotHex();
    }
    this.varint(size);
    this.room(size);
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < hex.length; i += 2) {
      let high = HEX_DIGIT[hex.charCodeAt(i)] ?? -1;
      let low = HEX_DIGIT[hex.charCodeAt(i + 1)] ?? -1;
      if (high < 0 || low < 0) {
        if (!this.sdkIds) throw new NotHex();
        [high, low] = [sdkDigit(hex.charCodeAt(i)), sdkDigit(hex.charCodeAt(i + 1))];
      }
      buf[p++] = (high << 4) | low;
    }
    this.pos = p;
  }

  /**
   * The first `size` bytes of a UUID's hex digits (the ids of contexts and spans, ../context-ids.ts),
   * read past its dashes; false, with nothing written, when `id` is not a UUID.
   */
  uuid(id: string, size: 8 | 16): boolean {
    if (id.length !== 36) return false;
    if (id.charCodeAt(8) !== 45 || id.charCodeAt(13) !== 45 || id.charCodeAt(18) !== 45) return false;
    if (id.charCodeAt(23) !== 45) return false;
    this.room(size + 1);
    const buf = this.buf;
    let p = this.pos;
    buf[p++] = size;
    for (let i = 0, n = 0; n < size; n++, i += 2) {
      // The dashes sit between pairs of digits (groups of 8, 4, 4, 4 and 12).
      if (i === 8 || i === 13 || i === 18 || i === 23) i++;
      const high = HEX_DIGIT[id.charCodeAt(i)] ?? -1;
      const low = HEX_DIGIT[id.charCodeAt(i + 1)] ?? -1;
      if (high < 0 || low < 0) return false;
      buf[p++] = (high << 4) | low;
    }
    this.pos = p;
    return true;
  }

  /** Bytes written elsewhere (a span's message, ./span-bytes.ts), with their length. */
  copied(from: Buffer, start: number, end: number): void {
    this.varint(end - start);
    this.room(end - start);
    this.pos += from.copy(this.buf, this.pos, start, end);
  }

  /** Bytes written before (./attribute-bytes.ts), as they are. */
  raw(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  bytes(value: Uint8Array): void {
    this.varint(value.length);
    this.room(value.length);
    this.buf.set(value, this.pos);
    this.pos += value.length;
  }

  fixed32(value: number): void {
    this.room(4);
    this.buf.writeUInt32LE(value >>> 0, this.pos);
    this.pos += 4;
  }

  double(value: number): void {
    this.room(8);
    this.buf.writeDoubleLE(value, this.pos);
    this.pos += 8;
  }

  /** [seconds, nanoseconds] as fixed64 nanoseconds (the SDK's `writeHrTimeAsFixed64`). */
  time(hrTime: HrTime): void {
    this.timeOf(hrTime[0], hrTime[1]);
  }

  timeOf(seconds: number, nanos: number): void {
    const fromLower16Bits = (seconds & 65535) * 1e9;
    const fromUpperBits = ((seconds / 65536) >>> 0) * 1e9;
    const withCarry = (fromLower16Bits >>> 0) + (((fromUpperBits & 65535) * 65536) >>> 0) + nanos;
    const high =
      (Math.floor(fromLower16Bits / 4294967296) +
        ((fromUpperBits / 65536) >>> 0) +
        Math.floor(withCarry / 4294967296)) >>>
      0;
    this.room(8);
    this.buf.writeUInt32LE(withCarry >>> 0, this.pos);
    this.buf.writeUInt32LE(high, this.pos + 4);
    this.pos += 8;
  }
}

export function anyValue(w: Writer, value: unknown): void {
  const type = typeof value;
  if (type === "string") {
    w.tag(1, 2);
    w.string(value as string);
  } else if (type === "boolean") {
    w.tag(2, 0);
    w.varint(value ? 1 : 0);
  } else if (type === "number") {
    const number = value as number;
    if (Number.isInteger(number) && number >= MIN_64_BIT_INT && number < MAX_64_BIT_INT) {
      w.tag(3, 0);
      w.varint(number);
    } else {
      w.tag(4, 1);
      w.double(number);
    }
  } else if (value instanceof Uint8Array) {
    w.tag(7, 2);
    w.bytes(value);
  } else if (Array.isArray(value)) {
    w.tag(5, 2);
    const array = w.start();
    for (const item of value) {
      w.tag(1, 2);
      const at = w.start();
      anyValue(w, item);
      w.finish(at);
    }
    w.finish(array);
  } else if (type === "object" && value != null) {
    w.tag(6, 2);
    const list = w.start();
    const object = value as Record<string, unknown>;
    for (const key in object) {
      if (!Object.prototype.hasOwnProperty.call(object, key)) continue;
      w.tag(1, 2);
      keyValue(w, key, object[key]);
    }
    w.finish(list);
  }
}

/** A KeyValue message with its length (the caller wrote its tag). */
export function keyValue(w: Writer, key: string, value: unknown): void {
  const at = w.start();
  w.tag(1, 2);
  w.string(key);
  w.tag(2, 2);
  const valueAt = w.start();
  anyValue(w, value);
  w.finish(valueAt);
  w.finish(at);
}
