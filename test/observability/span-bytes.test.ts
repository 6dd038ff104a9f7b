/**
 * A finished Moleculer span written as its OTLP bytes when it is handed over
 * (shared/observability/span-bytes.ts): the request made of those bytes is the one the SDK's
 * serializer writes for the `ReadableSpan` the other path makes of the same span
 * (shared/observability/span-export.ts), for spans of every shape the exporter sees; spans whose
 * attributes it cannot place take that other path; a batch mixing both, or holding an id that is
 * not hex, still gives the SDK's bytes; the bytes path is taken only behind the platform's writer.
 */
import { TraceFlags, type SpanContext } from "@opentelemetry/api";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { OpenTelemetryExporter } from "../../shared/telemetry";
import { spanSink } from "../../shared/observability/span-export";
import { EncodedSpan, encodeSpan } from "../../shared/observability/span-bytes";
import { ownTraceSerializer } from "../../shared/observability/otlp-protobuf";
import { Writer } from "../../shared/observability/protobuf-writer";
import type { MoleculerSpan } from "../../shared/observability/moleculer-span";
import { sdkSpanSink } from "../support/sdk-span-sink";

const telemetry = sdkSpanSink("span-bytes-test");

/** What the exporter hands the processor for `spans`, through the bytes path or not. */
function handed(spans: MoleculerSpan[], bytes: boolean, countLimit?: number): unknown[] {
  const out: unknown[] = [];
  const exporter = new OpenTelemetryExporter({});
  const target = telemetry.sink.bytes && {
    ...telemetry.sink.bytes,
    countLimit: countLimit ?? telemetry.sink.bytes.countLimit,
  };
  Object.assign(exporter, {
    sink: {
      ...telemetry.sink,
      bytes: bytes ? target : null,
      tracer: {
        ...telemetry.sink.tracer,
        _spanProcessor: { onEnd: (s: unknown) => out.push(s) },
        _spanLimits: { ...telemetry.sink.tracer._spanLimits, attributeCountLimit: target?.countLimit },
      },
    },
  });
  for (const span of spans) exporter.spanFinished(span);
  exporter.flush();
  return out;
}
const sdkBytes = (spans: unknown[]) =>
  Buffer.from(ProtobufTraceSerializer.serializeRequest(spans as ReadableSpan[])!);
const ownBytes = (spans: unknown[]) =>
  Buffer.from(ownTraceSerializer.serializeRequest(spans as ReadableSpan[])!);

const uuid = (i: number) => {
  const hex = (i * 2654435761).toString(16).padStart(8, "0").slice(-8);
  return `${hex}-${hex.slice(0, 4)}-4${hex.slice(1, 4)}-a${hex.slice(5, 8)}-${hex}${hex.slice(0, 4)}`;
};

/** A finished Moleculer span of a shape chosen by `i`, as the platform's tracer hands them over. */
function moleculerSpan(i: number): MoleculerSpan {
  const start = 1_764_300_000_000 + i * 1_000.123456 + (i % 3) * 0.0005;
  const traceIDs = [
    uuid(i),
    uuid(i).toUpperCase(),
    "caller's request id",
    uuid(i).replace(/-/g, ""),
    `zzzzzzzz${uuid(i).slice(8)}`,
  ];
  return {
    id: i % 6 === 5 ? `span-${i}` : uuid(i + 1000),
    traceID: traceIDs[i % traceIDs.length],
    parentID: i % 2 ? uuid(i + 2000) : i % 4 === 0 ? undefined : "",
    name: i % 5 === 1 ? `action 'naïve.${i}' 😀` : `GET /user-management/accounts/${i}`,
    type: i % 3 === 0 ? "action" : i % 3 === 1 ? "event" : undefined,
    startTime: start,
    // A span that ends before it starts (a clock step) lasts nothing, as in the SDK.
    finishTime: i % 9 === 4 ? start - 1.5 : start + i * 0.731 + (i % 4 === 0 ? 999.9999 : 0),
    tags: {
      callingLevel: i,
      action: { name: `accounts.list${i}`, rawName: i % 2 ? undefined : "list" },
      remoteCall: i % 2 === 0,
      callerNodeID: "node-é",
      options: { timeout: i % 3 ? 10_000 : undefined, retries: null },
      requestID: uuid(i),
      fromCache: i % 4 === 1,
      negative: -i - 1,
      double: i + 0.25,
      nan: NaN,
      infinite: -Infinity,
      big: 2 ** 64,
      long: "x".repeat(i % 7 === 0 ? 20_000 : 130),
      list: ["arrays", "are", "dropped"],
      deep: { a: { b: { c: i % 2 ? "c" : true } }, empty: {} },
      bigint: 12n,
      fn: () => 0,
    },
    error:
      i % 8 === 3
        ? { name: "MoleculerClientError", message: "Entity not found" }
        : i % 8 === 7
          ? { message: "no name" }
          : i % 8 === 5
            ? {}
            : null,
    service: i % 5 === 0 ? undefined : i % 5 === 1 ? { name: "accounts" } : { name: "a", fullName: "v2.a" },
  };
}

