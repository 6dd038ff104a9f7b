/**
 * What a sampled span costs from the platform's exporter to the bytes of its OTLP request
 * (docs/performance-rounds.md, "Tracing, ninth round"), for several builds in turns in one process: a
 * traced read's two finished Moleculer spans (the gateway's and `accounts.list`'s, with their
 * tags) handed to each build's `OpenTelemetryExporter`, flushed every four reads as the event loop
 * would, into a processor that keeps them and encodes each batch of 512 with that build's writer,
 * as the NodeSDK's exporter does (sending aside). CPU µs per span, the median and best round; the
 * bytes written, which are the same for every build when the encodings agree.
 *
 *   node dist/bench/support/span-path-micro.js DIST[,DIST...] [rounds, 16] [spans per round, 20000]
 */
import path from "node:path";
import { randomUUID } from "node:crypto";
import { trace } from "@opentelemetry/api";
import { startTelemetry } from "../../shared/telemetry";
import type * as telemetry from "../../shared/telemetry";
import type * as otlp from "../../shared/observability/otlp-protobuf";
import type { MoleculerSpan } from "../../shared/observability/moleculer-span";

const builds = (process.argv[2] ?? path.resolve(__dirname, "../..")).split(",").map((d) => path.resolve(d));
const rounds = Number(process.argv[3] ?? 16);
const perRound = Number(process.argv[4] ?? 20_000);

interface Side {
  dist: string;
  exporter: telemetry.OpenTelemetryExporter;
  bytes: number;
  cpu: number[];
}

/** The SDK tracer's fields a sink reads (shared/observability/span-export.ts). */
interface Tracer {
  _resource: unknown;
  instrumentationScope: unknown;
  _spanLimits: object;
  _sampler: unknown;
}

function side(dist: string, tracer: Tracer): Side {
  /* eslint-disable @typescript-eslint/no-require-imports -- builds chosen at run time */
  const t: typeof telemetry = require(path.join(dist, "shared/telemetry.js"));
  const o: typeof otlp = require(path.join(dist, "shared/observability/otlp-protobuf.js"));
  /* eslint-enable @typescript-eslint/no-require-imports */
  const s: Side = { dist, exporter: new t.OpenTelemetryExporter({}), bytes: 0, cpu: [] };
  let batch: unknown[] = [];
  const processor = {
    onEnd(span: unknown) {
      if (batch.push(span) < 512) return;
      s.bytes += o.ownTraceSerializer.serializeRequest(batch as never)?.length ?? 0;
      batch = [];
    },
  };
  // The sink as spanSink makes it behind the NodeSDK's OTLP/protobuf exporter (a build without
  // the bytes path ignores `bytes`).
  Object.assign(s.exporter, {
    sink: {
      tracer: { ...tracer, _spanProcessor: processor },
      keepsAll: true,
      bytes: { resource: tracer._resource, scope: tracer.instrumentationScope, countLimit: 128 },
    },
  });
  return s;
}

/** A traced read's finished spans, as the platform's tracer hands them over. */
function readSpans(at: number): MoleculerSpan[] {
  const requestID = randomUUID();
  const root = randomUUID();
  const common = { remoteCall: false, callerNodeID: "node-12345", nodeID: "node-12345", requestID };
  const options = { timeout: 10_000, retries: undefined };
  return [
    {
      name: "GET /user-management/accounts",
      type: "action",
      id: root,
      traceID: requestID,
      startTime: at,
      finishTime: at + 0.8,
      tags: {
        callingLevel: 1,
        action: { name: "api.rest", rawName: "rest" },
        ...common,
        options,
        method: "GET",
        path: "/user-management/accounts",
        fromCache: undefined,
      },
      service: { name: "api", fullName: "api" },
      error: null,
    },
    {
      name: "action 'accounts.list'",
      type: "action",
      id: randomUUID(),
      traceID: requestID,
      parentID: root,
      startTime: at + 0.1,
      finishTime: at + 0.7,
      tags: { callingLevel: 2, action: { name: "accounts.list", rawName: "list" }, ...common, options },
      service: { name: "accounts", fullName: "accounts" },
      error: null,
    },
  ];
}

function round(s: Side): number {
  const cpu = process.cpuUsage();
  for (let i = 0; i < perRound; i += 2) {
    for (const span of readSpans(Date.now() + (i % 7) * 0.37)) s.exporter.spanFinished(span);
    if (i % 8 === 6) s.exporter.flush();
  }
  s.exporter.flush();
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / perRound;
}

async function main(): Promise<void> {
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = "http://127.0.0.1:9";
  const sdk = startTelemetry("span-path-micro");
  const provider = trace.getTracerProvider() as unknown as {
    getDelegate(): { getTracer(n: string): Tracer };
  };
  const tracer = provider.getDelegate().getTracer("moleculer");
  const sides = builds.map((dist) => side(dist, tracer));
  for (let r = 0; r < 3; r++) for (const s of sides) round(s);
  for (let r = 0; r < rounds; r++) for (const s of r % 2 ? [...sides].reverse() : sides) s.cpu.push(round(s));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
  for (const s of sides)
    console.log(
      JSON.stringify({
        dist: s.dist,
        cpuUsPerSpan: { median: +median(s.cpu).toFixed(3), best: +Math.min(...s.cpu).toFixed(3) },
        bytes: s.bytes,
      }),
    );
  await sdk.shutdown();
}

void main();
