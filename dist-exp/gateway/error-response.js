"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.toErrorBody = toErrorBody;
exports.sendError = sendError;
exports.answerClientError = answerClientError;
/**
 * Every failure becomes docs/platform-rules.md#errors's body: { name, message, code, type, data }, with
 * `code` equal to the HTTP status. Never a stack trace; a 5xx body carries the request id.
 */
const moleculer_1 = require("moleculer");
const moleculer_web_1 = __importDefault(require("moleculer-web"));
/** Validation failures as {field, message, type}: `actual` values are dropped (they may be secrets). */
function fieldErrors(data) {
    if (!Array.isArray(data))
        return [];
    return data.map((e) => ({
        // A forbidden key at the top level has no field of its own: name the keys instead.
        field: e.type === "objectStrict" && !e.field ? String(e.actual ?? "") : String(e.field ?? ""),
        message: String(e.message ?? "invalid"),
        type: String(e.type ?? "invalid"),
    }));
}
const body = (name, code, type, message, data) => ({
    name,
    message,
    code,
    type,
    ...(data !== undefined && { data }),
});
/** body-parser's errors carry `type` ("entity.too.large", "entity.parse.failed", ...) and `status`. */
function bodyParserError(err) {
    switch (err?.type) {
        case "entity.too.large":
            return body("PayloadTooLargeError", 413, "PAYLOAD_TOO_LARGE", `Request body is larger than the limit of ${err.limit} bytes`);
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
const FRAMEWORK_ERRORS = {
    UNABLE_DECODE_PARAM: {
        status: 400,
        type: "INVALID_REQUEST",
        message: "A path parameter is not valid percent-encoding",
    },
    NO_TOKEN: { status: 401, type: "UNAUTHORIZED", message: "Credentials are required" },
    INVALID_TOKEN: { status: 401, type: "UNAUTHORIZED", message: "The credentials are not valid" },
    ORIGIN_NOT_FOUND: { status: 403, type: "FORBIDDEN", message: "The request has no Origin" },
    ORIGIN_NOT_ALLOWED: { status: 403, type: "FORBIDDEN", message: "The request's Origin is not allowed" },
};
const WEB_ERRORS = moleculer_web_1.default
    .Errors;
const WEB_ERROR_CLASSES = Object.values(WEB_ERRORS).filter((v) => typeof v === "function");
function frameworkError(err) {
    const known = typeof err?.type === "string" ? FRAMEWORK_ERRORS[err.type] : undefined;
    if (known)
        return body(err.name ?? "Error", known.status, known.type, known.message);
    // Any other moleculer-web error: its status, our type for it, its message, not its data.
    if (WEB_ERROR_CLASSES.some((cls) => err instanceof cls) && typeof err.code === "number" && err.code < 500) {
        const type = CLIENT_ERROR_TYPES[err.code] ?? "INVALID_REQUEST";
        return body(err.name ?? "Error", err.code, type, err.message);
    }
    return undefined;
}
const CLIENT_ERROR_TYPES = {
    400: "INVALID_REQUEST",
    401: "UNAUTHORIZED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    413: "PAYLOAD_TOO_LARGE",
    429: "RATE_LIMITED",
};
function toErrorBody(err, requestId) {
    const parsed = bodyParserError(err);
    if (parsed)
        return parsed;
    if (err instanceof moleculer_1.Errors.ValidationError || (err?.code === 422 && err?.type === "VALIDATION_ERROR")) {
        const data = fieldErrors(err.data);
        const message = data.length > 0 ? data.map((d) => d.message).join(" ") : "Parameters validation error";
        return body("ValidationError", 400, "VALIDATION_ERROR", message, data);
    }
    if (err?.code === 400 && (err.type === "VALIDATION_ERROR" || err.type === "INVALID_REQUEST_BODY")) {
        return body(err.name ?? "BadRequestError", 400, err.type, err.message, err.type === "VALIDATION_ERROR" ? fieldErrors(err.data) : undefined);
    }
    // No node hosts the service, it left while we waited or mid-call (the request was rejected), or
    // this node lost the bus: the call can't be served now.
    if (err instanceof moleculer_1.Errors.ServiceNotFoundError ||
        err instanceof moleculer_1.Errors.ServiceNotAvailableError ||
        err?.type === "SERVICE_NOT_FOUND" ||
        err?.type === "SERVICE_NOT_AVAILABLE" ||
        err?.type === "REQUEST_REJECTED" ||
        err?.name === "BrokerDisconnectedError" ||
        err?.name === "ServiceUnavailableError") {
        return body("ServiceUnavailableError", 503, "SERVICE_UNAVAILABLE", "The service behind this operation is not available; try again shortly", { requestId });
    }
    if (err instanceof moleculer_1.Errors.RequestTimeoutError ||
        err?.type === "REQUEST_TIMEOUT" ||
        err?.type === "REQUEST_SKIPPED") {
        return body("TimeoutError", 504, "TIMEOUT", "The operation did not finish within the request timeout", {
            requestId,
        });
    }
    if (err?.name === "RateLimitExceededError" || err?.code === 429) {
        return body("RateLimitedError", 429, "RATE_LIMITED", "Too many requests; retry after the time in Retry-After");
    }
    if (err?.name === "NotFoundError" && err?.type === "NOT_FOUND" && err?.code === 404 && !err.data) {
        return body("NotFoundError", 404, "NOT_FOUND", err.message === "Not found" ? "No operation at this path" : err.message);
    }
    const framework = frameworkError(err);
    if (framework)
        return framework;
    const known = {
        400: "INVALID_REQUEST",
        401: "UNAUTHORIZED",
        403: "FORBIDDEN",
        404: "NOT_FOUND",
        405: "METHOD_NOT_ALLOWED",
        409: "CONFLICT",
        413: "PAYLOAD_TOO_LARGE",
        414: "URI_TOO_LONG",
        415: "UNSUPPORTED_MEDIA_TYPE",
        501: "NOT_IMPLEMENTED",
        502: "BAD_GATEWAY",
        503: "SERVICE_UNAVAILABLE",
        504: "TIMEOUT",
    };
    if (typeof err?.code === "number" && known[err.code]) {
        const type = err.type && /^[A-Z_]+$/.test(err.type) ? err.type : known[err.code];
        const data = err.code >= 500 ? { ...(typeof err.data === "object" ? err.data : {}), requestId } : err.data;
        return body(err.name ?? "Error", err.code, type, err.message, data ?? undefined);
    }
    return body("InternalServerError", 500, "INTERNAL_ERROR", "Internal server error", { requestId });
}
/** Writes the error body for `err` (the one error shape) and logs server-side failures, without their data. */
function sendError(req, res, err) {
    const requestId = req.$ctx?.requestID ?? undefined;
    const body = toErrorBody(err, requestId);
    if (body.code >= 500 && body.code !== 503 && body.code !== 501) {
        this.logger.error(`${req.method} ${req.parsedUrl ?? ""} -> ${body.code} ${body.type} [${requestId}]: ${err?.message}`);
    }
    if (res.headersSent)
        return void res.end();
    if (body.code === 429)
        res.setHeader("Retry-After", String(this.retryAfterSeconds()));
    if (requestId)
        res.setHeader("X-Request-ID", requestId);
    res.writeHead(body.code, { "Content-Type": "application/json; charset=utf-8" });
    res.end(JSON.stringify(body));
}
/**
 * Requests Node's HTTP parser rejects before any route sees them: a request line and headers over
 * Node's limit (16 KB, `--max-http-header-size`) is 431, anything else malformed 400 — each with
 * the error body, then the connection closes.
 */
function answerClientError(err, socket) {
    if (!socket.writable)
        return void socket.destroy();
    const tooLarge = err.code === "HPE_HEADER_OVERFLOW";
    const error = tooLarge
        ? body("RequestHeaderFieldsTooLargeError", 431, "HEADERS_TOO_LARGE", "The request line and headers are larger than the server accepts (16 KB)")
        : body("BadRequestError", 400, "INVALID_REQUEST", "The request is not valid HTTP");
    const text = JSON.stringify(error);
    socket.end(`HTTP/1.1 ${error.code} ${tooLarge ? "Request Header Fields Too Large" : "Bad Request"}\r\n` +
        "Content-Type: application/json; charset=utf-8\r\n" +
        `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
}
//# sourceMappingURL=error-response.js.map