test("the bytes of spans written when they end are the SDK's for the same spans", () => {
  const spans = Array.from({ length: 48 }, (_, i) => moleculerSpan(i));
  const encoded = handed(spans, true);
  const readable = handed(spans, false);
  expect(encoded.every((s) => s instanceof EncodedSpan)).toBe(true);
  expect(readable.some((s) => s instanceof EncodedSpan)).toBe(false);
  for (let i = 0; i < spans.length; i++) expect(ownBytes([encoded[i]])).toEqual(sdkBytes([readable[i]]));
  expect(ownBytes(encoded)).toEqual(sdkBytes(readable));
  // What the processors read of them: sampled, the tracer's resource.
  const first = encoded[0] as EncodedSpan;
  expect(first.spanContext().traceFlags & TraceFlags.SAMPLED).toBe(TraceFlags.SAMPLED);
  expect(first.resource).toBe((readable[0] as ReadableSpan).resource);
});

test("a UUID's digits are read in place, past its dashes; anything else is not a UUID", () => {
  const w = new Writer();
  const id = "3f2504e0-4f89-41d3-9a0c-0305e82c3301";
  expect(w.uuid(id, 16)).toBe(true);
  expect(w.uuid(id.toUpperCase(), 8)).toBe(true);
  const digits = Buffer.from(id.replace(/-/g, ""), "hex");
  expect(Buffer.from(w.buf.subarray(0, w.pos))).toEqual(
    Buffer.from([16, ...digits, 8, ...digits.subarray(0, 8)]),
  );
  const written = w.pos;
  for (const other of [
    id.replace(/-/g, ""),
    `${id.slice(0, 35)}z`,
    `${id.slice(0, 8)}x${id.slice(9)}`,
    `${id}0`,
  ])
    expect(w.uuid(other, 16)).toBe(false);
  expect(w.pos).toBe(written);
});

test("bytes written into the next chunk, and earlier chunks left as they were", () => {
  // Past several 64 KB chunks (the long tags), the spans of a batch read back after later ones.
  const spans = Array.from({ length: 400 }, (_, i) => moleculerSpan(i));
  const encoded = handed(spans, true);
  const chunks = new Set(encoded.map((s) => (s as EncodedSpan).chunk));
  expect(chunks.size).toBeGreaterThan(3);
  const again = handed(
    Array.from({ length: 40 }, (_, i) => moleculerSpan(i + 7)),
    true,
  );
  expect(again).toHaveLength(40);
  expect(ownBytes(encoded).equals(sdkBytes(handed(spans, false)))).toBe(true);
  // A span larger than a chunk: the chunk grows (a copy), the spans written before it keep theirs.
  const huge = { ...moleculerSpan(1), tags: { text: "y".repeat(150_000) } };
  const around = [moleculerSpan(2), huge, moleculerSpan(3)];
  const [before, big, after] = handed(around, true) as EncodedSpan[];
  expect(big.end - big.start).toBeGreaterThan(150_000);
  expect(ownBytes([before, big, after]).equals(sdkBytes(handed(around, false)))).toBe(true);
});

test("only a tag object's own keys are attributes, on either path", () => {
  const tags = Object.assign(Object.create({ inherited: "not a tag" }), { own: 1, nested: { a: true } });
  const span = { ...moleculerSpan(3), tags, service: { name: "accounts" } };
  const [readable] = handed([span], false);
  expect((readable as ReadableSpan).attributes).toEqual({
    own: 1,
    "nested.a": true,
    "service.component": "accounts",
  });
  const [encoded] = handed([span], true);
  expect(encoded).toBeInstanceOf(EncodedSpan);
  expect(ownBytes([encoded])).toEqual(sdkBytes([readable]));
});

