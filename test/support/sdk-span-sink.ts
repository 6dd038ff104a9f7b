/**
 * The NodeSDK as the platform starts it, for the tests of its span path (otlp-protobuf,
 * span-bytes): started before the calling file's (or describe's) tests with its OTLP exporter
 * pointed at a closed port, shut down after them.
 */
import type { NodeSDK } from "@opentelemetry/sdk-node";
import { startTelemetry } from "../../shared/telemetry";
import { spanSink, type SpanSink } from "../../shared/observability/span-export";

/** Registers the set-up and tear-down; answers a holder whose `sink` is Moleculer's span sink once started. */
export function sdkSpanSink(service: string): { sink: SpanSink } {
  const held = {} as { sink: SpanSink };
  let sdk: NodeSDK;
  beforeAll(() => {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = "http://127.0.0.1:9";
    sdk = startTelemetry(service);
    held.sink = spanSink("moleculer")!;
  });
  afterAll(async () => {
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    await sdk.shutdown();
  });
  return held;
}
