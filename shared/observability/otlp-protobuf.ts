/**
 * The OTLP/protobuf encoding of a batch of finished spans, byte for byte what the SDK's own
 * serializer writes (@opentelemetry/otlp-transformer 0.301, `ProtobufTraceSerializer`), in one
 * pass instead of two (docs/performance-rounds.md, "Tracing, eighth round").
 *
 * The SDK's serializer walks every span twice, once to size the request and once to write it, and
 * turns each of a span's three ids into a new `Uint8Array` on each walk; it was about half of a
 * sampled span's export. Here a request is written once into a buffer kept between batches (a
 * length that outgrows its one reserved byte moves what follows it, as the SDK's writer does),
 * ids are written from their hex digits in place, and the bytes are copied out at the end.
 * Anything this writer cannot write as the SDK would (an id that is not hex of its length) makes it
 * answer null and the SDK's serializer writes that batch. A span written when it ended
 * (./span-bytes.ts) is copied in as its bytes. The writer itself is ./protobuf-writer.ts.
 * test/observability/otlp-protobuf.test.ts and span-bytes.test.ts compare the encodings byte for byte.
 */
import type { Attributes, AttributeValue, SpanContext } from "@opentelemetry/api";
import type { ReadableSpan, TimedEvent } from "@opentelemetry/sdk-trace";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { NotHex, Writer, keyValue } from "./protobuf-writer";
import { EncodedSpan } from "./span-bytes";

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
    // A span written when it ended (./span-bytes.ts): its message's bytes as they are.
    if (s instanceof EncodedSpan) w.copied(s.chunk, s.start, s.end);
    else span(w, s);
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

/** The request of these groups into the writer; false when an id is not hex. */
function write(resources: Map<Resource, Map<unknown, ReadableSpan[]>>): boolean {
  writer.pos = 0;
  try {
    for (const [resource, scopes] of resources) {
      writer.tag(1, 2);
      resourceSpans(writer, resource, scopes);
    }
    return true;
  } catch (err) {
    if (err instanceof NotHex) return false;
    throw err;
  }
}

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
  if (!write(resources)) {
    // Spans written when they ended cannot go to the SDK's serializer: the ids are then written
    // as its `hexToBinary` writes them.
    if (!spans.some((s) => s instanceof EncodedSpan)) return null;
    writer.sdkIds = true;
    try {
      write(resources);
    } finally {
      writer.sdkIds = false;
    }
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

/**
 * Whether every exporter behind the span processor is an OTLP exporter writing with this writer
 * (then a span may be handed over as its bytes, ./span-bytes.ts; any other exporter reads
 * `ReadableSpan`s).
 */
export function onlyOwnWriter(processor: unknown): boolean {
  const node = processor as Node | null | undefined;
  if (!node) return false;
  if (node._spanProcessors)
    return node._spanProcessors.length > 0 && node._spanProcessors.every(onlyOwnWriter);
  return node._exporter?._delegate?._serializer === ownTraceSerializer;
}

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
