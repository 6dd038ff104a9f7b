/**
 * The request body, read the way moleculer-web's body parsers (body-parser's `json` then
 * `urlencoded`) read it, with a shorter way for the common request: `Content-Type:
 * application/json` (charset absent or utf-8), a Content-Length within the limit, no
 * Content-Encoding. body-parser runs type-is, content-type, raw-body, iconv-lite and debug on
 * every request, about 5 µs of CPU each; this way reads the chunks and parses them itself, the
 * same text by the same steps: utf-8 decoded chunk by chunk (a leading BOM dropped, as iconv-lite
 * does), an empty text is `{}`, strict (an object or an array), JSON.parse. Every other request,
 * and every failure of a short-way check before reading, goes to body-parser as before, so its
 * errors (413, 415, 400) stay its own. test/gateway/body-reader.test.ts holds the two to the same
 * answers.
 */
import { AsyncResource } from "node:async_hooks";
import type { IncomingMessage, ServerResponse } from "node:http";
import { StringDecoder } from "node:string_decoder";
import ApiGateway from "moleculer-web";

type Next = (err?: unknown) => void;
type Middleware = (req: IncomingMessage, res: ServerResponse, next: Next) => void;

/** What body-parser's json accepts without a charset other than utf-8 (any case, as type-is). */
const PLAIN_JSON = /^application\/json(?:; ?charset=utf-8)?$/i;
const DIGITS = /^\d{1,15}$/;
const BOM = "\uFEFF";

/** body-parser's options for both parsers: the limit as the `bytes` package writes it ("1mb", "2kb", "100"). */
export interface BodyOptions {
  limit: string;
  json: Record<string, unknown>;
  urlencoded: Record<string, unknown>;
}

const UNITS: Record<string, number> = {
  b: 1,
  kb: 1 << 10,
  mb: 1 << 20,
  gb: 1 << 30,
  tb: 2 ** 40,
  pb: 2 ** 50,
};

/**
 * The limit in bytes as the `bytes` package reads it, for the forms it documents; undefined for
 * anything else, and then every request takes body-parser's way (which reads it itself).
 */
export function limitInBytes(limit: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?) *(b|kb|mb|gb|tb|pb)?$/i.exec(limit.trim());
  if (!m) return undefined;
  const bytes = Math.floor(Number(m[1]) * UNITS[(m[2] ?? "b").toLowerCase()]);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** body-parser's error shape: its `type` is what gateway/error-response.ts answers by. */
function bodyError(message: string, type: string): Error {
  return Object.assign(new Error(message), { status: 400, statusCode: 400, expose: true, type });
}

/** The first character that is not JSON whitespace (RFC 7159: space, tab, LF, CR), or "". */
function firstNonWhitespace(text: string): string {
  for (const ch of text) if (ch !== " " && ch !== "\t" && ch !== "\n" && ch !== "\r") return ch;
  return "";
}

/** body-parser's strict json parse of a decoded body. */
export function parseStrictJson(text: string): unknown {
  if (text.length === 0) return {};
  if (text[0] !== "{" && text[0] !== "[") {
    const first = firstNonWhitespace(text);
    if (first !== "{" && first !== "[")
      throw bodyError(`Unexpected token ${JSON.stringify(first)} in JSON`, "entity.parse.failed");
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw bodyError((err as Error).message, "entity.parse.failed");
  }
}

/** Whether this request may take the short way; `length` its Content-Length. */
function shortWayLength(req: IncomingMessage, limit: number | undefined): number | undefined {
  if (limit === undefined || (req as { upgrade?: boolean }).upgrade || !req.readable || !req.socket?.readable)
    return undefined;
  const { headers } = req;
  if (headers["transfer-encoding"] !== undefined || headers["content-encoding"] !== undefined)
    return undefined;
  const type = headers["content-type"];
  const declared = headers["content-length"];
  if (type === undefined || declared === undefined || !PLAIN_JSON.test(type) || !DIGITS.test(declared))
    return undefined;
  const length = Number(declared);
  if (length === 0 || length > limit || req.readableEncoding !== null) return undefined;
  return length;
}

/**
 * A request with neither Content-Length nor Transfer-Encoding has no body (type-is's hasBody, which
 * body-parser asks first): both parsers would only set `req.body` to undefined, unless the request
 * has finished (on-finished's test, which they ask before that), and call `next`. That is done here
 * without them: a read (GET) no longer pays their checks and `debug` calls twice.
 */
