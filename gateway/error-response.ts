/**
 * Every failure becomes docs/platform-rules.md#errors's body: { name, message, code, type, data }, with
 * `code` equal to the HTTP status. Never a stack trace; a 5xx body carries the request id.
 */
import { Errors } from "moleculer";
import ApiGateway from "moleculer-web";
import type { ServerResponse } from "node:http";
import { catalogueEntry, ERROR_TYPES, type FieldError } from "../shared/errors";
import type { GatewayService, Req } from "./types";

export interface ErrorBody {
  name: string;
  message: string;
  code: number;
  type: string;
  data?: unknown;
}

/** Validation failures as {field, message, type}: `actual` values are dropped (they may be secrets). */
function fieldErrors(data: unknown): FieldError[] {
  if (!Array.isArray(data)) return [];
  return data.map((e: any) => ({
    // A forbidden key is named by its own path by the validator (shared/validator.ts).
    field: String(e.field ?? ""),
    message: String(e.message ?? "invalid"),
    type: String(e.type ?? "invalid"),
  }));
}

const body = (name: string, code: number, type: string, message: string, data?: unknown): ErrorBody => ({
  name,
  message,
  code,
  type,
  ...(data !== undefined && { data }),
});

/** body-parser's errors carry `type` ("entity.too.large", "entity.parse.failed", ...) and `status`. */
function bodyParserError(err: any): ErrorBody | undefined {
  switch (err?.type) {
    case "entity.too.large":
      return body(
        "PayloadTooLargeError",
        413,
        "PAYLOAD_TOO_LARGE",
        `Request body is larger than the limit of ${err.limit} bytes`,
      );
    case "entity.parse.failed":
      return body("InvalidRequestBodyError", 400, "INVALID_REQUEST_BODY", "Request body is not valid JSON");
    case "encoding.unsupported":
    case "charset.unsupported":
      return body("UnsupportedMediaTypeError", 415, "UNSUPPORTED_MEDIA_TYPE", err.message);
    case "request.aborted":
    case "request.size.invalid":
    case "stream.encoding.set":
      return body("InvalidRequestBodyError", 400, "INVALID_REQUEST_BODY", "Request body could not be read");
    default:
      return undefined;
  }
}

/**
 * moleculer-web's own errors (its `Errors`: a path parameter that is not valid percent-encoding, no
 * or a bad token, a CORS origin refused, no route, a rate limit, a body too large): each answers its
 * status in our shape and vocabulary. Their `data` (the raw parameter, the origin) is not echoed.
 */
const FRAMEWORK_ERRORS: Record<
  string,
  { status: number; type: string; message: string; data?: FieldError[] }
> = {
  UNABLE_DECODE_PARAM: {
    status: 400,
    type: "VALIDATION_ERROR",
    message: "A path parameter is not valid percent-encoding",
    data: [{ field: "path", message: "A path parameter is not valid percent-encoding", type: "encoding" }],
  },
  NO_TOKEN: { status: 401, type: "UNAUTHORIZED", message: "Credentials are required" },
  INVALID_TOKEN: { status: 401, type: "UNAUTHORIZED", message: "The credentials are not valid" },
  ORIGIN_NOT_FOUND: { status: 403, type: "FORBIDDEN", message: "The request has no Origin" },
  ORIGIN_NOT_ALLOWED: { status: 403, type: "FORBIDDEN", message: "The request's Origin is not allowed" },
};

const WEB_ERRORS = (ApiGateway as unknown as { Errors: Record<string, new (...args: any[]) => Error> })
  .Errors;
const WEB_ERROR_CLASSES = Object.values(WEB_ERRORS).filter((v) => typeof v === "function");

function frameworkError(err: any): ErrorBody | undefined {
  const known = typeof err?.type === "string" ? FRAMEWORK_ERRORS[err.type] : undefined;
  if (known) return body(err.name ?? "Error", known.status, known.type, known.message, known.data);
  // Any other moleculer-web error: its status, our type for it, its message, not its data.
  if (WEB_ERROR_CLASSES.some((cls) => err instanceof cls) && typeof err.code === "number" && err.code < 500) {
    const type = ERROR_TYPES[err.code]?.[0] ?? "VALIDATION_ERROR";
    return body(
      err.name ?? "Error",
      err.code,
      type,
      err.message,
      type === "VALIDATION_ERROR" ? [] : undefined,
    );
  }
  return undefined;
}

/**
 * The answer for `err`: classified below, then held to the catalogue (shared/errors.ts): its type is
 * one listed for its status, its `name` the catalogue's for that type (never a framework's or an
 * internal class's), and `data` is always there (docs/platform-rules.md#errors).
 */
export function toErrorBody(err: any, requestId: string | undefined): ErrorBody {
  const answer = classify(err, requestId);
  const entry = catalogueEntry(answer.code, answer.type);
  const data =
    answer.data ??
    (entry.type === "VALIDATION_ERROR" ? [] : entry.type === "FORBIDDEN" ? { required: [] } : {});
  return { ...answer, name: entry.name, code: entry.status, type: entry.type, data };
}

