/**
 * Traces over OpenTelemetry. Off unless OTEL_EXPORTER_OTLP_ENDPOINT (or _TRACES_ENDPOINT, or
 * OTEL_TRACES_EXPORTER) is set; then the NodeSDK exports with the standard OTEL_* variables.
 *
 * Moleculer traces every action and event itself and carries the trace across NATS in each
 * context. `OpenTelemetryExporter` hands Moleculer's finished spans to the OpenTelemetry SDK with
 * Moleculer's own trace and span ids (through `MoleculerIdGenerator`), so the spans of one request
 * join into one tree across every process.
 *
 * Spans carry no params and no meta (passwords, tokens, secrets would be in them): see
 * `tracingOptions`. The gateway's request span names the path, never the query string.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
  type Attributes,
} from "@opentelemetry/api";
import { NodeSDK, type NodeSDKConfiguration } from "@opentelemetry/sdk-node";
import * as moleculer from "moleculer";
import {
  TracerExporters,
  type BrokerOptions,
  type Context,
  type Middleware,
  type ServiceBroker,
} from "moleculer";

export function telemetryEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const exporter = env.OTEL_TRACES_EXPORTER;
  return Boolean(
    env.OTEL_EXPORTER_OTLP_ENDPOINT ||
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ||
    (exporter && exporter !== "none"),
  );
}

/** The ids the next span must take; set just before the SDK creates it (synchronously). */
let nextIds: { traceId?: string; spanId?: string } = {};

/** Gives a span the ids Moleculer chose, and random ones otherwise. */
export class MoleculerIdGenerator {
  generateTraceId(): string {
    return nextIds.traceId ?? randomBytes(16).toString("hex");
  }
  generateSpanId(): string {
    return nextIds.spanId ?? randomBytes(8).toString("hex");
  }
}

/**
 * Moleculer's ids are UUIDs (32 hex digits once the dashes go), but the trace id is the request id,
 * which a caller may choose (X-Request-ID): anything else is hashed into a valid id.
 */
const HEX32 = /^[0-9a-f]{32}$/;
/**
 * Ids hex'd lately, for sampled spans: the spans of a request share its trace id and name a recent
 * span as parent, and the conversion (a regex, or a hash) was 1% of a fully traced request's CPU.
 * Bounded: emptied at 1,024 entries (request ids may be a caller's).
 */
const hexIds = new Map<string, string>();
function hexId(id: string, length: 32 | 16): string {
  let hex = hexIds.get(id);
  if (hex === undefined) {
    const plain = id.replace(/-/g, "").toLowerCase();
    hex = HEX32.test(plain) ? plain : createHash("sha256").update(id).digest("hex").slice(0, 32);
    if (hexIds.size >= 1024) hexIds.clear();
    hexIds.set(id, hex);
  }
  return hex.slice(0, length);
}
export const traceIdOf = (id: string) => hexId(id, 32);
const spanIdOf = (id: string) => hexId(id, 16);

/** Moleculer's span tags as OpenTelemetry attributes: nested objects flattened to dotted names. */
function addAttributes(out: Attributes, tags: Record<string, unknown> | null | undefined, prefix = ""): void {
  if (tags === null || tags === undefined) return;
  for (const key of Object.keys(tags)) {
    const value = tags[key];
    if (value === null || value === undefined) continue;
    const name = prefix ? `${prefix}.${key}` : key;
    if (typeof value === "object" && !Array.isArray(value))
      addAttributes(out, value as Record<string, unknown>, name);
    else if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
      out[name] = value;
  }
}

interface MoleculerSpan {
  id: string;
  traceID: string;
  parentID?: string;
  name: string;
  type?: string;
  startTime: number;
  finishTime: number;
  tags: Record<string, unknown>;
  error?: { name?: string; message?: string } | null;
  service?: { name?: string; fullName?: string };
}

export class OpenTelemetryExporter extends TracerExporters.Base {
  override spanFinished(finished: unknown): void {
    const span = finished as MoleculerSpan;
    const traceId = traceIdOf(span.traceID);
    const parent = span.parentID
      ? trace.setSpanContext(ROOT_CONTEXT, {
          traceId,
          spanId: spanIdOf(span.parentID),
          traceFlags: TraceFlags.SAMPLED,
          isRemote: true,
        })
      : ROOT_CONTEXT;
    const attributes: Attributes = {};
    addAttributes(attributes, span.tags);
    attributes["service.component"] = span.service?.fullName ?? span.service?.name ?? "";
    nextIds = { traceId, spanId: spanIdOf(span.id) };
    let otel;
    try {
      otel = trace.getTracer("moleculer").startSpan(
        span.name,
        {
          startTime: span.startTime,
          kind: span.type === "action" && !span.parentID ? SpanKind.SERVER : SpanKind.INTERNAL,
          attributes,
        },
        parent,
      );
    } finally {
      nextIds = {};
    }
    if (span.error)
      otel.setStatus({
        code: SpanStatusCode.ERROR,
        message: `${span.error.name ?? "Error"}: ${span.error.message ?? ""}`,
      });
    otel.end(span.finishTime);
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
 * (`shouldSample`, the call Moleculer's span would make). Sampled, the call goes through
 * Moleculer's middleware unchanged, so sampled spans are as they were; unsampled, straight to the
 * handler, with `ctx.tracing = false` for its children.
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
  const onlySampled = (hook: Hook | null | undefined): Hook | undefined =>
    hook
      ? (next, def) => {
          const traced = hook.call(broker, next, def);
          if (traced === next) return next;
          // Actions and events (Moleculer 0.15) are called with the context alone.
          return function sampledOnly(this: unknown, ctx: unknown) {
            return sampled(ctx as Context) ? traced.call(this, ctx) : next.call(this, ctx);
          };
        }
      : undefined;
  return {
    name: "Tracing",
    localAction: onlySampled(builtin.localAction),
    localEvent: onlySampled(builtin.localEvent),
  } as unknown as Middleware;
}

/** Starts the SDK for this process (exporter, endpoint, sampling from OTEL_* variables). */
export function startTelemetry(serviceName: string, extra: Partial<NodeSDKConfiguration> = {}): NodeSDK {
  const sdk = new NodeSDK({
    serviceName,
    idGenerator: new MoleculerIdGenerator(),
    instrumentations: [],
    ...extra,
  });
  sdk.start();
  return sdk;
}
