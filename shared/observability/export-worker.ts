/**
 * The entry of the OTLP exporters' worker thread (./export-thread.ts): each task is one export
 * request, sent with the SDK's own HTTP transport (its compression, user agent, timeout, the
 * retryable statuses and `Retry-After`, the answer's size bound), one transport kept per endpoint,
 * so its keep-alive agent is reused, each request with its own headers. The answer goes back as
 * plain data (an error as its message, code and body).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import {
  createOtlpHttpExportDelegate,
  httpAgentFactoryFromOptions,
} from "@opentelemetry/otlp-exporter-base/node-http";
import { serveTasks } from "../worker-pool";

export interface ExportRequest {
  url: string;
  headers: Record<string, string>;
  compression?: string;
  userAgent?: string;
  data: Uint8Array;
  timeoutMillis: number;
}

export interface ExportAnswer {
  status: "success" | "failure" | "retryable";
  data?: Uint8Array;
  retryInMillis?: number;
  error?: { message: string; code?: number; data?: string };
}

interface Transport {
  _utils: { agent: { destroy(): void } } | null;
  send(
    data: Uint8Array,
    timeoutMillis: number,
  ): Promise<{ status: ExportAnswer["status"]; data?: Uint8Array; retryInMillis?: number; error?: Error }>;
}

/** Transports by endpoint, compression and user agent: a handful in a process. */
const transports = new Map<string, Transport>();
const MAX_TRANSPORTS = 8;

/**
 * The headers of the request a transport is sending: the main thread resolves them for each
 * request (a headers function may rotate a token), and two requests may be under way at once.
 */
const requestHeaders = new AsyncLocalStorage<Record<string, string>>();

/** The SDK's HTTP transport as its OTLP/HTTP exporters build it, for one endpoint. */
function transportFor(request: ExportRequest): Transport {
  const key = JSON.stringify([request.url, request.compression, request.userAgent]);
  let transport = transports.get(key);
  if (transport) return transport;
  const options = {
    url: request.url,
    headers: () => Promise.resolve({ ...requestHeaders.getStore() }),
    compression: request.compression,
    userAgent: request.userAgent,
    // The SDK's default for plain HTTP (its certificate options apply to https: only).
    agentFactory: httpAgentFactoryFromOptions({ keepAlive: true }),
    timeoutMillis: request.timeoutMillis,
    concurrencyLimit: Infinity,
  } as unknown as Parameters<typeof createOtlpHttpExportDelegate>[0];
  // The bytes are already the request's: the delegate's serializer is never called here.
  const bytes = {
    serializeRequest: (data: Uint8Array) => data,
    deserializeResponse: (data: Uint8Array) => data,
  };
  // The delegate's own metrics go to a no-op meter here (the main thread's exporter keeps the SDK's).
  const counted = { name: "span", countItems: () => 0 } as never;
  const delegate = createOtlpHttpExportDelegate(
    options,
    bytes,
    "otlp_http_span_exporter",
    counted,
    undefined,
  );
  transport = (delegate as unknown as { _transport: { _transport: Transport } })._transport._transport;
  if (transports.size >= MAX_TRANSPORTS) {
    // Their keep-alive sockets go with them.
    for (const old of transports.values()) old._utils?.agent.destroy();
    transports.clear();
  }
  transports.set(key, transport);
  return transport;
}

serveTasks<ExportRequest, never, undefined, ExportAnswer>(
  () => undefined,
  async (request) => {
    const transport = transportFor(request);
    const response = await requestHeaders.run(request.headers, () =>
      transport.send(request.data, request.timeoutMillis),
    );
    const error = response.error as (Error & { code?: number; data?: string }) | undefined;
    return {
      status: response.status,
      data: response.data,
      retryInMillis: response.retryInMillis,
      error: error && { message: error.message, code: error.code, data: error.data },
    };
  },
);
