/**
 * Traces over OpenTelemetry. Off unless OTEL_EXPORTER_OTLP_ENDPOINT (or _TRACES_ENDPOINT, or
 * OTEL_TRACES_EXPORTER) is set; then the NodeSDK exports with the standard OTEL_* variables.
 *
 * Moleculer traces every action and event itself and carries the trace across NATS in each
 * context. `OpenTelemetryExporter` hands Moleculer's finished spans to the OpenTelemetry SDK's span
 * processor with Moleculer's own trace and span ids, so the spans of one request join into one tree
 * across every process.
 *
 * Spans carry no params and no meta (passwords, tokens, secrets would be in them): see
 * `tracingOptions`. The gateway's request span names the path, never the query string.
 */
import { diag, type Attributes } from "@opentelemetry/api";
import { NodeSDK, type NodeSDKConfiguration } from "@opentelemetry/sdk-node";
import * as moleculer from "moleculer";
import {
  TracerExporters,
  type BrokerOptions,
  type Context,
  type Middleware,
  type ServiceBroker,
} from "moleculer";
import { endSpan, spanSink, type SpanSink } from "./observability/span-export";
import { actionSpans } from "./observability/action-spans";
import { encodeSpan } from "./observability/span-bytes";
import {
  COMPONENT,
  componentOf,
  errorOf,
  flattenTags,
  kindOf,
  spanIdOf,
  traceIdOf,
  type MoleculerSpan,
} from "./observability/moleculer-span";

export { traceIdOf };

export function telemetryEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const exporter = env.OTEL_TRACES_EXPORTER;
  return Boolean(
    env.OTEL_EXPORTER_OTLP_ENDPOINT ||
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ||
    (exporter && exporter !== "none"),
  );
}

/** Spans waiting for the next turn of the event loop; past this many, spans are dropped (as the SDK's queue). */
const MAX_PENDING = 2048;

/**
 * Moleculer's finished spans to the OpenTelemetry SDK's span processor, with Moleculer's own trace
 * and span ids, so the spans of one request join into one tree across every process. A finished
 * span is only queued on the request's path; the queue is converted on the next turn of the event
 * loop (after the answer is written) and handed to the processor without SDK span objects: as its
 * OTLP bytes when every exporter takes those (./observability/span-bytes.ts), else as a finished
 * `ReadableSpan` (./observability/span-export.ts).
 */
export class OpenTelemetryExporter extends TracerExporters.Base {
  private pending: MoleculerSpan[] = [];
  private sink: SpanSink | null = null;
  private dropped = 0;

  override spanFinished(finished: unknown): void {
    if (this.pending.length >= MAX_PENDING) {
      if (this.dropped++ === 0) diag.warn("tracing: span queue full, dropping spans");
      return;
    }
    if (this.pending.push(finished as MoleculerSpan) === 1) setImmediate(() => this.flush());
  }

  /** Hands every queued span to the SDK (also when the broker stops: Moleculer calls `stop`). */
  flush(): void {
    const spans = this.pending;
    if (spans.length === 0) return;
    this.pending = [];
    this.dropped = 0;
    this.sink ??= spanSink("moleculer");
    const sink = this.sink;
    if (!sink) return;
    for (const span of spans) {
      // Written as its OTLP bytes when the exporters take them (./observability/span-bytes.ts).
      const encoded = sink.bytes && encodeSpan(sink.bytes, span);
      if (encoded) {
        sink.tracer._spanProcessor.onEnd(encoded as never);
        continue;
      }
      const attributes: Attributes = {};
      flattenTags(span.tags, (name, value) => {
        attributes[name] = value;
        return true;
      });
      attributes[COMPONENT] = componentOf(span);
      endSpan(sink, {
        traceId: traceIdOf(span.traceID),
        spanId: spanIdOf(span.id),
        parentSpanId: span.parentID ? spanIdOf(span.parentID) : undefined,
        name: span.name,
        kind: kindOf(span),
        startMs: span.startTime,
        finishMs: span.finishTime,
        attributes,
        error: errorOf(span),
      });
    }
  }

