/**
 * The OTLP/protobuf encoding of a batch of finished spans, byte for byte what the SDK's own
 * serializer writes (@opentelemetry/otlp-transformer 0.301, `ProtobufTraceSerializer`), in one
 * pass instead of two (docs/performance.md, "Tracing, eighth round").
 *
 * The SDK's serializer walks every span twice, once to size the request and once to write it, and
 * turns each of a span's three ids into a new `Uint8Array` on each walk; it was about half of a
 * sampled span's export. Here a request is written once into a buffer kept between batches (a
 * length that outgrows its one reserved byte moves what follows it, as the SDK's writer does),
 * ids are written from their hex digits in place, and the bytes are copied out at the end.
 * Anything this writer cannot write as the SDK would (an id that is not hex of its length) makes it
 * answer null and the SDK's serializer writes that batch. test/observability/otlp-protobuf.test.ts
 * compares both encodings byte for byte.
 */
import type { Attributes, AttributeValue, HrTime, SpanContext } from "@opentelemetry/api";
import type { ReadableSpan, TimedEvent } from "@opentelemetry/sdk-trace";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";

/** An id that is not hex digits of its size: the SDK's serializer takes that batch. */
class NotHex extends Error {}

/** A hex digit's value by its character code (either case), -1 for any other character. */
const HEX_DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) {
  HEX_DIGIT["0123456789abcdef".charCodeAt(i)] = i;
  HEX_DIGIT["0123456789ABCDEF".charCodeAt(i)] = i;
}

const MIN_64_BIT_INT = -(2 ** 63);
const MAX_64_BIT_INT = 2 ** 63;

/**
 * The protobuf writer, kept between batches (the bytes handed out are a copy). Its buffer grows to
 * the largest request written and stays: a request is one batch (OTEL_BSP_MAX_EXPORT_BATCH_SIZE
 * spans, 512 by default, about 200 KB for a traced read's spans).
 */
class Writer {
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

