"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.MAX_UPSTREAM_BODY = void 0;
exports.exchangeGuarded = exchangeGuarded;
exports.send = send;
exports.probe = probe;
/**
 * Operations 1 and 2 (docs/orchestrator.md): one request to an orchestrator adapter's target,
 * through the adapter's circuit breaker and in-flight limit, over its connection pool, with its
 * timeout, and the upstream answer mapped: 2xx/3xx -> answered; 4xx/5xx -> 502 with
 * `{status, body}`; unreachable -> 502; too slow -> 504. Idempotent methods (GET, PUT, DELETE) are
 * retried on a connection failure, with backoff; POST and PATCH never, since the first attempt may
 * have committed.
 */
const undici_1 = require("undici");
const errors_1 = require("../../../shared/errors");
const breaker_1 = require("./breaker");
const connections_1 = require("./connections");
const limiter_1 = require("./limiter");
const target_1 = require("./target");
/** Upstream bodies larger than this are refused (502), not buffered without end. */
exports.MAX_UPSTREAM_BODY = 16 * 1024 * 1024;
const IDEMPOTENT = new Set(["GET", "PUT", "DELETE"]);
const RETRIES = 2;
const BACKOFF_MS = 100;
const isJsonType = (type) => /[/+]json\b/i.test(type);
class BodyTooLarge extends Error {
}
/** The body, read up to MAX_UPSTREAM_BODY (the stream is dropped past it). */
async function readBody(body, contentType) {
    const chunks = [];
    let size = 0;
    for await (const chunk of body) {
        size += chunk.length;
        if (size > exports.MAX_UPSTREAM_BODY) {
            body.destroy();
            throw new BodyTooLarge("upstream body too large");
        }
        chunks.push(chunk);
    }
    const text = Buffer.concat(chunks).toString("utf8");
    if (text === "")
        return undefined;
    if (!isJsonType(contentType))
        return text;
    try {
        return JSON.parse(text);
    }
    catch {
        return text;
    }
}
async function attempt(target, url, req, signal) {
    const headers = { ...target.headers, accept: req.accept };
    let payload;
    if (req.body !== undefined && req.method !== "GET") {
        payload = JSON.stringify(req.body);
        headers["content-type"] = req.contentType ?? req.accept;
    }
    // undici follows no redirect unless told to: a redirect could point outside the base URL.
    const res = await (0, undici_1.request)(url, {
        method: req.method,
        headers,
        body: payload,
        signal,
        dispatcher: (0, connections_1.poolFor)(target),
    });
    const type = res.headers["content-type"];
    return {
        status: res.statusCode,
        body: await readBody(res.body, Array.isArray(type) ? type[0] : (type ?? "")),
    };
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
function unreachable(target, err) {
    // The cause's code or message only: it names no credential (they travel in a header, not the URL).
    return new errors_1.BadGatewayError(`Adapter '${target.name}': the orchestrator could not be reached`, {
        body: { adapter: target.name, cause: String(err?.code ?? err?.cause?.code ?? err?.message ?? err) },
    });
}
/** One request within the adapter's timeout (all retries included); throws the mapped error. */
async function exchange(target, url, req) {
    const started = performance.now();
    const timed = (outcome) => target.onUpstream?.(outcome, performance.now() - started);
    try {
        const reply = await exchangeUntimed(target, url, req);
        timed(`${Math.floor(reply.status / 100)}xx`);
        return reply;
    }
    catch (err) {
        timed(err instanceof target_1.GatewayTimeoutError ? "timeout" : "unreachable");
        throw err;
    }
}
async function exchangeUntimed(target, url, req) {
    const signal = AbortSignal.timeout(target.timeoutMs);
    for (let tries = 0;; tries++) {
        try {
            return await attempt(target, url, req, signal);
        }
        catch (err) {
            if (signal.aborted)
                throw new target_1.GatewayTimeoutError(target.name, target.timeoutMs);
            if (err instanceof BodyTooLarge)
                throw unreachable(target, err);
            if (IDEMPOTENT.has(req.method) && tries < RETRIES) {
                await sleep(BACKOFF_MS * 2 ** tries);
                continue;
            }
            throw unreachable(target, err);
        }
    }
}
/**
 * Sends one request; answers the upstream status and body (any status), or throws for a
 * transport failure. The breaker counts transport failures, timeouts and 5xx answers.
 */
async function exchangeGuarded(target, req) {
    const url = (0, target_1.resolvePath)(target, req.path);
    const method = req.method.toUpperCase();
    (0, breaker_1.admit)(target);
    const limiter = (0, limiter_1.limiterFor)(target.name, target.maxInFlight, target.maxQueue);
    let reply;
    try {
        reply = await limiter.run(() => exchange(target, url, { ...req, method }), () => new target_1.OverloadedError(target.name));
    }
    catch (err) {
        if (err instanceof target_1.OverloadedError)
            (0, breaker_1.abandonTrial)(target.name);
        else
            (0, breaker_1.recordFailure)(target);
        throw err;
    }
    if (reply.status >= 500)
        (0, breaker_1.recordFailure)(target);
    else
        (0, breaker_1.recordSuccess)(target.name);
    return reply;
}
/** Sends one request; answers a 2xx/3xx reply, or throws the mapped error (4xx/5xx -> 502). */
async function send(target, req) {
    const reply = await exchangeGuarded(target, req);
    if (reply.status >= 400)
        throw new errors_1.BadGatewayError(`Adapter '${target.name}': the orchestrator answered ${reply.status}`, {
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
async function probe(target, path) {
    const url = (0, target_1.resolvePath)(target, path);
    const signal = AbortSignal.timeout(target.timeoutMs);
    try {
        return await attempt(target, url, { method: "GET", path, accept: "application/json" }, signal);
    }
    catch (err) {
        if (signal.aborted)
            throw new target_1.GatewayTimeoutError(target.name, target.timeoutMs);
        throw unreachable(target, err);
    }
}
//# sourceMappingURL=proxy.js.map