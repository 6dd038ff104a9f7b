/**
 * The platform's OTLP/protobuf writer (shared/observability/otlp-protobuf.ts) writes the bytes the
 * SDK's serializer writes, for the finished spans the platform hands the SDK and for any other
 * span (events, links, trace state, every kind of attribute value, long and non-ASCII strings,
 * several resources and scopes, a request large enough for every length size); an id that is not
 * hex goes to the SDK's serializer. It takes the place of the SDK's serializer in the OTLP/protobuf
 * exporter the NodeSDK builds, and only there.
 */
import { SpanKind, SpanStatusCode, TraceFlags, type Attributes, type HrTime } from "@opentelemetry/api";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { endSpan, type SpanSink } from "../../shared/observability/span-export";
import {
  encodeSpans,
  encodeWithOwnWriter,
  ownTraceSerializer,
} from "../../shared/observability/otlp-protobuf";
import { sdkSpanSink } from "../support/sdk-span-sink";

const sdkBytes = (spans: ReadableSpan[]) => Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!);

const resource = (attributes: Record<string, unknown>, schemaUrl?: string) =>
  ({ attributes, schemaUrl }) as unknown as ReadableSpan["resource"];
const resources = [
  resource({
    "service.name": "gateway",
    "process.pid": 4242,
    "process.command_args": ["node", "dist/app/main.js", "--flag"],
    "host.arch": "amd64",
  }),
  resource({ "service.name": "accounts", nested: { a: 1, b: [true, null, "x"] } }, "https://schema/1.2"),
];
const scopes = [
  { name: "moleculer" },
  {
    name: "other",
    version: "1.0.0",
    schemaUrl: "https://scope",
    attributes: { k: "v" },
    droppedAttributesCount: 2,
  },
];

const hex = (n: number, size: number) => n.toString(16).padStart(size, "0").slice(-size);

/** A span of every shape the SDK's serializer reads, chosen by `i`. */
function anySpan(i: number): ReadableSpan {
  const long = "é".repeat(i % 7 === 0 ? 9000 : 3) + "x".repeat(i % 5 === 0 ? 200 : 20);
  const attributes: Attributes & Record<string, unknown> = {
    str: `value ${i}`,
    long,
    unicode: "naïve 😀 \ud800 end",
    int: i,
    negative: -i - 1,
    big: 2 ** 40 + i,
    huge: 2 ** 64,
    double: i + 0.25,
    nan: NaN,
    infinite: -Infinity,
    yes: i % 2 === 0,
    list: [1, "two", false, null, 3.5],
    bytes: new Uint8Array([0, 1, 255, i & 255]),
    object: { inner: { deep: "x" }, n: i },
    bigint: BigInt(i),
    nothing: undefined,
    7: "an index key",
  };
  const traceState = i % 3 === 0 ? { serialize: () => `vendor=${i}` } : undefined;
  return {
    name: i % 4 === 0 ? `action 'accounts.list' ${"ü".repeat(i % 11)}` : `GET /path/${i}`,
    kind: [SpanKind.SERVER, SpanKind.INTERNAL, SpanKind.CLIENT, undefined][i % 4] as SpanKind,
    spanContext: () => ({
      traceId: (i % 6 === 0 ? "ABCDEF" : "abcdef") + hex(i, 26),
      spanId: hex(i * 7919, 16),
      traceFlags: i % 5 === 0 ? TraceFlags.NONE : TraceFlags.SAMPLED,
      traceState: traceState as never,
    }),
    parentSpanContext:
      i % 2 === 0
        ? undefined
        : { traceId: hex(i, 32), spanId: hex(i * 31, 16), traceFlags: 1, isRemote: i % 3 === 1 },
    startTime: [1_700_000_000 + i, (i * 123_457) % 1e9] as HrTime,
    endTime: [1_700_000_001 + i * 1000, 999_999_999] as HrTime,
    duration: [1, 0],
    status:
      i % 3 === 0
        ? { code: SpanStatusCode.ERROR, message: `Error: ${i}` }
        : { code: i % 3 === 1 ? SpanStatusCode.OK : SpanStatusCode.UNSET },
    attributes,
    links:
      i % 4 === 1
        ? [
            {
              context: { traceId: hex(i, 32), spanId: hex(i, 16), traceFlags: 1, isRemote: true, traceState },
              attributes: { linked: true },
              droppedAttributesCount: 1,
            },
            { context: { traceId: hex(i + 1, 32), spanId: hex(i + 1, 16), traceFlags: 0 } },
          ]
        : [],
    events:
      i % 4 === 2
        ? [
            {
              name: "started",
              time: [1_700_000_000, 5] as HrTime,
              attributes: { at: i },
              droppedAttributesCount: 3,
            },
            { name: "ended", time: [1_700_000_002, 999_999_999] as HrTime },
          ]
        : [],
    ended: true,
    resource: resources[i % 2],
    instrumentationScope: scopes[(i >> 1) % 2],
    droppedAttributesCount: i % 3,
    droppedEventsCount: i % 2,
    droppedLinksCount: 200 + i,
  } as unknown as ReadableSpan;
}

