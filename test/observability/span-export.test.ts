/**
 * The conversion of a finished Moleculer span to an OpenTelemetry span (shared/telemetry.ts,
 * OpenTelemetryExporter): ids (UUIDs to hex, a caller's request id hashed, the cache of ids giving
 * the same answer twice), tags flattened to dotted attributes (nulls and arrays left out), the
 * component, the parent link and the error status. The finished spans handed to the SDK's
 * processor without SDK span objects (shared/observability/span-export.ts) are compared field by
 * field with what the SDK's own tracer made of the same spans (the export path before it).
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
  type Attributes,
} from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace";
import type { NodeSDK } from "@opentelemetry/sdk-node";
import { OpenTelemetryExporter, startTelemetry, traceIdOf } from "../../shared/telemetry";
import { endSpan, spanSink, type SpanRecord } from "../../shared/observability/span-export";

/** Ids for the SDK's own path below: the ones the span must take. */
let nextIds: { traceId?: string; spanId?: string } = {};
const idGenerator = {
  generateTraceId: () => nextIds.traceId ?? randomBytes(16).toString("hex"),
  generateSpanId: () => nextIds.spanId ?? randomBytes(8).toString("hex"),
};

const exporter = new InMemorySpanExporter();
let sdk: NodeSDK;
beforeAll(() => {
  sdk = startTelemetry("span-export-test", {
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
    idGenerator,
  });
});
afterAll(() => sdk.shutdown());

test("trace ids: a UUID's hex digits, anything else hashed; the same answer every time", () => {
  const uuid = "3F2504E0-4F89-41D3-9A0C-0305E82C3301";
  const hashed = (id: string) => createHash("sha256").update(id).digest("hex").slice(0, 32);
  for (let i = 0; i < 2; i++) {
    expect(traceIdOf(uuid)).toBe("3f2504e04f8941d39a0c0305e82c3301");
    expect(traceIdOf("client-chosen-id")).toBe(hashed("client-chosen-id"));
    expect(traceIdOf("0123456789abcdef0123456789abcdeg")).toBe(hashed("0123456789abcdef0123456789abcdeg"));
  }
  // Moleculer's own ids (lower-case UUIDs): their digits, trace and span id alike.
  for (let i = 0; i < 100; i++) {
    const id = randomUUID();
    expect(traceIdOf(id)).toBe(id.replace(/-/g, ""));
    expect(traceIdOf(id.toUpperCase())).toBe(id.replace(/-/g, ""));
  }
  // Past the cache's bound, answers stay right.
  for (let i = 0; i < 1100; i++) expect(traceIdOf(`req-${i}`)).toBe(hashed(`req-${i}`));
});

test("a finished Moleculer span becomes an OpenTelemetry span with flattened attributes", async () => {
  exporter.reset();
  const trace = "6b1c1d8e-0000-4000-8000-00000000000a";
  const parent = "7c2d2e9f-0000-4000-8000-00000000000b";
  const id = "8d3e3fa0-0000-4000-8000-00000000000c";
  new OpenTelemetryExporter({}).spanFinished({
    id,
    traceID: trace,
    parentID: parent,
    name: "action 'accounts.list'",
    type: "action",
    startTime: 1_700_000_000_000,
    finishTime: 1_700_000_000_005,
    tags: {
      callingLevel: 2,
      action: { name: "accounts.list", rawName: "list" },
      remoteCall: false,
      options: { timeout: null, retries: undefined, deep: { x: "y" } },
      list: [1, 2],
      requestID: trace,
    },
    error: { name: "MoleculerClientError", message: "nope" },
    service: { name: "accounts", fullName: "v1.accounts" },
  });
  // The SDK hands a span to its exporter once the resource is known (asynchronously).
  for (let i = 0; i < 50 && exporter.getFinishedSpans().length === 0; i++)
    await new Promise((r) => setTimeout(r, 20));
  const [span] = exporter.getFinishedSpans();
  expect(span.name).toBe("action 'accounts.list'");
  expect(span.spanContext().traceId).toBe(traceIdOf(trace));
  expect(span.spanContext().spanId).toBe(traceIdOf(id).slice(0, 16));
  expect(span.parentSpanContext?.spanId).toBe(traceIdOf(parent).slice(0, 16));
  expect(span.attributes).toEqual({
    callingLevel: 2,
    "action.name": "accounts.list",
    "action.rawName": "list",
    remoteCall: false,
    "options.deep.x": "y",
    requestID: trace,
    "service.component": "v1.accounts",
  });
  expect(span.status).toEqual({ code: 2, message: "MoleculerClientError: nope" });
});