  /** An id's bytes from its hex digits (the SDK's `hexToBinary`, without a `Uint8Array` for it). */
  id(hex: string): void {
    const size = hex.length >>> 1;
    if (hex.length !== size * 2) throw new NotHex();
    this.varint(size);
    this.room(size);
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < hex.length; i += 2) {
      const high = HEX_DIGIT[hex.charCodeAt(i)] ?? -1;
      const low = HEX_DIGIT[hex.charCodeAt(i + 1)] ?? -1;
      if (high < 0 || low < 0) throw new NotHex();
      buf[p++] = (high << 4) | low;
    }
    this.pos = p;
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
    const [seconds, nanos] = hrTime;
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

function anyValue(w: Writer, value: unknown): void {
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
function keyValue(w: Writer, key: string, value: unknown): void {
  const at = w.start();
  w.tag(1, 2);
  w.string(key);
  w.tag(2, 2);
  const valueAt = w.start();
  anyValue(w, value);
  w.finish(valueAt);
  w.finish(at);
}

function attributes(
  w: Writer,
  attrs: Attributes | Record<string, AttributeValue | undefined>,
  field: number,
): void {
  for (const key in attrs) {
    if (!Object.prototype.hasOwnProperty.call(attrs, key)) continue;
    w.tag(field, 2);
    keyValue(w, key, attrs[key]);
  }
}

const flagsOf = (traceFlags: number, isRemote: boolean | undefined) =>
  (traceFlags & 255) | 256 | (isRemote ? 512 : 0);

function event(w: Writer, e: TimedEvent): void {
  const at = w.start();
  w.tag(1, 1);
  w.time(e.time);
  w.tag(2, 2);
  w.string(e.name);
  if (e.attributes) attributes(w, e.attributes, 3);
  w.tag(4, 0);
  w.varint(e.droppedAttributesCount || 0);
  w.finish(at);
}

/** Fields 1-3 of a Span and of a Span.Link alike: trace id, span id, trace state when there is one. */
function ids(w: Writer, context: SpanContext): void {
  w.tag(1, 2);
  w.id(context.traceId);
  w.tag(2, 2);
  w.id(context.spanId);
  const traceState = context.traceState?.serialize();
  if (traceState) {
    w.tag(3, 2);
    w.string(traceState);
  }
}

function link(w: Writer, l: ReadableSpan["links"][number]): void {
  const at = w.start();
  const context: SpanContext = l.context;
  ids(w, context);
  if (l.attributes) attributes(w, l.attributes, 4);
  w.tag(5, 0);
  w.varint(l.droppedAttributesCount || 0);
  w.tag(6, 5);
  w.fixed32(flagsOf(context.traceFlags, context.isRemote));
  w.finish(at);
}

function span(w: Writer, s: ReadableSpan): void {
  const at = w.start();
  const context = s.spanContext();
  ids(w, context);
  if (s.parentSpanContext?.spanId) {
    w.tag(4, 2);
    w.id(s.parentSpanContext.spanId);
  }
  w.tag(5, 2);
  w.string(s.name);
  const kind = s.kind == null ? 0 : s.kind + 1;
  if (kind !== 0) {
    w.tag(6, 0);
    w.varint(kind);
  }
  w.tag(7, 1);
  w.time(s.startTime);
  w.tag(8, 1);
  w.time(s.endTime);
  if (s.attributes) attributes(w, s.attributes, 9);
  w.tag(10, 0);
  w.varint(s.droppedAttributesCount);
  for (const e of s.events) {
    w.tag(11, 2);
    event(w, e);
  }
  w.tag(12, 0);
  w.varint(s.droppedEventsCount);
  for (const l of s.links) {
    w.tag(13, 2);
    link(w, l);
  }
  w.tag(14, 0);
  w.varint(s.droppedLinksCount);
  w.tag(15, 2);
  const status = w.start();
  if (s.status.message) {
    w.tag(2, 2);
    w.string(s.status.message);
  }
  w.tag(3, 0);
  w.varint(s.status.code);
  w.finish(status);
  w.tag(16, 5);
  w.fixed32(flagsOf(context.traceFlags, s.parentSpanContext?.isRemote));
  w.finish(at);
}

type Scope = ReadableSpan["instrumentationScope"] & {
  attributes?: Attributes;
  droppedAttributesCount?: number;
};
type Resource = ReadableSpan["resource"] & { schemaUrl?: string };

function scopeSpans(w: Writer, spans: ReadableSpan[]): void {
  const at = w.start();
  const scope = spans[0].instrumentationScope as Scope;
  w.tag(1, 2);
  const scopeAt = w.start();
  w.tag(1, 2);
  w.string(scope.name);
  if (scope.version) {
    w.tag(2, 2);
    w.string(scope.version);
  }
  if (scope.attributes) attributes(w, scope.attributes, 3);
  if (scope.droppedAttributesCount) {
    w.tag(4, 0);
    w.varint(scope.droppedAttributesCount);
  }
  w.finish(scopeAt);
  for (const s of spans) {
    w.tag(2, 2);
    span(w, s);
  }
  if (scope.schemaUrl) {
    w.tag(3, 2);
    w.string(scope.schemaUrl);
  }
  w.finish(at);
}

function resourceSpans(w: Writer, resource: Resource, scopes: Map<unknown, ReadableSpan[]>): void {
  const at = w.start();
  w.tag(1, 2);
  const resourceAt = w.start();
  if (resource.attributes) attributes(w, resource.attributes, 1);
  w.tag(2, 0);
  w.varint(0);
  w.finish(resourceAt);
  for (const spans of scopes.values()) {
    w.tag(2, 2);
    scopeSpans(w, spans);
  }
  if (resource.schemaUrl) {
    w.tag(3, 2);
    w.string(resource.schemaUrl);
  }
  w.finish(at);
}

const writer = new Writer();

/**
 * An ExportTraceServiceRequest of `spans`, the SDK serializer's bytes; null when an id is not hex
 * (the SDK's serializer then writes the batch).
 */
export function encodeSpans(spans: ReadableSpan[]): Uint8Array | null {
  // Grouped by resource, then scope, by identity and in order of first appearance, as the SDK groups.
  const resources = new Map<Resource, Map<unknown, ReadableSpan[]>>();
  for (const s of spans) {
    let scopes = resources.get(s.resource);
    if (!scopes) resources.set(s.resource, (scopes = new Map()));
    const group = scopes.get(s.instrumentationScope);
    if (group) group.push(s);
    else scopes.set(s.instrumentationScope, [s]);
  }
  writer.pos = 0;
  try {
    for (const [resource, scopes] of resources) {
      writer.tag(1, 2);
      resourceSpans(writer, resource, scopes);
    }
  } catch (err) {
    if (err instanceof NotHex) return null;
    throw err;
  }
  const out = new Uint8Array(writer.pos);
  out.set(writer.buf.subarray(0, writer.pos));
  return out;
}

/** The SDK's trace serializer with this writer in front (the same object shape). */
export const ownTraceSerializer = {
  serializeRequest: (spans: ReadableSpan[]): Uint8Array | undefined =>
    encodeSpans(spans) ?? ProtobufTraceSerializer.serializeRequest(spans),
  deserializeResponse: ProtobufTraceSerializer.deserializeResponse,
};

interface Node {
  _spanProcessors?: unknown[];
  _exporter?: { _delegate?: { _serializer?: unknown } };
}

/**
 * Puts this writer in place of the SDK's protobuf serializer in every OTLP exporter behind the span
 * processor (the NodeSDK's, built from OTEL_EXPORTER_OTLP_*: its transport, headers, compression and
 * retries stay the SDK's; the JSON protocol keeps the SDK's JSON serializer). How many it replaced.
 */
export function encodeWithOwnWriter(processor: unknown): number {
  const node = processor as Node | null | undefined;
  if (!node) return 0;
  let replaced = 0;
  for (const inner of node._spanProcessors ?? []) replaced += encodeWithOwnWriter(inner);
  const delegate = node._exporter?._delegate;
  if (delegate?._serializer === ProtobufTraceSerializer) {
    delegate._serializer = ownTraceSerializer;
    replaced++;
  }
  return replaced;
}
