/**
 * Sampled tracing (shared/telemetry.ts, sampledTracingMiddleware): the gateway takes the sampling
 * decision once per request and the other nodes keep it. An unsampled request makes no span on any
 * node (not even an unexported one); a sampled one still has its child spans across the bus.
 * Three brokers over NATS (gateway, accounts, store), one in-memory exporter; the gateway's
 * decision is stubbed so the test chooses which request is sampled.
 */
import { randomUUID } from "node:crypto";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace";
import type { NodeSDK } from "@opentelemetry/sdk-node";
import type { ServiceBroker } from "moleculer";
import { startTelemetry, traceIdOf } from "../../shared/telemetry";
import { login, request, startPlatform, type Platform } from "../support/platform";

const exporter = new InMemorySpanExporter();
let sdk: NodeSDK;
let gateway: Platform;
let accounts: Platform;
let store: Platform;
let token: string;
/**
 * Trace ids (Moleculer's request ids) of every span started on any of the three brokers: through
 * the tracer (Moleculer's Span, sampled or not) or handed to the exporters (an action's span,
 * built without the tracer: shared/observability/action-spans.ts).
 */
const started: { node: string; traceID: string }[] = [];
let decision = true;

interface Tracer {
  exporter: {
    spanStarted(span: { traceID: string }): void;
    spanFinished(span: unknown): void;
    stop(): void;
  }[];
  startSpan(name: string, opts?: { traceID?: string }): unknown;
  shouldSample(span: unknown): boolean;
}
const tracerOf = (broker: ServiceBroker) => (broker as unknown as { tracer: Tracer }).tracer;

beforeAll(async () => {
  sdk = startTelemetry("sampled-tracing-test", { spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const env = {
    TRANSPORTER: process.env.NATS_URL!,
    NAMESPACE: `s-${randomUUID().slice(0, 8)}`,
    OTEL_TRACES_EXPORTER: "otlp",
    TRACE_SAMPLE_RATE: "0.5",
  };
  store = await startPlatform({ services: ["store"], env });
  accounts = await startPlatform({ services: ["accounts"], env });
  gateway = await startPlatform({ services: ["gateway"], env: { ...env, AUTH_CACHE_MS: "0" } });
  await gateway.broker.waitForServices(["accounts"], 10_000);
  for (const [node, p] of [
    ["gateway", gateway],
    ["accounts", accounts],
    ["store", store],
  ] as const) {
    const tracer = tracerOf(p.broker);
    const startSpan = tracer.startSpan.bind(tracer);
    tracer.startSpan = (name, opts) => {
      started.push({ node, traceID: opts?.traceID ?? "" });
      return startSpan(name, opts);
    };
    tracer.exporter.push({
      spanStarted: (span) => started.push({ node, traceID: span.traceID }),
      spanFinished: () => {},
      // The tracer stops its exporters with the broker (without it each stop logged a TypeError).
      stop: () => {},
    });
  }
  decision = true;
  tracerOf(gateway.broker).shouldSample = () => decision;
  token = await login(gateway.baseUrl);
});
afterAll(async () => {
  await gateway.stop();
  await accounts.stop();
  await store.stop();
  await sdk.shutdown();
});

async function get(sampled: boolean): Promise<string> {
  decision = sampled;
  const id = randomUUID();
  const reply = await request(gateway.baseUrl, "GET", "/user-management/accounts?limit=5", {
    headers: { authorization: `Bearer ${token}`, "x-request-id": id },
  });
  expect(reply.status).toBe(200);
  return id;
}

test("an unsampled request creates no span on any node; a sampled one spans all three", async () => {
  const unsampled = await get(false);
  const sampled = await get(true);
  const unsampledAgain = await get(false);
  await new Promise((r) => setTimeout(r, 200));

  const nodesOf = (id: string) => new Set(started.filter((s) => s.traceID === id).map((s) => s.node));
  expect(nodesOf(unsampled).size).toBe(0);
  expect(nodesOf(unsampledAgain).size).toBe(0);
  expect([...nodesOf(sampled)].sort()).toEqual(["accounts", "gateway", "store"]);

  const spans = exporter.getFinishedSpans();
  const inTrace = (id: string) => spans.filter((s) => s.spanContext().traceId === traceIdOf(id));
  expect(inTrace(unsampled)).toHaveLength(0);
  expect(inTrace(unsampledAgain)).toHaveLength(0);
  // The sampled request's spans are whole: the request span, accounts' actions and the store's
  // actions under them, across the bus.
  const names = inTrace(sampled).map((s) => s.name);
  expect(names).toContain("GET /user-management/accounts");
  expect(names).toContain("action 'accounts.list'");
  expect(names.some((n) => /^action 'store\./.test(n))).toBe(true);
  const byId = new Map(inTrace(sampled).map((s) => [s.spanContext().spanId, s]));
  for (const span of inTrace(sampled))
    if (span.name !== "GET /user-management/accounts")
      expect(byId.has(span.parentSpanContext!.spanId)).toBe(true);
});

test("the decision is the gateway's alone: the other nodes never sample a request themselves", async () => {
  const asked = { accounts: 0, store: 0 };
  for (const [node, p] of [
    ["accounts", accounts],
    ["store", store],
  ] as const) {
    const tracer = tracerOf(p.broker);
    const shouldSample = tracer.shouldSample.bind(tracer);
    tracer.shouldSample = (span) => {
      asked[node]++;
      return shouldSample(span);
    };
  }
  await get(false);
  await get(true);
  expect(asked).toEqual({ accounts: 0, store: 0 });
});