function withoutBody(req: IncomingMessage & { body?: unknown }): boolean {
  const { headers } = req;
  if (headers["content-length"] !== undefined || headers["transfer-encoding"] !== undefined) return false;
  const finished =
    (req as { upgrade?: boolean }).upgrade || !req.socket?.readable || (req.complete && !req.readable);
  if (!finished && !("body" in req)) req.body = undefined;
  return true;
}

/** The route's one body middleware: the short way, else body-parser's json then urlencoded. */
export function bodyReader(options: BodyOptions): Middleware {
  const parsers = (ApiGateway as unknown as { bodyParser: Record<string, (o: unknown) => Middleware> })
    .bodyParser;
  const json = parsers.json({ ...options.json, limit: options.limit });
  const urlencoded = parsers.urlencoded({ ...options.urlencoded, limit: options.limit });
  const limit = limitInBytes(options.limit);

  const bodyParsers: Middleware = (req, res, next) =>
    json(req, res, (err) => (err ? next(err) : urlencoded(req, res, next)));

  return function readBody(req, res, next) {
    if (withoutBody(req)) return next();
    const length = shortWayLength(req, limit);
    if (length === undefined) return bodyParsers(req, res, next);
    readJson(req as IncomingMessage & { body?: unknown }, length, next);
  };
}

/**
 * Reads and parses the body, then calls `next` in the caller's async context (raw-body binds its
 * callback the same way: the request scope's log fields stay with the request). One chunk, the
 * usual case, is decoded at once: the same text as iconv-lite's chunk-by-chunk decoder except
 * when the body ends inside a character, which is not JSON either way. Chunks that arrived apart
 * are decoded chunk by chunk, as raw-body does; a body already whole in the buffer is one chunk,
 * as it was to raw-body when it arrived in one piece (they differ only for bytes that are not
 * utf-8 across the pieces' boundary).
 */
function readJson(req: IncomingMessage & { body?: unknown }, length: number, next: Next): void {
  // Usually the whole body came with the head and waits in the stream's buffer: taken at once,
  // without flowing the stream (its 'end' follows, so the server reuses the connection as before).
  if (req.complete && req.readableFlowing === null && req.readableLength === length) {
    const all = req.read() as Buffer;
    let body: unknown;
    try {
      body = parseStrictJson(decodeUtf8([all]));
    } catch (err) {
      return next(err);
    }
    req.body = body;
    return next();
  }
  const scope = new AsyncResource("gateway.body");
  const chunks: Buffer[] = [];
  let received = 0;
  let complete = false;

  const finish = (err?: Error) => {
    if (complete) return;
    complete = true;
    cleanup();
    scope.runInAsyncScope(next, null, err);
  };
  // A read that fails leaves the stream paused, as raw-body's; its error a 400 as body-parser's.
  const failRead = (err: Error) => {
    req.pause();
    const status = (err as { status?: number }).status;
    finish(status === undefined ? Object.assign(err, { status: 400, statusCode: 400, expose: true }) : err);
  };
  const onData = (chunk: Buffer) => {
    if (complete) return;
    received += chunk.length;
    chunks.push(chunk);
  };
  const onEnd = () => {
    if (complete) return;
    if (received !== length)
      return failRead(bodyError("request size did not match content length", "request.size.invalid"));
    let body: unknown;
    try {
      body = parseStrictJson(decodeUtf8(chunks));
    } catch (err) {
      return finish(err as Error);
    }
    req.body = body;
    finish();
  };
  const onError = (err: Error) => failRead(err);
  const onAborted = () => failRead(bodyError("request aborted", "request.aborted"));
  function cleanup() {
    req.removeListener("aborted", onAborted);
    req.removeListener("data", onData);
    req.removeListener("end", onEnd);
    req.removeListener("error", onError);
    req.removeListener("close", cleanup);
  }
  req.on("aborted", onAborted);
  req.on("close", cleanup);
  req.on("data", onData);
  req.on("end", onEnd);
  req.on("error", onError);
}

/** utf-8 text of the body with a leading BOM dropped, as iconv-lite's decoder (raw-body's) gives it. */
export function decodeUtf8(chunks: Buffer[]): string {
  if (chunks.length === 1) {
    const text = chunks[0].toString("utf8");
    return text[0] === BOM ? text.slice(1) : text;
  }
  const decoder = new StringDecoder("utf8");
  let text = "";
  let started = false;
  for (const chunk of chunks) {
    let part = decoder.write(chunk);
    if (!started && part) {
      started = true;
      if (part[0] === BOM) part = part.slice(1);
    }
    text += part;
  }
  // iconv-lite's BOM strip looks at its decoder's writes only, not at what `end` flushes.
  return text + decoder.end();
}
