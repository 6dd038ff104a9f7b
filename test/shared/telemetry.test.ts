/**
 * Tracing: one HTTP request through the gateway, over NATS to accounts, and from there over NATS
 * to the store service gives one trace whose spans form a tree across the three brokers (three
 * nodes on the bus; one OS process, so one in-memory exporter sees every span); no span carries a
 * password, a token or a query string.
 */
import { randomUUID } from "node:crypto";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace";
import type { NodeSDK } from "@opentelemetry/sdk-node";
import { startTelemetry } from "../../shared/telemetry";
import { ADMIN_PASSWORD, login, request, startPlatform, type Platform } from "../support/platform";

const exporter = new InMemorySpanExporter();
let sdk: NodeSDK;
let gateway: Platform;
let accounts: Platform;
let store: Platform;

beforeAll(async () => {
  sdk = startTelemetry("telemetry-test", { spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  // OTEL_TRACES_EXPORTER turns Moleculer's tracing on; the SDK above decides where spans go.
  const env = {
    TRANSPORTER: process.env.NATS_URL!,
    NAMESPACE: `o-${randomUUID().slice(0, 8)}`,
    OTEL_TRACES_EXPORTER: "otlp",
  };
  store = await startPlatform({ services: ["store"], env });
  accounts = await startPlatform({ services: ["accounts"], env });
  gateway = await startPlatform({ services: ["gateway"], env: { ...env, AUTH_CACHE_MS: "0" } });
  await gateway.broker.waitForServices(["accounts"], 10_000);
});
afterAll(async () => {
  await gateway.stop();
  await accounts.stop();
  await store.stop();
  await sdk.shutdown();
});

test("a request's spans share one trace and nest across the bus", async () => {
  const token = await login(gateway.baseUrl);
  exporter.reset();
  const reply = await request(
    gateway.baseUrl,
    "GET",
    `/user-management/accounts?limit=5&token=${encodeURIComponent(token)}`,
    {
      headers: { "x-request-id": "client-chosen-id" },
    },
  );
  expect(reply.status).toBe(200);
  await new Promise((r) => setTimeout(r, 200));
  const spans = exporter.getFinishedSpans();
  const root = spans.find((s) => s.name === "GET /user-management/accounts")!;
  expect(root).toBeDefined();
  const traceId = root.spanContext().traceId;
  expect(traceId).toMatch(/^[0-9a-f]{32}$/);
  const inTrace = spans.filter((s) => s.spanContext().traceId === traceId);
  const byId = new Map(inTrace.map((s) => [s.spanContext().spanId, s]));
  const list = inTrace.find((s) => s.name === "action 'accounts.list'")!;
  const authenticate = inTrace.find((s) => s.name === "action 'accounts.authenticate'")!;
  expect(list).toBeDefined();
  expect(authenticate).toBeDefined();
  // Walk up from the accounts span (another broker, across NATS) to the gateway's request span.
  const ancestors = (span: typeof list) => {
    const chain: string[] = [];
    let parent = span.parentSpanContext?.spanId;
    while (parent && byId.has(parent)) {
      chain.push(byId.get(parent)!.name);
      parent = byId.get(parent)!.parentSpanContext?.spanId;
    }
    return chain;
  };
  expect(ancestors(list)).toContain("GET /user-management/accounts");
  expect(ancestors(authenticate)).toContain("GET /user-management/accounts");
  // The third node: the store's spans hang under the accounts action that called them.
  const storeSpans = inTrace.filter((s) => /^action 'store\./.test(s.name));
  expect(storeSpans.length).toBeGreaterThan(0);
  const underList = storeSpans.filter((s) => ancestors(s).includes("action 'accounts.list'"));
  expect(underList.length).toBeGreaterThan(0);
  expect(ancestors(underList[0]).at(-1)).toBe("GET /user-management/accounts");
});

test("no span carries a password, a token or a query string", async () => {
  exporter.reset();
  const token = await login(gateway.baseUrl);
  await request(gateway.baseUrl, "GET", `/whoami?token=${encodeURIComponent(token)}`);
  await new Promise((r) => setTimeout(r, 200));
  const spans = exporter.getFinishedSpans();
  expect(spans.length).toBeGreaterThan(3);
  const text = JSON.stringify(
    spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events })),
  );
  expect(text).not.toContain(ADMIN_PASSWORD);
  expect(text).not.toContain(token);
  expect(text).not.toContain("token=");
});
