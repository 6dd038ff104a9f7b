/**
 * Moleculer's finished spans handed to the OpenTelemetry SDK's span processor as finished spans,
 * without the SDK's span objects (docs/operations-guide.md#cost).
 *
 * Through the SDK's tracer each span was started and ended as an SDK span: a context for its
 * parent, the id generator, attribute sanitizing twice, clock reads, the span processor's
 * `onStart`, then `end()`; 2-3 µs a span, about a third of what a sampled request's export cost.
 * A finished Moleculer span has everything already: its ids, times, tags and error. Here it becomes
 * the `ReadableSpan` the processor and the OTLP exporter read, with what the SDK would have put in
 * it (the tracer's resource, scope, attribute limits and sampler), and goes straight to `onEnd`.
 * The processor (the NodeSDK's BatchSpanProcessor, set up from the OTEL_* variables) batches and
 * exports as before. test/observability/span-export.test.ts compares both paths field by field.
 */
import {
  ROOT_CONTEXT,
  SamplingDecision,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
  type Attributes,
  type Context,
  type HrTime,
  type SpanContext,
  type SpanStatus,
  type TracerProvider,
} from "@opentelemetry/api";
import { exportOffThread } from "./export-thread";
import { encodeWithOwnWriter, onlyOwnWriter } from "./otlp-protobuf";
import { hrTime, type BytesTarget } from "./span-bytes";

/** What the SDK's tracer (sdk-trace 3.x `Tracer`) holds that a finished span needs. */
interface SdkTracer {
  _spanProcessor: { onEnd(span: FinishedSpan): void };
  _resource: unknown;
  instrumentationScope: unknown;
  _spanLimits: { attributeCountLimit?: number; attributeValueLengthLimit?: number };
  _sampler: {
    shouldSample(
      context: Context,
      traceId: string,
      name: string,
      kind: SpanKind,
      attributes: Attributes,
      links: [],
    ): { decision: SamplingDecision; attributes?: Attributes; traceState?: SpanContext["traceState"] };
    toString(): string;
  };
}

/**
 * NodeSDK's default sampler (no OTEL_TRACES_SAMPLER) as it describes itself: it samples every span
 * whose parent is sampled and every root, so it keeps every span handed here (Moleculer sampled the
 * request already). Any other sampler is asked span by span, as the SDK's tracer asks it.
 */
const DEFAULT_SAMPLER =
  "ParentBased{root=AlwaysOnSampler, remoteParentSampled=AlwaysOnSampler, remoteParentNotSampled=AlwaysOffSampler, localParentSampled=AlwaysOnSampler, localParentNotSampled=AlwaysOffSampler}";

/** A finished span as the SDK's processors and exporters read it (`ReadableSpan`). */
export class FinishedSpan {
  readonly links = [];
  readonly events = [];
  readonly ended = true;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;
  constructor(
    private readonly context: SpanContext,
    readonly parentSpanContext: SpanContext | undefined,
    readonly name: string,
    readonly kind: SpanKind,
    readonly startTime: HrTime,
    readonly endTime: HrTime,
    readonly duration: HrTime,
    readonly status: SpanStatus,
    readonly attributes: Attributes,
    readonly droppedAttributesCount: number,
    readonly resource: unknown,
    readonly instrumentationScope: unknown,
  ) {}
  spanContext(): SpanContext {
    return this.context;
  }
}

/**
 * The SDK's tracer, whether its sampler keeps every span handed here (asked once), and, when a
 * span may be handed over as its OTLP bytes (./span-bytes.ts), what they are written with.
 */
export interface SpanSink {
  tracer: SdkTracer;
  keepsAll: boolean;
  bytes: BytesTarget | null;
}

