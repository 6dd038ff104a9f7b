/**
 * The conversion of a finished Moleculer span to an OpenTelemetry span (shared/telemetry.ts,
 * OpenTelemetryExporter): ids (UUIDs to hex, a caller's request id hashed, the cache of ids giving
 * the same answer twice), tags flattened to dotted attributes (nulls and arrays left out), the
 * component, the parent link and the error status.
 */
import { createHash } from "node:crypto";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace";
import type { NodeSDK } from "@opentelemetry/sdk-node";
import { OpenTelemetryExporter, startTelemetry, traceIdOf } from "../../shared/telemetry";

const exporter = new InMemorySpanExporter();
let sdk: NodeSDK;
beforeAll(() => {
  sdk = startTelemetry("span-export-test", { spanProcessors: [new SimpleSpanProcessor({ exporter })] });
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