/** The export path before span-export.ts: an SDK span started and ended through the SDK's tracer. */
function throughSdkTracer(span: SpanRecord): void {
  const parent = span.parentSpanId
    ? trace.setSpanContext(ROOT_CONTEXT, {
        traceId: span.traceId,
        spanId: span.parentSpanId,
        traceFlags: TraceFlags.SAMPLED,
        isRemote: true,
      })
    : ROOT_CONTEXT;
  nextIds = { traceId: span.traceId, spanId: span.spanId };
  const otel = trace
    .getTracer("moleculer")
    .startSpan(span.name, { startTime: span.startMs, kind: span.kind, attributes: span.attributes }, parent);
  nextIds = {};
  if (span.error !== undefined) otel.setStatus({ code: SpanStatusCode.ERROR, message: span.error });
  otel.end(span.finishMs);
}

/** Every field a processor or an exporter reads of a finished span. */
const fields = (s: ReadableSpan) => ({
  name: s.name,
  kind: s.kind,
  spanContext: { ...s.spanContext() },
  parentSpanContext: s.parentSpanContext,
  startTime: s.startTime,
  endTime: s.endTime,
  duration: s.duration,
  ended: s.ended,
  status: s.status,
  attributes: s.attributes,
  links: s.links,
  events: s.events,
  droppedAttributesCount: s.droppedAttributesCount,
  droppedEventsCount: s.droppedEventsCount,
  droppedLinksCount: s.droppedLinksCount,
  resource: s.resource,
  instrumentationScope: s.instrumentationScope,
});

test("a finished span handed to the processor is the span the SDK's tracer made of it", async () => {
  const attributes = (): Attributes => ({
    "action.name": "accounts.list",
    callingLevel: 1,
    remoteCall: false,
  });
  const spans: SpanRecord[] = [
    {
      traceId: "3f2504e04f8941d39a0c0305e82c3301",
      spanId: "0123456789abcdef",
      parentSpanId: undefined,
      name: "GET /user-management/accounts",
      kind: SpanKind.SERVER,
      startMs: 1_700_000_000_123.456,
      finishMs: 1_700_000_000_125.5,
      attributes: attributes(),
      error: undefined,
    },
    {
      traceId: "3f2504e04f8941d39a0c0305e82c3301",
      spanId: "89abcdef01234567",
      parentSpanId: "0123456789abcdef",
      name: "action 'accounts.list'",
      kind: SpanKind.INTERNAL,
      // Across a second boundary, nanoseconds borrowed.
      startMs: 1_700_000_000_999.75,
      finishMs: 1_700_000_001_000.25,
      attributes: attributes(),
      error: "MoleculerClientError: nope",
    },
    {
      traceId: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
      spanId: "bbbbbbbbbbbbbbbb",
      parentSpanId: "cccccccccccccccc",
      name: "ends before it starts",
      kind: SpanKind.INTERNAL,
      startMs: 1_700_000_000_010,
      finishMs: 1_700_000_000_009.5,
      attributes: {},
      error: undefined,
    },
  ];
  const sink = spanSink("moleculer");
  // NodeSDK's default sampler keeps every span: no sampler call per span.
  expect(sink?.keepsAll).toBe(true);
  const exported = async (n: number) => {
    for (let i = 0; i < 50 && exporter.getFinishedSpans().length < n; i++)
      await new Promise((r) => setTimeout(r, 20));
    return exporter.getFinishedSpans();
  };
  for (const span of spans) {
    exporter.reset();
    throughSdkTracer({ ...span, attributes: { ...span.attributes } });
    const [bySdk] = await exported(1);
    exporter.reset();
    endSpan(sink!, { ...span, attributes: { ...span.attributes } });
    const [direct] = await exported(1);
    expect(fields(direct)).toEqual(fields(bySdk));
  }
});

test("a sampler other than the default is asked span by span; a span it drops is not handed on", () => {
  const ended: unknown[] = [];
  const asked: string[] = [];
  const sink = spanSink("moleculer")!;
  const tracer = {
    ...sink.tracer,
    _spanProcessor: { onEnd: (s: unknown) => ended.push(s) },
    _sampler: {
      shouldSample: (_c: unknown, _t: string, name: string) => {
        asked.push(name);
        return { decision: name === "kept" ? 2 : 0, attributes: { sampledBy: "test" } };
      },
    },
  } as unknown as typeof sink.tracer;
  const span = (name: string): SpanRecord => ({
    traceId: "3f2504e04f8941d39a0c0305e82c3301",
    spanId: "0123456789abcdef",
    parentSpanId: undefined,
    name,
    kind: SpanKind.INTERNAL,
    startMs: 1_700_000_000_000,
    finishMs: 1_700_000_000_001,
    attributes: {},
    error: undefined,
  });
  endSpan({ tracer, keepsAll: false }, span("dropped"));
  endSpan({ tracer, keepsAll: false }, span("kept"));
  expect(asked).toEqual(["dropped", "kept"]);
  expect(ended).toHaveLength(1);
  expect((ended[0] as ReadableSpan).name).toBe("kept");
  expect((ended[0] as ReadableSpan).attributes).toEqual({ sampledBy: "test" });
});
