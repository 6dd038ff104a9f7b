/**
 * Spans written as OTLP bytes when they end (shared/observability/span-bytes.ts), end to end: three
 * brokers over NATS (gateway, accounts, store), the NodeSDK's OTLP/HTTP exporter (its batch
 * processor, transport and retries) and a collector over HTTP that reads what arrives. A sampled
 * request's spans arrive once each, an unsampled one's never; a refused export is sent again and
 * its spans arrive once; spans not yet exported when the platform stops are sent; no password,
 * token or query string is in any byte sent. The gateway's decision is stubbed, as in
 * sampled-tracing.test.ts, so the test chooses which request is sampled.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { gunzipSync } from "node:zlib";
import type { NodeSDK } from "@opentelemetry/sdk-node";
import type { ServiceBroker } from "moleculer";
import { startTelemetry, traceIdOf } from "../../shared/telemetry";
import { spanSink } from "../../shared/observability/span-export";
import { OffThreadTransport } from "../../shared/observability/export-thread";
import { ADMIN_PASSWORD, login, request, startPlatform, type Platform } from "../support/platform";

interface Received {
  traceId: string;
  spanId: string;
  name: string;
}

/** A protobuf message's fields: number, and a varint's value or a length-delimited field's bytes. */
function* fields(buf: Buffer): Generator<[number, Buffer | number]> {
  let p = 0;
  const varint = () => {
    let value = 0;
    let scale = 1;
    let byte: number;
    do {
      byte = buf[p++];
      value += (byte & 127) * scale;
      scale *= 128;
    } while (byte & 128);
    return value;
  };
  while (p < buf.length) {
    const key = varint();
    const wire = key & 7;
    if (wire === 0) yield [key >>> 3, varint()];
    else if (wire === 1 || wire === 5) p += wire === 1 ? 8 : 4;
    else if (wire === 2) {
      const length = varint();
      yield [key >>> 3, buf.subarray(p, p + length)];
      p += length;
    } else throw new Error(`wire type ${wire}`);
  }
}
const sub = (buf: Buffer, field: number) =>
  [...fields(buf)].filter(([f, v]) => f === field && Buffer.isBuffer(v)).map(([, v]) => v as Buffer);

/** The spans of an ExportTraceServiceRequest: resource spans (1) > scope spans (2) > spans (2). */
function spansOf(body: Buffer): Received[] {
  return sub(body, 1)
    .flatMap((resource) => sub(resource, 2))
    .flatMap((scope) => sub(scope, 2))
    .map((span) => ({
      traceId: sub(span, 1)[0].toString("hex"),
      spanId: sub(span, 2)[0].toString("hex"),
      name: sub(span, 5)[0].toString("utf8"),
    }));
}

/** The collector: answers 503 to the next `refuse` exports, 200 to the rest, and keeps what it took. */
const collector = { bodies: [] as Buffer[], refuse: 0, refused: 0 };
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    if (collector.refuse > 0) {
      collector.refuse--;
      collector.refused++;
      res.writeHead(503).end();
      return;
    }
    const body = Buffer.concat(chunks);
    collector.bodies.push(req.headers["content-encoding"] === "gzip" ? gunzipSync(body) : body);
    res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
  });
});
const received = () => collector.bodies.flatMap(spansOf);
const inTrace = (id: string) => received().filter((s) => s.traceId === traceIdOf(id));

let sdk: NodeSDK;
let gateway: Platform;
let accounts: Platform;
let store: Platform;
let token: string;
let decision = true;
let stopped = false;
const tracerOf = (broker: ServiceBroker) =>
  (broker as unknown as { tracer: { shouldSample(span: unknown): boolean; exporter: unknown[] } }).tracer;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.env.OTEL_BSP_SCHEDULE_DELAY = "50";
  sdk = startTelemetry("span-bytes-export-test");
  sendsOffThread();
  const env = {
    TRANSPORTER: process.env.NATS_URL!,
    NAMESPACE: `b-${randomUUID().slice(0, 8)}`,
    OTEL_EXPORTER_OTLP_ENDPOINT: process.env.OTEL_EXPORTER_OTLP_ENDPOINT,
    TRACE_SAMPLE_RATE: "0.5",
  };
  store = await startPlatform({ services: ["store"], env });
  accounts = await startPlatform({ services: ["accounts"], env });
  gateway = await startPlatform({ services: ["gateway"], env: { ...env, AUTH_CACHE_MS: "0" } });
  await gateway.broker.waitForServices(["accounts"], 10_000);
  tracerOf(gateway.broker).shouldSample = () => decision;
  decision = true;
  token = await login(gateway.baseUrl);
}, 30_000);
afterAll(async () => {
  if (!stopped) {
    await gateway.stop();
    await accounts.stop();
    await store.stop();
    await sdk.shutdown();
  }
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  delete process.env.OTEL_BSP_SCHEDULE_DELAY;
  server.close();
});

