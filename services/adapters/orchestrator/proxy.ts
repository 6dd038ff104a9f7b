/**
 * Operations 1 and 2 (docs/orchestrator.md): one request to an orchestrator adapter's target,
 * through the adapter's circuit breaker and in-flight limit, over its connection pool, with its
 * timeout, and the upstream answer mapped: 2xx/3xx -> answered; 4xx/5xx -> 502 with
 * `{status, body}`; unreachable -> 502; too slow -> 504. Idempotent methods (GET, PUT, DELETE) are
 * retried on a connection failure, with backoff; POST and PATCH never, since the first attempt may
 * have committed.
 */
import { EventEmitter } from "node:events";
import { performance } from "node:perf_hooks";
import { request, type Dispatcher } from "undici";
import { Errors } from "moleculer";
import { BadGatewayError, invalidField } from "../../../shared/errors";
import { abandonTrial, admit, recordFailure, recordSuccess } from "./breaker";
import { poolFor } from "./connections";
import { limiterFor, type Limiter } from "./limiter";
import { GatewayTimeoutError, headerValueProblem, OverloadedError, resolvePath, type Target } from "./target";

/** Upstream bodies larger than this are refused (502), not buffered without end. */
export const MAX_UPSTREAM_BODY = 16 * 1024 * 1024;
/**
 * Upstream JSON nested deeper than this is refused (502) before it is parsed: the answer goes on to
 * callers and workflow tasks, where every input is bounded at the same depth (MAX_INPUT_DEPTH's
 * default), and a recursive walk of a value 5,000 levels deep would overflow the stack.
 */
export const MAX_UPSTREAM_DEPTH = 64;
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

/** The upstream answered, but with a body the platform will not use (too large, too deep). */
class UnusableBody extends Error {}

/**
 * Is the JSON text nested deeper than `limit`? One pass over the text, no recursion, strings
 * skipped. A text holding at most `limit` `{` and `[` in all cannot be (most answers): that is
 * counted first, natively, at a fraction of the pass's cost.
 */
export function nestedDeeperThan(text: string, limit: number): boolean {
  // Depth is at most the number of openers (those inside strings count too: a looser bound, never wrong).
  const braces = countUpTo(text, "{", limit + 1);
  if (braces + countUpTo(text, "[", limit + 1 - braces) <= limit) return false;
  return scanDeeperThan(text, limit);
}

/** How many `char` in `text`, counting no further than `max`. */
function countUpTo(text: string, char: string, max: number): number {
  let count = 0;
  for (let i = text.indexOf(char); i !== -1 && count < max; i = text.indexOf(char, i + 1)) count++;
  return count;
}

function scanDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

type Body = Dispatcher.ResponseData["body"];

const tooLarge = () => new UnusableBody(`the answer is larger than ${MAX_UPSTREAM_BODY} bytes`);

/**
 * The body's text, read up to MAX_UPSTREAM_BODY (the stream is dropped past it, or at once when its
 * content-length says it is larger). Read with 'data' events, not `for await`: the async iterator
 * cost about 15 µs of CPU per answer of 2 KB (docs/orchestrator.md#performance).
 */
function readText(body: Body, length: number): Promise<string> {
  if (length > MAX_UPSTREAM_BODY) {
    body.destroy();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (err: Error) => {
      settled = true;
      reject(err);
    };
    body.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_UPSTREAM_BODY) chunks.push(chunk);
      else if (!settled) {
        body.destroy();
        fail(tooLarge());
      }
    });
    // 'on', not 'once': a stream emits each of these once at most (a late one finds `settled`), and
    // once-wrappers cost every answer three more objects.
    body.on("end", () => {
      settled = true;
      resolve(
        chunks.length === 1 ? chunks[0].toString("utf8") : Buffer.concat(chunks, size).toString("utf8"),
      );
    });
    body.on("error", fail);
    // Last resort: a stream closed without 'end' or 'error'. Checked first: an Error costs its stack.
    body.on("close", () => {
      if (!settled) fail(new Error("the answer was cut off"));
    });
  });
}

