"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.OpenTelemetryExporter = exports.traceIdOf = exports.MoleculerIdGenerator = void 0;
exports.telemetryEnabled = telemetryEnabled;
exports.tracingOptions = tracingOptions;
exports.startTelemetry = startTelemetry;
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
const node_crypto_1 = require("node:crypto");
const api_1 = require("@opentelemetry/api");
const sdk_node_1 = require("@opentelemetry/sdk-node");
const moleculer_1 = require("moleculer");
function telemetryEnabled(env = process.env) {
    const exporter = env.OTEL_TRACES_EXPORTER;
    return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT ||
        env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ||
        (exporter && exporter !== "none"));
}
/** The ids the next span must take; set just before the SDK creates it (synchronously). */
let nextIds = {};
/** Gives a span the ids Moleculer chose, and random ones otherwise. */
class MoleculerIdGenerator {
    generateTraceId() {
        return nextIds.traceId ?? (0, node_crypto_1.randomBytes)(16).toString("hex");
    }
    generateSpanId() {
        return nextIds.spanId ?? (0, node_crypto_1.randomBytes)(8).toString("hex");
    }
}
exports.MoleculerIdGenerator = MoleculerIdGenerator;
/**
 * Moleculer's ids are UUIDs (32 hex digits once the dashes go), but the trace id is the request id,
 * which a caller may choose (X-Request-ID): anything else is hashed into a valid id.
 */
function hexId(id, length) {
    const hex = id.replace(/-/g, "").toLowerCase();
    return /^[0-9a-f]{32}$/.test(hex)
        ? hex.slice(0, length)
        : (0, node_crypto_1.createHash)("sha256").update(id).digest("hex").slice(0, length);
}
const traceIdOf = (id) => hexId(id, 32);
exports.traceIdOf = traceIdOf;
const spanIdOf = (id) => hexId(id, 16);
function attributesOf(tags, prefix = "") {
    const out = {};
    for (const [key, value] of Object.entries(tags ?? {})) {
        const name = prefix ? `${prefix}.${key}` : key;
        if (value === null || value === undefined)
            continue;
        if (typeof value === "object" && !Array.isArray(value))
            Object.assign(out, attributesOf(value, name));
        else if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
            out[name] = value;
    }
    return out;
}
class OpenTelemetryExporter extends moleculer_1.TracerExporters.Base {
    spanFinished(finished) {
        const span = finished;
        const traceId = (0, exports.traceIdOf)(span.traceID);
        const parent = span.parentID
            ? api_1.trace.setSpanContext(api_1.ROOT_CONTEXT, {
                traceId,
                spanId: spanIdOf(span.parentID),
                traceFlags: api_1.TraceFlags.SAMPLED,
                isRemote: true,
            })
            : api_1.ROOT_CONTEXT;
        nextIds = { traceId, spanId: spanIdOf(span.id) };
        let otel;
        try {
            otel = api_1.trace.getTracer("moleculer").startSpan(span.name, {
                startTime: span.startTime,
                kind: span.type === "action" && !span.parentID ? api_1.SpanKind.SERVER : api_1.SpanKind.INTERNAL,
                attributes: {
                    ...attributesOf(span.tags),
                    "service.component": span.service?.fullName ?? span.service?.name ?? "",
                },
            }, parent);
        }
        finally {
            nextIds = {};
        }
        if (span.error)
            otel.setStatus({
                code: api_1.SpanStatusCode.ERROR,
                message: `${span.error.name ?? "Error"}: ${span.error.message ?? ""}`,
            });
        otel.end(span.finishTime);
    }
}
exports.OpenTelemetryExporter = OpenTelemetryExporter;
/**
 * Moleculer's tracing options: on with telemetry, and never a param or meta value in a span.
 * `sampleRate` (TRACE_SAMPLE_RATE) is the share of requests traced; the decision is taken once per
 * request at its root and carried to every node, so a trace is whole or absent.
 */
function tracingOptions(enabled, sampleRate = 1) {
    return {
        enabled,
        sampling: { rate: sampleRate },
        // Moleculer accepts exporter instances; its typings only list names and {type, options}.
        exporter: enabled ? [new OpenTelemetryExporter({})] : [],
        events: true,
        tags: { action: { params: false, meta: false }, event: { params: false, meta: false } },
    };
}
/** Starts the SDK for this process (exporter, endpoint, sampling from OTEL_* variables). */
function startTelemetry(serviceName, extra = {}) {
    const sdk = new sdk_node_1.NodeSDK({
        serviceName,
        idGenerator: new MoleculerIdGenerator(),
        instrumentations: [],
        ...extra,
    });
    sdk.start();
    return sdk;
}
//# sourceMappingURL=telemetry.js.map