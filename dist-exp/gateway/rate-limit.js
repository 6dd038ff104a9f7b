"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.rateLimits = rateLimits;
/**
 * Rate limits per client address (docs/security.md#limits), counted in fixed windows of
 * RATE_LIMIT_WINDOW on each gateway replica: RATE_LIMIT requests for the API, LOGIN_RATE_LIMIT for
 * /login (password guessing; the accounts service also limits failed sign-ins per account, across
 * replicas). Probes, /openapi.json and /version are never limited: an orchestrator's health checks
 * must not be refused because a client is busy. RATE_LIMIT=0 turns both off.
 */
const moleculer_1 = require("moleculer");
/** Addresses remembered per window at most; past it the window starts over early (no unbounded growth). */
const MAX_KEYS = 100_000;
class FixedWindow {
    limit;
    windowMs;
    counts = new Map();
    resetAt = 0;
    constructor(limit, windowMs) {
        this.limit = limit;
        this.windowMs = windowMs;
    }
    /** Counts one request of `key`; false when it is over the limit. */
    take(key, now = Date.now()) {
        if (now >= this.resetAt || this.counts.size >= MAX_KEYS) {
            this.counts.clear();
            this.resetAt = now + this.windowMs;
        }
        const count = (this.counts.get(key) ?? 0) + 1;
        this.counts.set(key, count);
        return count <= this.limit;
    }
}
function rateLimits(config) {
    const on = config.rateLimit > 0;
    const api = new FixedWindow(config.rateLimit, config.rateLimitWindowMs);
    const login = new FixedWindow(config.loginRateLimit, config.rateLimitWindowMs);
    const exempt = (op) => op.service === "gateway" && op.access === "public";
    return {
        /** Throws 429 RATE_LIMITED (with Retry-After, see error-response.ts) past the operation's limit. */
        take(op, address) {
            if (!on || exempt(op))
                return;
            const window = op.signIn ? login : api;
            if (!window.take(address))
                throw new moleculer_1.Errors.MoleculerClientError("Too many requests; retry after the time in Retry-After", 429, "RATE_LIMITED");
        },
    };
}
//# sourceMappingURL=rate-limit.js.map