/** The SDK tracer behind the global provider, or null when no SDK runs (spans are then dropped). */
export function spanSink(name: string): SpanSink | null {
  // The API's global provider is a proxy; its delegate is the SDK's provider once the SDK started.
  const provider = trace.getTracerProvider() as TracerProvider & { getDelegate?(): TracerProvider };
  const tracer = (provider.getDelegate?.() ?? provider).getTracer(name) as Partial<SdkTracer>;
  if (!tracer._spanProcessor || !tracer._sampler || !tracer._spanLimits) return null;
  // The OTLP/protobuf exporters behind it encode with ./otlp-protobuf.ts (the same bytes, one pass).
  encodeWithOwnWriter(tracer._spanProcessor);
  // Their requests over plain HTTP leave from a worker thread (./export-thread.ts).
  exportOffThread(tracer._spanProcessor);
  const keepsAll = tracer._sampler.toString() === DEFAULT_SAMPLER;
  // Bytes only where nothing but the sampler's default and the count limit shapes a span, and no
  // exporter reads `ReadableSpan`s.
  const { attributeCountLimit, attributeValueLengthLimit } = tracer._spanLimits;
  const bytes =
    keepsAll && (attributeValueLengthLimit ?? Infinity) === Infinity && onlyOwnWriter(tracer._spanProcessor)
      ? {
          resource: tracer._resource,
          scope: tracer.instrumentationScope,
          countLimit: attributeCountLimit ?? Infinity,
        }
      : null;
  return { tracer: tracer as SdkTracer, keepsAll, bytes };
}

/** What a finished Moleculer span gives, its ids already hex and its tags already attributes. */
export interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: SpanKind;
  startMs: number;
  finishMs: number;
  attributes: Attributes;
  error: string | undefined;
}

/** The SDK's attribute limits (OTEL_SPAN_ATTRIBUTE_*): count kept, strings cut; how many dropped. */
function limited(attributes: Attributes, limits: SdkTracer["_spanLimits"]): [Attributes, number] {
  const count = limits.attributeCountLimit ?? Infinity;
  const length = limits.attributeValueLengthLimit ?? Infinity;
  const keys = Object.keys(attributes);
  if (keys.length <= count && length === Infinity) return [attributes, 0];
  const out: Attributes = {};
  for (const key of keys.slice(0, count)) {
    const value = attributes[key];
    out[key] = typeof value === "string" && value.length > length ? value.slice(0, length) : value;
  }
  return [out, Math.max(0, keys.length - count)];
}

/** Hands one finished span to the SDK tracer's processor, sampled as the SDK's tracer would. */
export function endSpan({ tracer, keepsAll }: Pick<SpanSink, "tracer" | "keepsAll">, span: SpanRecord): void {
  const parent: SpanContext | undefined = span.parentSpanId
    ? { traceId: span.traceId, spanId: span.parentSpanId, traceFlags: TraceFlags.SAMPLED, isRemote: true }
    : undefined;
  let attributes = span.attributes;
  let traceState: SpanContext["traceState"];
  if (!keepsAll) {
    const context = parent ? trace.setSpanContext(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
    const result = tracer._sampler.shouldSample(context, span.traceId, span.name, span.kind, attributes, []);
    if (result.decision !== SamplingDecision.RECORD_AND_SAMPLED) return;
    attributes = Object.assign(attributes, result.attributes);
    traceState = result.traceState ?? parent?.traceState;
  }
  const [kept, dropped] = limited(attributes, tracer._spanLimits);
  const start: HrTime = hrTime(span.startMs);
  let end: HrTime = hrTime(span.finishMs);
  let seconds = end[0] - start[0];
  let nanos = end[1] - start[1];
  if (nanos < 0) {
    seconds -= 1;
    nanos += 1e9;
  }
  // As the SDK's `end()`: a span that ends before it starts lasts nothing.
  if (seconds < 0) [end, seconds, nanos] = [start.slice() as HrTime, 0, 0];
  tracer._spanProcessor.onEnd(
    new FinishedSpan(
      { traceId: span.traceId, spanId: span.spanId, traceFlags: TraceFlags.SAMPLED, traceState },
      parent,
      span.name,
      span.kind,
      start,
      end,
      [seconds, nanos],
      span.error === undefined
        ? { code: SpanStatusCode.UNSET }
        : { code: SpanStatusCode.ERROR, message: span.error },
      kept,
      dropped,
      tracer._resource,
      tracer.instrumentationScope,
    ),
  );
}