test("any span: the SDK serializer's bytes, one span, a few, and a request of megabytes", () => {
  expect(Buffer.from(encodeSpans([])!)).toEqual(sdkBytes([]));
  for (let i = 0; i < 40; i++)
    expect(Buffer.from(encodeSpans([anySpan(i)])!)).toEqual(sdkBytes([anySpan(i)]));
  const few = Array.from({ length: 13 }, (_, i) => anySpan(i));
  expect(Buffer.from(encodeSpans(few)!)).toEqual(sdkBytes(few));
  // Past the writer's first buffer and past 2 MB (a four-byte length for the outer messages).
  const many = Array.from({ length: 3000 }, (_, i) => anySpan(i));
  const bytes = encodeSpans(many)!;
  expect(bytes.length).toBeGreaterThan(2_097_152);
  // Compared whole (jest's toEqual would take minutes over megabytes), then its first difference.
  const expected = sdkBytes(many);
  if (!expected.equals(bytes)) {
    const at = expected.findIndex((b, i) => b !== bytes[i]);
    expect({ at, length: bytes.length, bytes: bytes.subarray(at, at + 16) }).toEqual({
      at: -1,
      length: expected.length,
      bytes: expected.subarray(at, at + 16),
    });
  }
  // The writer is reused: a small batch after a large one is still right.
  expect(Buffer.from(encodeSpans(few)!)).toEqual(sdkBytes(few));
});

test("an id that is not hex: the SDK's serializer writes the batch", () => {
  const span = anySpan(1);
  const bad = {
    ...span,
    spanContext: () => ({ ...span.spanContext(), spanId: "0123456789abcdeZ" }),
  } as ReadableSpan;
  const odd = {
    ...span,
    parentSpanContext: { ...span.parentSpanContext!, spanId: "0123456789abcde" },
  } as ReadableSpan;
  expect(encodeSpans([span, bad])).toBeNull();
  expect(Buffer.from(ownTraceSerializer.serializeRequest([span, bad])!)).toEqual(sdkBytes([span, bad]));
  expect(encodeSpans([odd])).toBeNull();
  expect(Buffer.from(ownTraceSerializer.serializeRequest([odd])!)).toEqual(sdkBytes([odd]));
});

describe("the platform's finished spans, through the NodeSDK's OTLP/protobuf exporter", () => {
  const telemetry = sdkSpanSink("otlp-protobuf-test");
  const ended: ReadableSpan[] = [];

  test("its serializer is the platform's writer; a JSON exporter keeps the SDK's", () => {
    const [batch] = (
      telemetry.sink.tracer._spanProcessor as unknown as { _spanProcessors: { _exporter: any }[] }
    )._spanProcessors;
    expect(batch._exporter._delegate._serializer).toBe(ownTraceSerializer);
    const json = { _exporter: { _delegate: { _serializer: JsonTraceSerializer } } };
    const proto = { _exporter: { _delegate: { _serializer: ProtobufTraceSerializer } } };
    expect(encodeWithOwnWriter({ _spanProcessors: [json, proto, { _spanProcessors: [] }] })).toBe(1);
    expect(json._exporter._delegate._serializer).toBe(JsonTraceSerializer);
    expect(proto._exporter._delegate._serializer).toBe(ownTraceSerializer);
  });

  test("the finished spans endSpan makes are written as the SDK writes them", () => {
    const capture = {
      ...telemetry.sink,
      tracer: {
        ...telemetry.sink.tracer,
        _spanProcessor: { onEnd: (s: unknown) => void ended.push(s as ReadableSpan) },
      },
    };
    for (let i = 0; i < 20; i++)
      endSpan(capture as unknown as SpanSink, {
        traceId: "3f2504e04f8941d39a0c0305e82c" + hex(i, 4),
        spanId: hex(i * 977, 16),
        parentSpanId: i % 2 ? hex(i, 16) : undefined,
        name: i % 2 ? "action 'accounts.list'" : "GET /user-management/accounts",
        kind: i % 2 ? SpanKind.INTERNAL : SpanKind.SERVER,
        startMs: 1_700_000_000_123.456 + i,
        finishMs: 1_700_000_000_125.5 + i * 3,
        attributes: {
          callingLevel: i % 3,
          "action.name": "accounts.list",
          remoteCall: i % 2 === 0,
          "options.timeout": 10_000,
          requestID: "client-chosen-id",
          "service.component": "v1.accounts",
        },
        error: i % 5 === 0 ? "MoleculerClientError: nope" : undefined,
      });
    expect(ended).toHaveLength(20);
    expect(Buffer.from(ownTraceSerializer.serializeRequest(ended)!)).toEqual(sdkBytes(ended));
  });
});
