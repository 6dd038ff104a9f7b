/**
 * The OTLP/HTTP exporters' requests sent from a worker thread (./export-worker.ts) instead of the
 * event loop (docs/operations-guide.md#cost).
 *
 * Why: an HTTP client in the process that serves HTTP runs Node's own stream, socket and HTTP code
 * with objects of the client's kinds (a `ClientRequest`, a response's `IncomingMessage`, another
 * socket's state) beside the server's. The shared code's property loads then see more shapes than
 * they can keep, and go the slow, megamorphic way for every request the server answers: with 10 %
 * of reads traced, about 6,000 instructions a read more than linear in the traced share, in Node's
 * `Readable`, `setHeader`, `_storeHeader`, `Socket._writeGeneric` and `Socket._read`
 * (docs/performance-rounds.md, forty-fifth round). A worker thread is an isolate of its own: its
 * requests leave the main thread's code alone, and their CPU (the request, the socket's writes, the
 * answer's parsing) is off the event loop too.
 *
 * What moves: only the innermost transport of an exporter the SDK built for OTLP over plain HTTP
 * (`http:`), whose agent is then the SDK's default (keep-alive; the certificate options apply to
 * `https:` only). The SDK's exporter keeps the rest on the main thread: the batching, the
 * serializer, the headers (resolved for each request and sent along), the retries and their
 * back-off, the concurrency bound, the metrics. `https:` and gRPC exporters keep their transports.
 */
import { OTLPExporterError } from "@opentelemetry/otlp-exporter-base";
import { WorkerPool, workerEntry } from "../worker-pool";
import type { ExportRequest, ExportAnswer } from "./export-worker";

/** The SDK's HTTP transport (otlp-exporter-base 0.301 `HttpExporterTransport`): its parameters. */
interface HttpParameters {
  url: string;
  headers: () => Promise<Record<string, string>> | Record<string, string>;
  compression?: string;
  userAgent?: string;
}

/** What the SDK's exporter gets back from a transport (`ExportResponse`). */
type ExportResponse =
  | { status: "success"; data?: Uint8Array }
  | { status: "failure"; error: Error }
  | { status: "retryable"; retryInMillis?: number; error?: Error };

/** More than the request's own timeout (the SDK's transport answers a timeout itself). */
const BUDGET_MARGIN_MS = 5_000;

/** The worker thread all of this process's moved transports share, started at the first request. */
let pool: WorkerPool<ExportAnswer> | null = null;
let users = 0;

function exportPool(): WorkerPool<ExportAnswer> {
  pool ??= new WorkerPool<ExportAnswer>(workerEntry(__dirname, "export-worker"), {
    size: 1,
    budgetMs: 30_000 + BUDGET_MARGIN_MS,
  });
  return pool;
}

/** A transport whose requests the worker thread sends, with the SDK transport's parameters. */
export class OffThreadTransport {
  private open = true;

  constructor(private readonly parameters: HttpParameters) {
    users++;
  }

  async send(data: Uint8Array, timeoutMillis: number): Promise<ExportResponse> {
    if (!this.open) return { status: "failure", error: new Error("OTLP transport shut down") };
    const request: ExportRequest = {
      url: this.parameters.url,
      headers: { ...(await this.parameters.headers()) },
      compression: this.parameters.compression,
      userAgent: this.parameters.userAgent,
      data,
      timeoutMillis,
    };
    try {
      const outcome = await exportPool().run(request, undefined, timeoutMillis + BUDGET_MARGIN_MS);
      if (outcome.overBudget)
        return { status: "retryable", error: new Error(`OTLP export ran past ${outcome.budgetMs} ms`) };
      return answerOf(outcome.result);
    } catch (err) {
      return { status: "failure", error: err as Error };
    }
  }

  shutdown(): void {
    if (!this.open) return;
    this.open = false;
    if (--users > 0 || !pool) return;
    const closing = pool;
    pool = null;
    void closing.close();
  }
}

/** The worker's answer as the SDK's transport gives it (errors rebuilt: a thread passes their text). */
function answerOf(answer: ExportAnswer): ExportResponse {
  const error =
    answer.error && new OTLPExporterError(answer.error.message, answer.error.code, answer.error.data);
  if (answer.status === "success") return { status: "success", data: answer.data };
  if (answer.status === "retryable")
    return { status: "retryable", retryInMillis: answer.retryInMillis, error };
  return { status: "failure", error: error ?? new OTLPExporterError("OTLP export failed") };
}

interface Node {
  _spanProcessors?: unknown[];
  _exporter?: { _delegate?: { _transport?: { _transport?: unknown } } };
}

/** The SDK's plain-HTTP transport with its default agent, or null for any other. */
function movableParameters(transport: unknown): HttpParameters | null {
  const t = transport as { _parameters?: HttpParameters; _loadUtils?: unknown } | null | undefined;
  const parameters = t?._parameters;
  if (!parameters || typeof t._loadUtils !== "function" || typeof parameters.headers !== "function")
    return null;
  try {
    if (new URL(parameters.url).protocol !== "http:") return null;
  } catch {
    return null;
  }
  return parameters;
}

/**
 * Puts an `OffThreadTransport` in place of the HTTP transport of every OTLP/HTTP exporter behind the
 * span processor (inside the SDK's retrying transport). How many it replaced.
 */
export function exportOffThread(processor: unknown): number {
  const node = processor as Node | null | undefined;
  if (!node) return 0;
  let replaced = 0;
  for (const inner of node._spanProcessors ?? []) replaced += exportOffThread(inner);
  const retrying = node._exporter?._delegate?._transport;
  const parameters = retrying && movableParameters(retrying._transport);
  if (retrying && parameters) {
    retrying._transport = new OffThreadTransport(parameters);
    replaced++;
  }
  return replaced;
}