test("attributes the writer cannot place as the object holds them take the ReadableSpan path", () => {
  const base = moleculerSpan(2);
  const odd: Record<string, unknown>[] = [
    { "a.b": 1, a: { b: 2 } },
    { a: { "b.c": 1 } },
    { "": { callingLevel: 3 }, callingLevel: 4 },
    { x: { "": 1 } },
    { 7: "index key", a: { 1: "nested index" } },
    { "12": { a: 1 }, "3": 1 },
    { service: { component: "a tag named as the component" } },
    ["__proto__", "proto"].reduce((o, k) => Object.defineProperty(o, k, { value: 1, enumerable: true }), {}),
  ];
  for (const tags of odd) {
    const span = { ...base, tags };
    expect(encodeSpan(telemetry.sink.bytes!, span)).toBeNull();
    const [readable] = handed([span], false);
    const [viaExporter] = handed([span], true);
    expect(viaExporter).not.toBeInstanceOf(EncodedSpan);
    expect(ownBytes([viaExporter])).toEqual(sdkBytes([readable]));
  }
  // Past the count limit (OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT): the other path drops what the SDK drops.
  const [limited] = handed([base], true, 3);
  expect(limited).not.toBeInstanceOf(EncodedSpan);
  expect((limited as ReadableSpan).droppedAttributesCount).toBeGreaterThan(0);
  // A span whose attributes fit exactly is written.
  const few = { ...base, tags: { a: 1, b: { c: 2 } } };
  expect(handed([few], true, 3)[0]).toBeInstanceOf(EncodedSpan);
  expect(handed([few], true, 2)[0]).not.toBeInstanceOf(EncodedSpan);
});

test("a batch of written spans and ReadableSpans, one id not hex: the SDK's bytes", () => {
  const spans = Array.from({ length: 6 }, (_, i) => moleculerSpan(i));
  const mixed = [...handed(spans.slice(0, 3), true), ...handed(spans.slice(3), false)];
  const readable = handed(spans, false);
  expect(ownBytes(mixed)).toEqual(sdkBytes(readable));
  // An id the SDK's `hexToBinary` reads with its own digit values (upper case and beyond).
  const other = readable[4] as ReadableSpan;
  const context: SpanContext = { ...other.spanContext(), spanId: "0123456789abcdeZ" };
  const notHex = { ...other, spanContext: () => context } as ReadableSpan;
  const withNotHex = [...mixed.slice(0, 4), notHex, mixed[5]];
  expect(ownBytes(withNotHex)).toEqual(sdkBytes([...readable.slice(0, 4), notHex, readable[5]]));
});

test("the bytes path only behind the platform's OTLP/protobuf writer and the default sampler", () => {
  expect(telemetry.sink.bytes).not.toBeNull();
  const processors = (
    telemetry.sink.tracer._spanProcessor as unknown as { _spanProcessors: { _exporter: unknown }[] }
  )._spanProcessors;
  const exporter = processors[0]._exporter;
  // Another exporter beside it (console, JSON, in-memory) reads ReadableSpans.
  processors.push({ _exporter: {} });
  try {
    expect(spanSink("moleculer")!.bytes).toBeNull();
  } finally {
    processors.pop();
  }
  expect(processors[0]._exporter).toBe(exporter);
  expect(spanSink("moleculer")!.bytes).not.toBeNull();
});

test("attributes copied from their kept bytes: spans written again and again are still the SDK's bytes", () => {
  // The same shapes three times (the second and third copy most attributes: ./attribute-bytes.ts),
  // then request ids that never repeat, past the point where `requestID` stops being kept.
  const spans = Array.from({ length: 48 }, (_, i) => moleculerSpan(i));
  for (let round = 0; round < 3; round++)
    expect(ownBytes(handed(spans, true)).equals(sdkBytes(handed(spans, false)))).toBe(true);
  const fresh = Array.from({ length: 400 }, (_, i) => ({
    ...moleculerSpan(i % 12),
    tags: { ...moleculerSpan(i % 12).tags, requestID: uuid(100_000 + i) },
  }));
  expect(ownBytes(handed(fresh, true)).equals(sdkBytes(handed(fresh, false)))).toBe(true);
  // Numbers kept by value, whatever the string of the same digits, and the other way round.
  const typed = [1, "1", true, "true", 0, -0, "0"].map((value, i) => ({
    ...moleculerSpan(2),
    tags: { value, i },
  }));
  for (let round = 0; round < 2; round++)
    expect(ownBytes(handed(typed, true)).equals(sdkBytes(handed(typed, false)))).toBe(true);
});