  override stop(): void {
    this.flush();
  }
}

/**
 * Moleculer's tracing options: on with telemetry, and never a param or meta value in a span.
 * `sampleRate` (TRACE_SAMPLE_RATE) is the share of requests traced; the decision is taken once per
 * request at its root and carried to every node, so a trace is whole or absent.
 */
export function tracingOptions(enabled: boolean, sampleRate = 1): BrokerOptions["tracing"] {
  return {
    enabled,
    sampling: { rate: sampleRate },
    // Moleculer accepts exporter instances; its typings only list names and {type, options}.
    exporter: enabled ? [new OpenTelemetryExporter({}) as never] : [],
    events: true,
    tags: { action: { params: false, meta: false }, event: { params: false, meta: false } },
  };
}

type Hook = (next: (...args: unknown[]) => unknown, def: unknown) => (...args: unknown[]) => unknown;

/** What the tracer's sampling reads of a span: Moleculer's default priority, as its action spans have. */
const UNSTARTED_SPAN = { priority: 5 };

/**
 * Moleculer's Tracing middleware, paid for by sampled requests only. Moleculer builds a span, its
 * tags and a spot on the context's span stack for every action and event, sampled or not, and
 * drops the unsampled ones at the exporter. Here the sampling decision comes first: the one the
 * request carries (`ctx.tracing`, inherited by every child context and sent in every request
 * packet, so a remote node keeps the caller's decision), or, at the request's root, the tracer's
 * (`shouldSample`, the call Moleculer's span would make). Sampled, an action's span is built as
 * Moleculer's middleware builds it, without its Span object (./observability/action-spans.ts), and an
 * event goes through Moleculer's middleware unchanged; unsampled, straight to the handler, with
 * `ctx.tracing = false` for its children.
 */
export function sampledTracingMiddleware(broker: ServiceBroker): Middleware {
  // Moleculer exports its built-in middlewares without typings.
  const builtins = (
    moleculer as unknown as { Middlewares: Record<string, (b: ServiceBroker) => Record<string, Hook | null>> }
  ).Middlewares;
  const builtin = builtins.Tracing.call(broker, broker);
  const tracer = (broker as unknown as { tracer: { shouldSample(span: unknown): boolean } }).tracer;
  const sampled = (ctx: Context): boolean => {
    if (ctx.tracing == null) ctx.tracing = tracer.shouldSample(UNSTARTED_SPAN);
    return ctx.tracing;
  };
  const leanAction = actionSpans(broker);
  const onlySampled = (hook: Hook | null | undefined, lean?: typeof leanAction): Hook | undefined =>
    hook
      ? (next, def) => {
          const moleculers = hook.call(broker, next, def);
          if (moleculers === next) return next;
          // A sampled action call's span without Moleculer's Span object (./observability/action-spans.ts).
          const traced =
            (lean?.(next as never, def as never) as ((...args: unknown[]) => unknown) | null) ?? moleculers;
          // Actions and events (Moleculer 0.15) are called with the context alone.
          return function sampledOnly(this: unknown, ctx: unknown) {
            return sampled(ctx as Context) ? traced.call(this, ctx) : next.call(this, ctx);
          };
        }
      : undefined;
  return {
    name: "Tracing",
    localAction: onlySampled(builtin.localAction, leanAction),
    localEvent: onlySampled(builtin.localEvent),
  } as unknown as Middleware;
}

/** Starts the SDK for this process (exporter, endpoint, sampling from OTEL_* variables). */
export function startTelemetry(serviceName: string, extra: Partial<NodeSDKConfiguration> = {}): NodeSDK {
  const sdk = new NodeSDK({
    serviceName,
    instrumentations: [],
    ...extra,
  });
  sdk.start();
  return sdk;
}
