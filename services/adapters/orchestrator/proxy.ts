/**
 * Operations 1 and 2 (docs/orchestrator.md): one request to an orchestrator adapter's target,
 * through the adapter's in-flight limit, with its timeout, and the upstream answer mapped:
 * 2xx/3xx -> answered; 4xx/5xx -> 502 with `{status, body}`; unreachable -> 502; too slow -> 504.
 * Idempotent methods (GET, PUT, DELETE) are retried on a connection failure, with backoff; POST
 * and PATCH never, since the first attempt may have committed.
 */
import { BadGatewayError } from "../../../shared/errors";
import { limiterFor } from "./limiter";
import { GatewayTimeoutError, OverloadedError, resolvePath, type Target } from "./target";

/** Upstream bodies larger than this are refused (502), not buffered without end. */
export const MAX_UPSTREAM_BODY = 16 * 1024 * 1024;
const IDEMPOTENT = new Set(["GET", "PUT", "DELETE"]);
const RETRIES = 2;
const BACKOFF_MS = 100;

export interface UpstreamRequest {
  method: string;
  path: string;
  accept: string;
  contentType?: string;
  body?: unknown;
}

export interface UpstreamReply {
  status: number;
  /** Parsed JSON for JSON media types, the text otherwise; undefined when there is no body. */
  body: unknown;
}

const isJsonType = (type: string) => /[/+]json\b/i.test(type);

async function readBody(res: Response): Promise<unknown> {
  const declared = Number(res.headers.get("content-length") ?? 0);
  if (declared > MAX_UPSTREAM_BODY) throw new Error("upstream body too large");
  const text = await res.text();
  if (text.length > MAX_UPSTREAM_BODY) throw new Error("upstream body too large");
  if (text === "") return undefined;
  if (isJsonType(res.headers.get("content-type") ?? "")) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

async function attempt(target: Target, url: URL, req: UpstreamRequest): Promise<UpstreamReply> {
  const headers: Record<string, string> = { ...target.headers, accept: req.accept };
  let payload: string | undefined;
  if (req.body !== undefined && req.method !== "GET") {
    payload = JSON.stringify(req.body);
    headers["content-type"] = req.contentType ?? req.accept;
  }
  const res = await fetch(url, {
    method: req.method,
    headers,
    body: payload,
    redirect: "manual", // a redirect could point outside the base URL
    signal: AbortSignal.timeout(target.timeoutMs),
  });
  return { status: res.status, body: await readBody(res) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends one request; answers the upstream status and body, or throws the mapped error. */
export async function send(target: Target, req: UpstreamRequest): Promise<UpstreamReply> {
  const url = resolvePath(target, req.path);
  const method = req.method.toUpperCase();
  const limiter = limiterFor(target.name, target.maxInFlight, target.maxQueue);
  const reply = await limiter.run(
    async () => {
      for (let tries = 0; ; tries++) {
        try {
          return await attempt(target, url, { ...req, method });
        } catch (err: any) {
          if (err?.name === "TimeoutError") throw new GatewayTimeoutError(target.name, target.timeoutMs);
          if (IDEMPOTENT.has(method) && tries < RETRIES) {
            await sleep(BACKOFF_MS * 2 ** tries);
            continue;
          }
          // The cause's message only: it names no credential (they travel in a header, not the URL).
          throw new BadGatewayError(`Adapter '${target.name}': the orchestrator could not be reached`, {
            body: { adapter: target.name, cause: String(err?.cause?.code ?? err?.message ?? err) },
          });
        }
      }
    },
    () => new OverloadedError(target.name),
  );
  if (reply.status >= 400)
    throw new BadGatewayError(`Adapter '${target.name}': the orchestrator answered ${reply.status}`, {
      status: reply.status,
      body: reply.body,
    });
  return reply;
}
