"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.OverloadedError = exports.CircuitOpenError = exports.AdapterStoppedError = exports.GatewayTimeoutError = exports.DEFAULT_BREAKER_COOLDOWN_MS = exports.DEFAULT_BREAKER_THRESHOLD = exports.MIN_HEALTH_INTERVAL_MS = exports.DEFAULT_HEALTH_INTERVAL_MS = exports.DEFAULT_MAX_QUEUE = exports.DEFAULT_MAX_IN_FLIGHT = exports.MAX_TIMEOUT_MS = exports.DEFAULT_TIMEOUT_MS = exports.ORCHESTRATOR_TYPES = void 0;
exports.isOrchestrator = isOrchestrator;
exports.targetOf = targetOf;
exports.resolvePath = resolvePath;
/**
 * An orchestrator adapter's target: where its requests go and with what, read from the stored
 * adapter (docs/orchestrator.md#the-orchestrator-adapter-type). Credentials are unsealed here, in
 * memory, only to build the Authorization header; they never leave this process in an answer,
 * an error or a log line.
 */
const moleculer_1 = require("moleculer");
const errors_1 = require("../../../shared/errors");
const secrets_1 = require("../../../shared/secrets");
/** `properties.type` values that make an adapter an orchestrator adapter (compared lowercased). */
exports.ORCHESTRATOR_TYPES = ["nso", "orchestrator"];
exports.DEFAULT_TIMEOUT_MS = 30_000;
exports.MAX_TIMEOUT_MS = 600_000;
exports.DEFAULT_MAX_IN_FLIGHT = 8;
exports.DEFAULT_MAX_QUEUE = 32;
exports.DEFAULT_HEALTH_INTERVAL_MS = 60_000;
exports.MIN_HEALTH_INTERVAL_MS = 200;
exports.DEFAULT_BREAKER_THRESHOLD = 5;
exports.DEFAULT_BREAKER_COOLDOWN_MS = 30_000;
/** A PEM bundle larger than this is not a CA bundle. */
const MAX_CA_BYTES = 256 * 1024;
function isOrchestrator(doc) {
    return exports.ORCHESTRATOR_TYPES.includes(String(doc.properties.type).toLowerCase());
}
function boundedInt(value, fallback, min, max) {
    return typeof value === "number" && Number.isInteger(value) && value >= min && value <= max
        ? value
        : fallback;
}
function plain(key, value) {
    if (typeof value !== "string")
        return undefined;
    return (0, secrets_1.isEncrypted)(value) ? (0, secrets_1.decrypt)(key, value) : value;
}
/** The target of an adapter, or 400 when it is not an orchestrator adapter or names no host. */
function targetOf(doc, key) {
    if (!isOrchestrator(doc))
        throw new errors_1.BadRequestError(`Adapter '${doc.name}' is of type '${doc.properties.type}', not an orchestrator adapter`, [{ field: "adapterId", message: "not an orchestrator adapter", type: "adapterType" }]);
    const s = (doc.properties.properties ?? {});
    const protocol = s.protocol === "https" ? "https" : "http";
    if (typeof s.host !== "string" || s.host === "")
        throw (0, errors_1.invalidField)("adapterId", `Adapter '${doc.name}' names no host`, "adapterTarget");
    const port = boundedInt(s.port, protocol === "https" ? 443 : 80, 1, 65535);
    const basePath = typeof s.base_path === "string" ? s.base_path.replace(/\/+$/, "") : "";
    let base;
    try {
        base = new URL(`${protocol}://${s.host}:${port}${basePath.startsWith("/") || basePath === "" ? "" : "/"}${basePath}`);
    }
    catch {
        throw (0, errors_1.invalidField)("adapterId", `Adapter '${doc.name}' has an invalid base URL`, "adapterTarget");
    }
    const headers = {};
    if (s.headers && typeof s.headers === "object")
        for (const [k, v] of Object.entries(s.headers))
            if (typeof v === "string")
                headers[k.toLowerCase()] = v;
    const username = typeof s.username === "string" ? s.username : undefined;
    const password = plain(key, s.password);
    if (username !== undefined && password !== undefined)
        headers.authorization = "Basic " + Buffer.from(`${username}:${password}`).toString("base64");
    const token = plain(key, s.token);
    if (token !== undefined)
        headers.authorization = `Bearer ${token}`;
    const ca = typeof s.ca === "string" && s.ca.length <= MAX_CA_BYTES ? s.ca : undefined;
    const devicesPath = typeof s.devicesPath === "string" ? s.devicesPath : "/api/running/devices/device";
    return {
        name: doc.name,
        base,
        headers,
        timeoutMs: boundedInt(s.timeout, exports.DEFAULT_TIMEOUT_MS, 1, exports.MAX_TIMEOUT_MS),
        maxInFlight: boundedInt(s.maxInFlight, exports.DEFAULT_MAX_IN_FLIGHT, 1, 1024),
        maxQueue: boundedInt(s.maxQueue, exports.DEFAULT_MAX_QUEUE, 0, 10_000),
        tls: { ...(ca !== undefined && { ca }), rejectUnauthorized: s.rejectUnauthorized !== false },
        generation: typeof doc.generation === "number" ? doc.generation : 0,
        breaker: {
            threshold: boundedInt(s.breakerThreshold, exports.DEFAULT_BREAKER_THRESHOLD, 1, 1000),
            cooldownMs: boundedInt(s.breakerCooldown, exports.DEFAULT_BREAKER_COOLDOWN_MS, 100, 3_600_000),
        },
        health: {
            path: typeof s.healthPath === "string" ? s.healthPath : "/",
            intervalMs: boundedInt(s.healthCheckInterval, exports.DEFAULT_HEALTH_INTERVAL_MS, exports.MIN_HEALTH_INTERVAL_MS, 86_400_000),
        },
        devices: {
            path: devicesPath,
            accept: /^\/(restconf|data)\b/.test(devicesPath)
                ? "application/yang-data+json"
                : "application/vnd.yang.collection+json",
            groupsPath: typeof s.deviceGroupsPath === "string" ? s.deviceGroupsPath : "/api/running/devices/device-group",
        },
    };
}
/**
 * The absolute URL of `path` under the target's base, or 400. A path cannot leave the base URL:
 * it must start with one `/`, and neither it nor its percent-decoded form (decoded until stable,
 * so `%252e` counts) may hold a scheme, a backslash, a control character, an encoded slash, or a
 * `.`/`..` segment. The result is checked once more: same origin, under the base path.
 */