/**
 * The SDK's HTTP transport is replaced by one whose requests leave from a worker thread
 * (shared/observability/export-thread.ts): everything else (batching, retries, the send's own
 * code) is the SDK's, and the collector below sees what the SDK would send.
 */
function sendsOffThread(): void {
  const [batch] = (
    spanSink("moleculer")!.tracer._spanProcessor as unknown as {
      _spanProcessors: { _exporter: { _delegate: { _transport: { _transport: unknown } } } }[];
    }
  )._spanProcessors;
  expect(batch._exporter._delegate._transport._transport).toBeInstanceOf(OffThreadTransport);
}

async function get(sampled: boolean, query = "limit=5"): Promise<string> {
  decision = sampled;
  const id = randomUUID();
  const reply = await request(gateway.baseUrl, "GET", `/user-management/accounts?${query}`, {
    headers: { authorization: `Bearer ${token}`, "x-request-id": id },
  });
  expect(reply.status).toBe(200);
  return id;
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; !check() && Date.now() < end;)
    await new Promise((resolve) => setTimeout(resolve, 20));
}

/** The names of a sampled list's spans (its shape is the same each time). */
let shape: string[] = [];

test("a sampled request's spans arrive once each, an unsampled one's never, and no secret", async () => {
  const unsampled = await get(false, "limit=5&token=query-secret-1");
  const sampled = await get(true, "limit=5&token=query-secret-2");
  const unsampledAgain = await get(false);
  const sampledAgain = await get(true);
  await until(() => inTrace(sampled).length > 2 && inTrace(sampledAgain).length > 2);
  // Let any late export land before counting.
  await new Promise((resolve) => setTimeout(resolve, 300));

  // Every broker's spans left as bytes (the exporters hand the processor the written spans).
  for (const p of [gateway, accounts, store]) {
    const exporter = tracerOf(p.broker).exporter[0] as { sink?: { bytes: unknown } };
    expect(exporter.sink?.bytes).toBeTruthy();
  }
  expect(inTrace(unsampled)).toHaveLength(0);
  expect(inTrace(unsampledAgain)).toHaveLength(0);
  shape = inTrace(sampled)
    .map((s) => s.name)
    .sort();
  expect(shape).toContain("GET /user-management/accounts");
  expect(shape).toContain("action 'accounts.list'");
  expect(shape.some((n) => /^action 'store\./.test(n))).toBe(true);
  expect(
    inTrace(sampledAgain)
      .map((s) => s.name)
      .sort(),
  ).toEqual(shape);
  // Each span once: no span id twice among everything sent.
  const ids = received().map((s) => s.spanId);
  expect(new Set(ids).size).toBe(ids.length);
  // The login (sampled) carried the password; the requests a token and query strings.
  const sent = Buffer.concat(collector.bodies);
  for (const secret of [ADMIN_PASSWORD, token, "query-secret-1", "query-secret-2"])
    expect(sent.includes(secret)).toBe(false);
});

test("an export the collector refuses is sent again, and its spans arrive once", async () => {
  collector.refuse = 1;
  const refusedBefore = collector.refused;
  const first = await get(true);
  await until(() => collector.refused > refusedBefore);
  // Another batch exported while the refused one waits for its retry (about a second).
  const second = await get(true);
  await until(() => inTrace(first).length >= shape.length && inTrace(second).length >= shape.length, 15_000);
  expect(collector.refused).toBe(refusedBefore + 1);
  for (const id of [first, second])
    expect(
      inTrace(id)
        .map((s) => s.name)
        .sort(),
    ).toEqual(shape);
  const ids = received().map((s) => s.spanId);
  expect(new Set(ids).size).toBe(ids.length);
}, 20_000);

test("spans not yet exported when the platform stops are sent, once", async () => {
  // The batch processor's delay made long: only the stop's flush can send these spans.
  const processors = (
    spanSink("moleculer")!.tracer._spanProcessor as unknown as {
      _spanProcessors: { _scheduledDelayMillis: number }[];
    }
  )._spanProcessors;
  for (const p of processors) p._scheduledDelayMillis = 600_000;
  const before = collector.bodies.length;
  const ids = [await get(true), await get(true), await get(true)];
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(collector.bodies.length).toBe(before);
  stopped = true;
  await gateway.stop();
  await accounts.stop();
  await store.stop();
  await sdk.shutdown();
  for (const id of ids)
    expect(
      inTrace(id)
        .map((s) => s.name)
        .sort(),
    ).toEqual(shape);
  const all = received().map((s) => s.spanId);
  expect(new Set(all).size).toBe(all.length);
});
