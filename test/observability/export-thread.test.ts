/**
 * The OTLP/HTTP exporters' requests sent from a worker thread (shared/observability/export-thread.ts):
 * against a collector that answers each way the SDK's transport tells apart (success with a body,
 * 503 with Retry-After, 400 with a body, no answer in time), the moved transport answers as the SDK's
 * own does on this thread, with the same headers, compression and body reaching the collector; only
 * plain-HTTP transports are moved, once; a shut-down transport sends nothing more.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import {
  createOtlpHttpExportDelegate,
  httpAgentFactoryFromOptions,
} from "@opentelemetry/otlp-exporter-base/node-http";
import { OffThreadTransport, exportOffThread } from "../../shared/observability/export-thread";

interface Seen {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}
const seen: Seen[] = [];
let answer: (res: http.ServerResponse) => void = (res) => res.end();
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    seen.push({ path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks) });
    answer(res);
  });
});
let url: string;
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

type Inner = { send(data: Uint8Array, timeout: number): Promise<Record<string, unknown>>; shutdown(): void };

/** The SDK's own HTTP transport for `target`, as its OTLP/HTTP exporter builds it. */
function sdkTransport(target: string, compression: "gzip" | "none"): Inner & { _parameters: unknown } {
  const options = {
    url: target,
    headers: () => Promise.resolve({ "x-tenant": "blue" }),
    compression,
    agentFactory: httpAgentFactoryFromOptions({ keepAlive: true }),
    timeoutMillis: 10_000,
    concurrencyLimit: 10,
  } as unknown as Parameters<typeof createOtlpHttpExportDelegate>[0];
  const delegate = createOtlpHttpExportDelegate(
    options,
    { serializeRequest: (d: Uint8Array) => d, deserializeResponse: (d: Uint8Array) => d } as never,
    "otlp_http_span_exporter",
    { name: "span", countItems: () => 0 } as never,
    undefined,
  );
  const transport = (delegate as unknown as { _transport: { _transport: Inner & { _utils: unknown } } })
    ._transport._transport;
  // Jest's module sandbox refuses the transport's dynamic import of `http`: given what it would give.
  transport._utils = { agent: new http.Agent({ keepAlive: true }), request: http.request };
  return transport as unknown as Inner & { _parameters: unknown };
}

/** What a caller reads of a transport's answer. */
const outcome = (r: Record<string, unknown>) => {
  const error = r.error as { name?: string; message?: string; code?: number; data?: string } | undefined;
  return {
    status: r.status,
    retryInMillis: r.retryInMillis,
    data: r.data === undefined ? undefined : Buffer.from(r.data as Uint8Array).toString(),
    error: error && { name: error.name, message: error.message, code: error.code, data: error.data },
  };
};

test.each(["none", "gzip"] as const)(
  "the moved transport answers as the SDK's own, and the collector sees the same request (compression %s)",
  async (compression) => {
    const own = sdkTransport(url, compression);
    const moved = new OffThreadTransport(
      (own as unknown as { _parameters: ConstructorParameters<typeof OffThreadTransport>[0] })._parameters,
    );
    const payload = Buffer.from("the request's bytes");
    const answers: [string, (res: http.ServerResponse) => void][] = [
      ["success", (res) => res.end("accepted")],
      ["retryable", (res) => res.writeHead(503, { "retry-after": "2" }).end()],
      ["failure", (res) => res.writeHead(400, "Bad Request").end("no such field")],
    ];
    try {
      for (const [status, respond] of answers) {
        answer = respond;
        seen.length = 0;
        const a = outcome(await own.send(payload, 10_000));
        const b = outcome(await moved.send(payload, 10_000));
        expect(a.status).toBe(status);
        expect(b).toEqual(a);
        expect(seen).toHaveLength(2);
        const [fromOwn, fromMoved] = seen;
        expect(fromMoved.path).toBe("/v1/traces");
        expect(fromMoved.headers["x-tenant"]).toBe("blue");
        expect(fromMoved.headers["user-agent"]).toBe(fromOwn.headers["user-agent"]);
        expect(fromMoved.headers["content-encoding"]).toBe(fromOwn.headers["content-encoding"]);
        const body = (s: Seen) => (s.headers["content-encoding"] === "gzip" ? gunzipSync(s.body) : s.body);
        expect(body(fromMoved)).toEqual(payload);
        expect(body(fromOwn)).toEqual(payload);
      }
    } finally {
      moved.shutdown();
      answer = (res) => res.end();
    }
  },
);

test("requests under way at once to one endpoint each carry their own headers", async () => {
  // Two: the pool sends a worker one request ahead of the one it runs.
  const tenants = ["blue", "green"];
  const moved = tenants.map(
    (tenant) =>
      new OffThreadTransport({
        url,
        headers: () => ({ "x-tenant": tenant }),
        compression: "none",
      }),
  );
  // Answered only once all three are in, so they are under way together in the worker.
  const waiting: http.ServerResponse[] = [];
  answer = (res) => {
    waiting.push(res);
    if (waiting.length === tenants.length) for (const r of waiting) r.end("ok");
  };
  seen.length = 0;
  try {
    const answers = await Promise.all(moved.map((t, i) => t.send(Buffer.from(tenants[i]), 10_000)));
    expect(answers.map((a) => a.status)).toEqual(["success", "success"]);
    expect(seen.map((s) => [s.headers["x-tenant"], s.body.toString()]).sort()).toEqual(
      tenants.map((t) => [t, t]).sort(),
    );
  } finally {
    for (const t of moved) t.shutdown();
    answer = (res) => res.end();
  }
});

test("a collector that does not answer in time: the request's own timeout, as the SDK's", async () => {
  const own = sdkTransport(url, "none");
  const moved = new OffThreadTransport(
    (own as unknown as { _parameters: ConstructorParameters<typeof OffThreadTransport>[0] })._parameters,
  );
  answer = () => undefined; // never answered
  try {
    const a = outcome(await own.send(Buffer.from("x"), 300));
    const b = outcome(await moved.send(Buffer.from("x"), 300));
    expect(a.status).toBe("retryable");
    expect(b.status).toBe(a.status);
    expect(b.error?.message).toBe(a.error?.message);
  } finally {
    moved.shutdown();
    server.closeAllConnections();
    answer = (res) => res.end();
  }
});

test("only plain-HTTP transports are moved, once; a shut-down transport sends nothing", async () => {
  const exporter = (transport: unknown) => ({
    _exporter: { _delegate: { _transport: { _transport: transport } } },
  });
  const plain = sdkTransport(url, "none");
  const secure = sdkTransport("https://127.0.0.1:1/v1/traces", "none");
  const grpc = { send: () => undefined, shutdown: () => undefined };
  const first = exporter(plain);
  const second = exporter(secure);
  const tree = { _spanProcessors: [first, second, { _spanProcessors: [exporter(grpc)] }] };
  expect(exportOffThread(tree)).toBe(1);
  const moved = first._exporter._delegate._transport._transport as OffThreadTransport;
  expect(moved).toBeInstanceOf(OffThreadTransport);
  expect(second._exporter._delegate._transport._transport).toBe(secure);
  expect(exportOffThread(tree)).toBe(0);
  seen.length = 0;
  moved.shutdown();
  const after = outcome(await moved.send(Buffer.from("late"), 1_000));
  expect(after.status).toBe("failure");
  expect(seen).toHaveLength(0);
});
