/**
 * What encoding a batch of finished spans as an OTLP/protobuf request costs (docs/performance-rounds.md,
 * "Tracing, eighth round"): the SDK's serializer and the platform's writer
 * (shared/observability/otlp-protobuf.ts), taking turns in one process on the same batch of 512
 * spans (the BatchSpanProcessor's batch) made as the platform makes a traced read's two spans
 * (shared/observability/span-export.ts `endSpan`); CPU µs per span, the median and best round.
 *
 *   node dist/bench/support/otlp-encoding-micro.js [rounds, 40] [batches per round, 20] [kinds, sdk,own]
 */
import { SpanKind } from "@opentelemetry/api";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { randomUUID } from "node:crypto";
import { startTelemetry, traceIdOf } from "../../shared/telemetry";
import { endSpan, spanSink, type SpanSink } from "../../shared/observability/span-export";
import { encodeSpans } from "../../shared/observability/otlp-protobuf";

const rounds = Number(process.argv[2] ?? 40);
const batches = Number(process.argv[3] ?? 20);
const kinds = (process.argv[4] ?? "sdk,own").split(",");

/** 512 spans: a read's request span and its accounts.list child, with the tags they carry. */
function batch(sink: SpanSink): ReadableSpan[] {
  const spans: ReadableSpan[] = [];
  const onEnd = (s: unknown) => void spans.push(s as ReadableSpan);
  const capture = { ...sink, tracer: { ...sink.tracer, _spanProcessor: { onEnd } } } as unknown as SpanSink;
  const hex16 = () => traceIdOf(randomUUID()).slice(0, 16);
  for (let i = 0; i < 256; i++) {
    const traceId = traceIdOf(randomUUID());
    const root = hex16();
    const common = { nodeID: "bench-node-1", callerNodeID: "bench-node-1", remoteCall: false };
    endSpan(capture, {
      traceId,
      spanId: root,
      parentSpanId: undefined,
      name: "GET /user-management/accounts",
      kind: SpanKind.SERVER,
      startMs: Date.now(),
      finishMs: Date.now() + 0.8,
      attributes: {
        callingLevel: 1,
        "action.name": "api.rest",
        "action.rawName": "rest",
        ...common,
        "options.timeout": 10000,
        requestID: traceId,
        method: "GET",
        path: "/user-management/accounts",
        fromCache: false,
        "service.component": "api",
      },
      error: undefined,
    });
    endSpan(capture, {
      traceId,
      spanId: hex16(),
      parentSpanId: root,
      name: "action 'accounts.list'",
      kind: SpanKind.INTERNAL,
      startMs: Date.now(),
      finishMs: Date.now() + 0.5,
      attributes: {
        callingLevel: 2,
        "action.name": "accounts.list",
        "action.rawName": "list",
        ...common,
        "options.timeout": 10000,
        requestID: traceId,
        fromCache: false,
        "service.component": "accounts",
      },
      error: undefined,
    });
  }
  return spans;
}

function main(): void {
  const sdk = startTelemetry("otlp-encoding-micro", {
    spanProcessors: [{ onStart() {}, onEnd() {}, forceFlush: async () => {}, shutdown: async () => {} }],
  });
  const spans = batch(spanSink("moleculer")!);
  const encoders: Record<string, (s: ReadableSpan[]) => Uint8Array | null | undefined> = {
    sdk: (s) => ProtobufTraceSerializer.serializeRequest(s),
    own: encodeSpans,
  };
  const figures = kinds.map(() => [] as number[]);
  let bytes = 0;
  const round = (kind: string) => {
    const cpu = process.cpuUsage();
    for (let b = 0; b < batches; b++) bytes += encoders[kind](spans)!.length;
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / (batches * spans.length);
  };
  for (let r = 0; r < 5; r++) for (const kind of kinds) round(kind);
  for (let r = 0; r < rounds; r++)
    for (const i of r % 2 ? [...kinds.keys()].reverse() : kinds.keys()) figures[i].push(round(kinds[i]));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
  for (const [i, kind] of kinds.entries())
    console.log(
      JSON.stringify({
        kind,
        cpuUsPerSpan: { median: +median(figures[i]).toFixed(3), best: +Math.min(...figures[i]).toFixed(3) },
        bytesPerBatch: encoders[kind](spans)!.length,
      }),
    );
  void bytes;
  void sdk.shutdown();
}

main();
