/**
 * What a sampled action call's span costs (docs/performance-rounds.md, "Tracing, sixth round"): three
 * brokers in this process run the same call (an action calling another, as the gateway calls
 * accounts.list) over and over: tracing off, every call traced through Moleculer's own Tracing
 * middleware, every call traced through the platform's (shared/observability/action-spans.ts);
 * and `unsampled`: tracing on, no call sampled (TRACE_SAMPLE_RATE=0), the platform's middleware.
 * The exporter keeps nothing: the figure is the span's making, not its export. A fourth, `export`,
 * is `platform` with the platform's exporter (shared/telemetry.ts) into the OpenTelemetry SDK, a
 * BatchSpanProcessor and an exporter that encodes each batch as OTLP protobuf (the platform's
 * writer in place of the SDK's serializer, as in the NodeSDK's exporter) and drops it: the figure over `platform` is a traced call's export, sending aside.
 * Rounds interleave the brokers; CPU µs per call, median and best round of each.
 *
 *   node dist/bench/support/action-spans-micro.js [rounds, 40] [calls per round, 2000] [kinds, all]
 *
 * One kind alone (`... 1 2000 platform`) under `valgrind --tool=callgrind`, at two call counts:
 * the difference in instructions over the difference in calls is a call's, whatever the load.
 */
import { ServiceBroker, TracerExporters, type Context, type Middleware } from "moleculer";
import { ExportResultCode } from "@opentelemetry/core";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace";
import {
  OpenTelemetryExporter,
  sampledTracingMiddleware,
  startTelemetry,
  tracingOptions,
} from "../../shared/telemetry";
import { MOLECULER_INTERNAL_MIDDLEWARES } from "../../shared/observability/internal-middlewares";

const rounds = Number(process.argv[2] ?? 40);
const calls = Number(process.argv[3] ?? 2000);

type Kind = "off" | "unsampled" | "moleculer" | "platform" | "export";
let encoded = 0;

async function start(kind: Kind): Promise<ServiceBroker> {
  let spans = 0;
  const exporter = new (class extends TracerExporters.Base {
    override spanFinished() {
      spans++;
    }
  })({});
  const broker = new ServiceBroker({
    nodeID: `micro-${kind}`,
    logger: false,
    tracing: {
      ...(tracingOptions(kind !== "off", kind === "unsampled" ? 0 : 1) as object),
      exporter: [(kind === "export" ? new OpenTelemetryExporter({}) : exporter) as never],
    },
    internalMiddlewares: false,
    middlewares: MOLECULER_INTERNAL_MIDDLEWARES.map((name) =>
      name === "Tracing" && kind !== "moleculer"
        ? (sampledTracingMiddleware as unknown as Middleware)
        : (name as unknown as Middleware),
    ),
  });
  broker.createService({
    name: "outer",
    actions: {
      rest: {
        tracing: {
          spanName: (ctx: Context) => `GET ${(ctx.params as { path: string }).path}`,
          tags: (ctx: Context) => ({ method: "GET", path: (ctx.params as { path: string }).path }),
        },
        handler: (ctx: Context) => ctx.call("inner.list", { limit: 10 }),
      },
    },
  });
  broker.createService({ name: "inner", actions: { list: () => [1, 2, 3] } });
  await broker.start();
  void spans;
  return broker;
}

async function round(broker: ServiceBroker): Promise<number> {
  const cpu = process.cpuUsage();
  for (let i = 0; i < calls; i++) {
    await broker.call("outer.rest", { path: "/user-management/accounts" });
    // A turn of the event loop now and then, as requests get: the export runs on the next turn.
    if (i % 8 === 7) await new Promise((resolve) => setImmediate(resolve));
  }
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / calls;
}

async function main(): Promise<void> {
  // Shaped as the SDK's OTLP exporter (its serializer on `_delegate`), so the platform's writer
  // takes the place of the SDK's serializer as in the NodeSDK's exporter (otlp-protobuf.ts).
  const delegate = { _serializer: ProtobufTraceSerializer as typeof ProtobufTraceSerializer };
  const sdk = startTelemetry("action-spans-micro", {
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: {
          _delegate: delegate,
          export(spans: ReadableSpan[], done: (result: { code: ExportResultCode }) => void) {
            encoded += delegate._serializer.serializeRequest(spans)?.length ?? 0;
            done({ code: ExportResultCode.SUCCESS });
          },
          shutdown: () => Promise.resolve(),
        } as SpanExporter,
      }),
    ],
  });
  const all: Kind[] = ["off", "unsampled", "moleculer", "platform", "export"];
  const kinds = all.filter((kind) => (process.argv[4] ?? all.join(",")).split(",").includes(kind));
  const brokers = await Promise.all(kinds.map(start));
  const figures: number[][] = kinds.map(() => []);
  for (let r = 0; r < 5; r++) for (const b of brokers) await round(b);
  for (let r = 0; r < rounds; r++)
    for (const i of r % 2 ? [...kinds.keys()].reverse() : kinds.keys())
      figures[i].push(await round(brokers[i]));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
  for (const [i, kind] of kinds.entries()) {
    // Over tracing off, round by round (the neighbours share the machine's load).
    const spans = figures[i].map((x, r) => x - figures[0][r]);
    console.log(
      JSON.stringify({
        kind,
        cpuUsPerCall: { median: +median(figures[i]).toFixed(2), best: +Math.min(...figures[i]).toFixed(2) },
        overOffPerCall: +median(spans).toFixed(2),
      }),
    );
  }
  for (const b of brokers) await b.stop();
  await sdk.shutdown();
  console.log(JSON.stringify({ encodedBytes: encoded }));
}

void main();
