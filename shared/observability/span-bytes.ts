/**
 * A finished Moleculer span written as its OTLP/protobuf `Span` message when it is handed over, and
 * only those bytes held for the batch (docs/performance-rounds.md, "Tracing, ninth round").
 *
 * A sampled span used to become a `ReadableSpan` (an attributes object, ids as hex strings, three
 * times, a status, two contexts: ./span-export.ts), wait in the batch processor's queue for up to
 * a batch (512 spans, about a third of a second at 10 % of a busy gateway's reads sampled: long
 * enough to be promoted to the old generation), and be read again at export by the encoder. Here
 * its message is written once, from the Moleculer span, into a chunk of bytes shared by the spans
 * written after it; the processor queues an `EncodedSpan` (the chunk and where its message lies)
 * and the export copies those bytes into the request (./otlp-protobuf.ts). A chunk is never written
 * again once a span's bytes are in it, so a request retried or a batch still queued reads what was
 * written. The bytes are those the SDK's serializer writes for the `ReadableSpan` of the other path
 * (test/observability/span-bytes.test.ts compares them).
 *
 * Only for the SDK's default sampler, no value length limit, and processors whose every exporter
 * writes with the platform's writer (`SpanSink.bytes`, ./span-export.ts); a span whose attributes
 * this writer cannot place as that object would (a key with a dot, an empty, numeric or
 * `__proto__` key, a tag named as the component, more attributes than the count limit) takes the
 * other path.
 */
import { SpanStatusCode, TraceFlags, type SpanContext } from "@opentelemetry/api";
import { AttributeBytes, type AttributeValue } from "./attribute-bytes";
import { Writer, keyValue } from "./protobuf-writer";
import {
  COMPONENT,
  componentOf,
  errorOf,
  flattenTags,
  hexId,
  kindOf,
  type MoleculerSpan,
} from "./moleculer-span";

/** What the batch and simple span processors read of a span: sampled, and its resource. */
const SAMPLED_CONTEXT: SpanContext = Object.freeze({
  traceId: "",
  spanId: "",
  traceFlags: TraceFlags.SAMPLED,
});

/** A span's OTLP `Span` message, bytes `start` to `end` of `chunk`, with its resource and scope. */
export class EncodedSpan {
  constructor(
    readonly chunk: Buffer,
    readonly start: number,
    readonly end: number,
    readonly resource: unknown,
    readonly instrumentationScope: unknown,
  ) {}
  spanContext(): SpanContext {
    return SAMPLED_CONTEXT;
  }
}

/** A fresh chunk's size; a span starts in a fresh one when less than SPARE is left. */
const CHUNK = 64 * 1024;
const SPARE = 8 * 1024;
const writer = new Writer();
writer.buf = Buffer.allocUnsafe(CHUNK);

/** Epoch milliseconds as [seconds, nanoseconds], as @opentelemetry/core's `millisToHrTime`. */
export function hrTime(ms: number): [number, number] {
  return [Math.trunc(ms / 1e3), Math.round((ms % 1e3) * 1e6)];
}

/** What the writer needs of the SDK's tracer. */
export interface BytesTarget {
  resource: unknown;
  scope: unknown;
  countLimit: number;
}

/** An id from a UUID's digits in place, else from its hex (a caller's request id, hashed). */
function id(w: Writer, field: number, value: string, size: 8 | 16): void {
  w.tag(field, 2);
  if (!w.uuid(value, size)) w.id(hexId(value, size === 16 ? 32 : 16));
}

/** Attributes' bytes written lately, copied instead of written again. */
const attributes = new AttributeBytes();

/** The attribute `name` = `value` as the span's field 9, from its kept bytes when it has some. */
function attribute(w: Writer, name: string, value: AttributeValue): void {
  const kept = attributes.of(name);
  const bytes = kept?.values.get(value);
  if (bytes !== undefined) {
    kept!.hits++;
    w.raw(bytes);
    return;
  }
  const start = w.pos;
  w.tag(9, 2);
  keyValue(w, name, value);
  if (kept) attributes.keep(name, kept, value, w.buf, start, w.pos);
}

/** The span in hand's attributes written so far, and its count limit (one span is written at a time). */
let count = 0;
let limit = 0;
const writeAttribute = (name: string, value: AttributeValue): boolean => {
  // A name the object would hold twice, or out of order (an index key), or not at all (its
  // prototype), or past the count limit.
  const code = name.charCodeAt(0);
  if ((code >= 48 && code <= 57) || name === COMPONENT || name === "__proto__" || ++count > limit)
    return false;
  attribute(writer, name, value);
  return true;
};
/**
 * The span's message written and handed over as an `EncodedSpan`, or null (nothing kept) when its
 * attributes need the `ReadableSpan` path.
 */
export function encodeSpan(target: BytesTarget, span: MoleculerSpan): EncodedSpan | null {
  const w = writer;
  if (w.buf.length - w.pos < SPARE) {
    w.buf = Buffer.allocUnsafe(CHUNK);
    w.pos = 0;
  }
  const start = w.pos;
  id(w, 1, span.traceID, 16);
  id(w, 2, span.id, 8);
  if (span.parentID) id(w, 4, span.parentID, 8);
  w.tag(5, 2);
  w.string(span.name);
  w.tag(6, 0);
  w.varint(kindOf(span) + 1);
  const [startS, startN] = hrTime(span.startTime);
  let [endS, endN] = hrTime(span.finishTime);
  // As the SDK's `end()` (./span-export.ts): a span that ends before it starts lasts nothing.
  if (endS - startS - (endN < startN ? 1 : 0) < 0) [endS, endN] = [startS, startN];
  w.tag(7, 1);
  w.timeOf(startS, startN);
  w.tag(8, 1);
  w.timeOf(endS, endN);
  count = 0;
  limit = target.countLimit;
  if (!flattenTags(span.tags, writeAttribute, true) || ++count > limit) {
    w.pos = start;
    return null;
  }
  attribute(w, COMPONENT, componentOf(span));
  // No dropped attributes, events or links.
  w.tag(10, 0);
  w.varint(0);
  w.tag(12, 0);
  w.varint(0);
  w.tag(14, 0);
  w.varint(0);
  w.tag(15, 2);
  const status = w.start();
  const error = errorOf(span);
  if (error) {
    w.tag(2, 2);
    w.string(error);
  }
  w.tag(3, 0);
  w.varint(error === undefined ? SpanStatusCode.UNSET : SpanStatusCode.ERROR);
  w.finish(status);
  // Sampled, its parent's context known (OTLP's flags), and that parent remote (./span-export.ts).
  w.tag(16, 5);
  w.fixed32(TraceFlags.SAMPLED | 256 | (span.parentID ? 512 : 0));
  return new EncodedSpan(w.buf, start, w.pos, target.resource, target.scope);
}
