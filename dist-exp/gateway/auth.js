"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.CallerCache = void 0;
exports.parseCookies = parseCookies;
exports.readCredentials = readCredentials;
exports.mayCall = mayCall;
/**
 * Who is calling (docs/platform-rules.md#sign-in-and-roles). A token comes from `Authorization: Bearer`, the session
 * cookie, or the `token` query parameter; `Authorization: Basic` is checked per request.
 *
 * The accounts service is the authority. Each gateway replica caches a verified caller for a few
 * seconds (AUTH_CACHE_MS), keyed by the token's SHA-256, so a busy client costs one accounts call
 * per window instead of one per request. Logout and password changes broadcast the revoked session
 * ids, and every replica drops them at once; role changes reach a cached caller within the window.
 */
const node_crypto_1 = require("node:crypto");
const contracts_1 = require("../shared/contracts");
const errors_1 = require("../shared/errors");
const session_id_1 = require("../shared/session-id");
const MAX_CACHED = 10_000;
function parseCookies(header) {
    const out = {};
    if (!header)
        return out;
    for (const part of header.split(";")) {
        const eq = part.indexOf("=");
        if (eq < 0)
            continue;
        const name = part.slice(0, eq).trim();
        const value = part.slice(eq + 1).trim();
        if (name && !(name in out)) {
            try {
                out[name] = decodeURIComponent(value);
            }
            catch {
                out[name] = value;
            }
        }
    }
    return out;
}
/** The caller's credentials, or undefined when it sent none. A malformed header is a 401. */
function readCredentials(req, cookieName) {
    const header = req.headers.authorization;
    if (header) {
        const space = header.indexOf(" ");
        const scheme = header.slice(0, space).toLowerCase();
        const value = header.slice(space + 1).trim();
        if (space > 0 && scheme === "bearer" && value)
            return { kind: "token", token: value };
        if (space > 0 && scheme === "basic" && value) {
            const decoded = Buffer.from(value, "base64").toString("utf8");
            const colon = decoded.indexOf(":");
            if (colon > 0)
                return { kind: "basic", username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
        }
        throw new errors_1.UnauthorizedError("Malformed Authorization header (use Bearer <token> or Basic <base64 user:password>)");
    }
    const cookie = parseCookies(req.headers.cookie)[cookieName];
    if (cookie)
        return { kind: "token", token: cookie };
    const query = req.query?.token;
    if (typeof query === "string" && query)
        return { kind: "token", token: query };
    return undefined;
}
/** Basic credentials are keyed by an HMAC under a per-process key: no password hash an attacker could reuse. */
const processKey = (0, node_crypto_1.randomBytes)(32);
/** A token's key is its SHA-256, which is also its session id, so revocation events find it. */
const keyOf = (credentials) => credentials.kind === "token"
    ? (0, session_id_1.sessionIdOf)(credentials.token)
    : (0, node_crypto_1.createHmac)("sha256", processKey)
        .update(`${credentials.username}\0${credentials.password}`)
        .digest("hex");
/** The one role table: may a caller with these roles call a route with this access? */
function mayCall(access, roles) {
    if (access === "public" || access === "authenticated")
        return true;
    return roles.includes("admin") || access.some((r) => roles.includes(r));
}
class CallerCache {
    ttlMs;
    entries = new Map();
    constructor(ttlMs) {
        this.ttlMs = ttlMs;
    }
    async resolve(ctx, credentials) {
        const key = keyOf(credentials);
        const now = Date.now();
        const hit = this.entries.get(key);
        if (hit && hit.until > now)
            return hit.caller;
        const caller = credentials.kind === "token"
            ? await (0, contracts_1.call)(ctx, "accounts.authenticate", { token: credentials.token })
            : await (0, contracts_1.call)(ctx, "accounts.authenticateBasic", {
                username: credentials.username,
                password: credentials.password,
            });
        if (this.ttlMs > 0) {
            // A session's own expiry bounds how long it may be cached, and only half the time left is
            // cached: a request after that reaches accounts and slides the session (a short TTL too).
            const until = Math.min(now + this.ttlMs, now + ((caller.expiresAt ?? Infinity) - now) / 2);
            if (this.entries.size >= MAX_CACHED)
                this.entries.delete(this.entries.keys().next().value);
            this.entries.set(key, { caller, until });
        }
        return caller;
    }
    /** Drops sessions revoked anywhere in the cluster (the token hash is the session id). */
    revoke(sessionIds) {
        for (const id of sessionIds)
            this.entries.delete(id);
    }
    clear() {
        this.entries.clear();
    }
}
exports.CallerCache = CallerCache;
//# sourceMappingURL=auth.js.map