/** The body: parsed JSON for JSON media types (depth-bounded), the text otherwise, undefined when empty. */
async function readBody(body: Body, contentType: string, length: number) {
  const text = await readText(body, length);
  if (text === "") return undefined;
  if (!isJsonType(contentType)) return text;
  if (nestedDeeperThan(text, MAX_UPSTREAM_DEPTH))
    throw new UnusableBody(`the answer's JSON is nested deeper than ${MAX_UPSTREAM_DEPTH} levels`);
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function attempt(target: Target, url: URL, req: UpstreamRequest, signal: Deadline) {
  const headers: Record<string, string> = { ...target.headers, accept: req.accept };
  let payload: string | undefined;
  if (req.body !== undefined && req.method !== "GET") {
    payload = JSON.stringify(req.body);
    headers["content-type"] = req.contentType ?? req.accept;
  }
  // undici follows no redirect unless told to: a redirect could point outside the base URL.
  const res = await request(url, {
    method: req.method as any,
    headers,
    body: payload,
    signal,
    dispatcher: poolFor(target),
  });
  const type = res.headers["content-type"];
  const length = Number(res.headers["content-length"]);
  return {
    status: res.statusCode,
    body: await readBody(res.body, Array.isArray(type) ? type[0] : (type ?? ""), length),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function unreachable(target: Target, err: any): BadGatewayError {
  // The cause's code or message only: it names no credential (they travel in a header, not the URL).
  return new BadGatewayError(`Adapter '${target.name}': the orchestrator could not be reached`, {
    body: { adapter: target.name, cause: String(err?.code ?? err?.cause?.code ?? err?.message ?? err) },
  });
}

function unusable(target: Target, err: UnusableBody): BadGatewayError {
  return new BadGatewayError(
    `Adapter '${target.name}': the orchestrator's answer cannot be used: ${err.message}`,
    {
      body: { adapter: target.name, cause: err.message },
    },
  );
}

/**
 * A request undici refuses to build (a header value it will not send...) is the caller's error: 400,
 * never retried, never counted against the orchestrator. The header values a caller supplies are
 * checked before this (checkCallerHeaders), so this is the last line only.
 */
const isRequestInvalid = (err: any) => err?.code === "UND_ERR_INVALID_ARG";

/**
 * A request's deadline: undici's abort signal, fired after `ms` (clear its timer when done). Not
 * AbortSignal.timeout: its timer cannot be cleared, so each answered call left one pending for the
 * whole timeout (30 s by default), a hundred thousand at a few thousand calls a second. And an
 * EventEmitter, which undici takes as a signal too, not an AbortController: an AbortSignal's
 * listener costs more to add and remove on every call.
 */
class Deadline extends EventEmitter {
  aborted = false;
  readonly timer: NodeJS.Timeout;
  constructor(ms: number) {
    super();
    this.timer = setTimeout(fire, ms, this);
  }
}

function fire(deadline: Deadline): void {
  deadline.aborted = true;
  deadline.emit("abort");
}

function deadline(ms: number): { signal: Deadline; timer: NodeJS.Timeout } {
  const signal = new Deadline(ms);
  return { signal, timer: signal.timer };
}

/**
 * One request within the adapter's timeout (all retries included); throws the mapped error. Its
 * outcome and time go to `target.onUpstream`. One function, not one per concern: each async layer
 * costs every call a promise.
 */
async function exchange(target: Target, url: URL, req: UpstreamRequest): Promise<UpstreamReply> {
  const started = performance.now();
  const { signal, timer } = deadline(target.timeoutMs);
  let outcome = "unreachable";
  try {
    for (let tries = 0; ; tries++) {
      try {
        const reply = await attempt(target, url, req, signal);
        outcome = `${Math.floor(reply.status / 100)}xx`;
        return reply;
      } catch (err: any) {
        if (signal.aborted) {
          outcome = "timeout";
          throw new GatewayTimeoutError(target.name, target.timeoutMs);
        }
        if (err instanceof UnusableBody) throw unusable(target, err);
        if (isRequestInvalid(err))
          throw invalidField(
            "params",
            `The request cannot be sent: ${String(err.message)}`,
            "requestInvalid",
          );
        if (IDEMPOTENT.has(req.method) && tries < RETRIES) {
          await sleep(BACKOFF_MS * 2 ** tries);
          continue;
        }
        throw unreachable(target, err);
      }
    }
  } finally {
    clearTimeout(timer);
    target.onUpstream?.(outcome, performance.now() - started);
  }
}

/** The header values the caller chose (`params.accept`, `params.contentType`): 400 naming the field. */
function checkCallerHeaders(req: UpstreamRequest): void {
  // Field by field, not a list of pairs: this runs on every call.
  if (req.accept !== undefined) checkCallerHeader("params.accept", req.accept);
  if (req.contentType !== undefined) checkCallerHeader("params.contentType", req.contentType);
}

function checkCallerHeader(field: string, value: string): void {
  const problem = headerValueProblem(value);
  if (problem) throw invalidField(field, `${field} ${problem}`, "headerValue");
}

/**
 * The target's limiter, kept beside the target (kept itself until its adapter changes): the shared
 * one of its name and limits (limiterFor), looked up once per target rather than per call.
 */
const limiters = new WeakMap<Target, Limiter>();
function limiterOf(target: Target): Limiter {
  let limiter = limiters.get(target);
  if (!limiter) {
    limiter = limiterFor(target.name, target.maxInFlight, target.maxQueue);
    limiters.set(target, limiter);
  }
  return limiter;
}

/** The caller's own mistake (a 4xx the platform raised before or instead of sending): not the upstream's failure. */
const isCallerError = (err: unknown) => err instanceof Errors.MoleculerClientError && (err.code ?? 500) < 500;

/**
 * Sends one request; answers the upstream status and body (any status), or throws for a
 * transport failure. The breaker counts only the upstream's own failures: transport failures,
 * timeouts, 5xx answers and bodies it cannot use. A caller's error (a bad path or header value)
 * is refused before the breaker is asked, and counts for nothing.
 */
export async function exchangeGuarded(target: Target, req: UpstreamRequest): Promise<UpstreamReply> {
  const url = resolvePath(target, req.path);
  checkCallerHeaders(req);
  const method = req.method.toUpperCase();
  admit(target);
  const limiter = limiterOf(target);
  let reply: UpstreamReply;
  try {
    reply = await limiter.run(
      () => exchange(target, url, { ...req, method }),
      () => new OverloadedError(target.name),
    );
  } catch (err) {
    if (err instanceof OverloadedError || isCallerError(err)) abandonTrial(target.name);
    else recordFailure(target);
    throw err;
  }
  if (reply.status >= 500) recordFailure(target);
  else recordSuccess(target.name);
  return reply;
}

/** Sends one request; answers a 2xx/3xx reply, or throws the mapped error (4xx/5xx -> 502). */
export async function send(target: Target, req: UpstreamRequest): Promise<UpstreamReply> {
  const reply = await exchangeGuarded(target, req);
  if (reply.status >= 400)
    throw new BadGatewayError(`Adapter '${target.name}': the orchestrator answered ${reply.status}`, {
      status: reply.status,
      body: reply.body,
    });
  return reply;
}

/**
 * A health check's GET: one attempt within the adapter's timeout, over its pool, past the breaker
 * and the in-flight limit (a check must see a recovery the breaker is still refusing calls for).
 * Any status is answered; a transport failure or timeout throws.
 */
export async function probe(target: Target, path: string): Promise<UpstreamReply> {
  const url = resolvePath(target, path);
  const { signal, timer } = deadline(target.timeoutMs);
  try {
    return await attempt(target, url, { method: "GET", path, accept: "application/json" }, signal);
  } catch (err) {
    if (signal.aborted) throw new GatewayTimeoutError(target.name, target.timeoutMs);
    throw unreachable(target, err);
  } finally {
    clearTimeout(timer);
  }
}