function classify(err: any, requestId: string | undefined): ErrorBody {
  const parsed = bodyParserError(err);
  if (parsed) return parsed;

  if (err instanceof Errors.ValidationError || (err?.code === 422 && err?.type === "VALIDATION_ERROR")) {
    const data = fieldErrors(err.data);
    const message = data.length > 0 ? data.map((d) => d.message).join(" ") : "Parameters validation error";
    return body("ValidationError", 400, "VALIDATION_ERROR", message, data);
  }
  if (err?.code === 400 && (err.type === "VALIDATION_ERROR" || err.type === "INVALID_REQUEST_BODY")) {
    return body(
      err.name ?? "BadRequestError",
      400,
      err.type,
      err.message,
      err.type === "VALIDATION_ERROR" ? fieldErrors(err.data) : undefined,
    );
  }
  // No node hosts the service, it left while we waited or mid-call (the request was rejected), or
  // this node lost the bus: the call can't be served now.
  if (
    err instanceof Errors.ServiceNotFoundError ||
    err instanceof Errors.ServiceNotAvailableError ||
    err?.type === "SERVICE_NOT_FOUND" ||
    err?.type === "SERVICE_NOT_AVAILABLE" ||
    err?.type === "REQUEST_REJECTED" ||
    err?.name === "BrokerDisconnectedError" ||
    err?.name === "ServiceUnavailableError"
  ) {
    return body(
      "ServiceUnavailableError",
      503,
      "SERVICE_UNAVAILABLE",
      "The service behind this operation is not available; try again shortly",
      { requestId },
    );
  }
  if (
    err instanceof Errors.RequestTimeoutError ||
    err?.type === "REQUEST_TIMEOUT" ||
    err?.type === "REQUEST_SKIPPED"
  ) {
    return body("TimeoutError", 504, "TIMEOUT", "The operation did not finish within the request timeout", {
      requestId,
    });
  }
  if (err?.name === "RateLimitExceededError" || err?.code === 429) {
    return body(
      "RateLimitedError",
      429,
      "RATE_LIMITED",
      "Too many requests; retry after the time in Retry-After",
    );
  }
  if (err?.name === "NotFoundError" && err?.type === "NOT_FOUND" && err?.code === 404 && !err.data) {
    return body(
      "NotFoundError",
      404,
      "NOT_FOUND",
      err.message === "Not found" ? "No operation at this path" : err.message,
    );
  }
  const framework = frameworkError(err);
  if (framework) return framework;
  // A status of the catalogue (shared/errors.ts) keeps a type listed for it, else gets its own.
  const types = typeof err?.code === "number" && err.code !== 500 ? ERROR_TYPES[err.code] : undefined;
  if (types) {
    const type = types.includes(err.type) ? err.type : types[0];
    const data =
      err.code >= 500 ? { ...(typeof err.data === "object" ? err.data : {}), requestId } : err.data;
    return body(err.name ?? "Error", err.code, type, err.message, data ?? undefined);
  }
  return body("InternalServerError", 500, "INTERNAL_ERROR", "Internal server error", { requestId });
}

/** Writes the error body for `err` (the one error shape) and logs server-side failures, without their data. */
export function sendError(this: GatewayService, req: Req, res: ServerResponse, err: any): void {
  const requestId = (req.$ctx?.requestID as string | undefined) ?? undefined;
  const body = toErrorBody(err, requestId);
  if (body.code >= 500 && body.code !== 503 && body.code !== 501) {
    this.logger.error(
      `${req.method} ${req.parsedUrl ?? ""} -> ${body.code} ${body.type} [${requestId}]: ${err?.message}`,
    );
  }
  if (res.headersSent) return void res.end();
  if (body.code === 429) res.setHeader("Retry-After", String(this.retryAfterSeconds()));
  if (requestId) res.setHeader("X-Request-ID", requestId);
  res.writeHead(body.code, { "Content-Type": "application/json; charset=utf-8" });
  res.end(JSON.stringify(body));
}

/**
 * Requests Node's HTTP parser rejects before any route sees them: a request line and headers over
 * Node's limit (16 KB, `--max-http-header-size`) is 431, anything else malformed 400 — each with
 * the error body, then the connection closes.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: import("node:stream").Duplex): void {
  if (!socket.writable) return void socket.destroy();
  const tooLarge = err.code === "HPE_HEADER_OVERFLOW";
  const error = tooLarge
    ? body(
        "RequestHeaderFieldsTooLargeError",
        431,
        "HEADERS_TOO_LARGE",
        "The request line and headers are larger than the server accepts (16 KB)",
        {},
      )
    : body("BadRequestError", 400, "VALIDATION_ERROR", "The request is not valid HTTP", [
        { field: "request", message: "The request is not valid HTTP", type: "http" },
      ]);
  const text = JSON.stringify(error);
  socket.end(
    `HTTP/1.1 ${error.code} ${tooLarge ? "Request Header Fields Too Large" : "Bad Request"}\r\n` +
      "Content-Type: application/json; charset=utf-8\r\n" +
      `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}