function resolvePath(target, path) {
    const refuse = (why) => (0, errors_1.invalidField)("params.path", `params.path ${why}`, "pathEscape");
    if (!path.startsWith("/") || path.startsWith("//"))
        throw refuse("must start with a single '/'");
    let decoded = path;
    for (let i = 0; i < 5; i++) {
        let next;
        try {
            next = decodeURIComponent(decoded);
        }
        catch {
            throw refuse("holds an invalid percent-encoding");
        }
        if (next === decoded)
            break;
        if (/%2f|%5c/i.test(decoded))
            throw refuse("may not hold an encoded slash");
        decoded = next;
    }
    if (/%/.test(decoded) && decoded !== decodeURIComponent(decoded))
        throw refuse("is encoded too deeply");
    // eslint-disable-next-line no-control-regex
    if (/[\\\u0000-\u001f\u007f]/.test(decoded))
        throw refuse("may not hold a backslash or control character");
    if (/^[a-z][a-z0-9+.-]*:/i.test(decoded.slice(1)) || decoded.includes("://"))
        throw refuse("may not name a scheme");
    const pathOnly = decoded.split(/[?#]/)[0];
    if (pathOnly.split("/").some((seg) => seg === ".." || seg === "."))
        throw refuse("may not hold '.' or '..' segments");
    const url = new URL(target.base.href.replace(/\/$/, "") + path);
    const basePath = target.base.pathname.replace(/\/$/, "");
    if (url.origin !== target.base.origin ||
        !(url.pathname === basePath || url.pathname.startsWith(basePath + "/")))
        throw refuse("leaves the adapter's base URL");
    return url;
}
/** 504: the orchestrator did not answer within the adapter's timeout. */
class GatewayTimeoutError extends moleculer_1.Errors.MoleculerError {
    constructor(adapter, timeoutMs) {
        super(`Adapter '${adapter}': the orchestrator did not answer within ${timeoutMs} ms`, 504, "GATEWAY_TIMEOUT", {
            adapter,
            timeoutMs,
        });
        this.name = "GatewayTimeoutError";
    }
}
exports.GatewayTimeoutError = GatewayTimeoutError;
/** 503: the adapter was stopped (PUT /adapters/:name/stop); it answers nothing until started. */
class AdapterStoppedError extends moleculer_1.Errors.MoleculerError {
    constructor(adapter) {
        super(`Adapter '${adapter}' is stopped`, 503, "ADAPTER_STOPPED", { adapter });
        this.name = "AdapterStoppedError";
    }
}
exports.AdapterStoppedError = AdapterStoppedError;
/** 503: the adapter's circuit is open: its target kept failing, so calls are refused for a while. */
class CircuitOpenError extends moleculer_1.Errors.MoleculerError {
    constructor(adapter, retryInMs) {
        super(`Adapter '${adapter}': the orchestrator kept failing; calls are refused for ${Math.ceil(retryInMs / 1000)} s`, 503, "CIRCUIT_OPEN", { adapter, retryInMs });
        this.name = "CircuitOpenError";
    }
}
exports.CircuitOpenError = CircuitOpenError;
/** 503: the adapter's in-flight limit and queue are both full. */
class OverloadedError extends moleculer_1.Errors.MoleculerRetryableError {
    constructor(adapter) {
        super(`Adapter '${adapter}' is at its in-flight limit and its queue is full`, 503, "ADAPTER_BUSY", {
            adapter,
        });
        this.name = "OverloadedError";
    }
}
exports.OverloadedError = OverloadedError;
//# sourceMappingURL=target.js.map