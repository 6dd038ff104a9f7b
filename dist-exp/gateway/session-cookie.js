"use strict";
/**
 * The session cookie (docs/platform-rules.md#sign-in-and-roles): HttpOnly, SameSite=Lax, named by
 * the active profile. Which operations set or clear it is declared in their contract (`session`).
 */
Object.defineProperty(exports, "__esModule", { value: true });
exports.sessionCookie = sessionCookie;
exports.applySessionEffect = applySessionEffect;
function sessionCookie(name, token, maxAgeSeconds) {
    const attrs = [
        `${name}=${encodeURIComponent(token)}`,
        "Path=/",
        "HttpOnly",
        "SameSite=Lax",
        `Max-Age=${Math.max(0, maxAgeSeconds)}`,
    ];
    return attrs.join("; ");
}
/**
 * Applies an operation's `session` effect to its answer: `set` answers the token as text with the
 * cookie, `clear` expires the cookie. Anything else passes `data` through.
 */
function applySessionEffect(effect, cookieName, meta, data) {
    if (effect === "set") {
        const { token, expiresAt } = data;
        meta.$responseType = "text/plain; charset=utf-8";
        meta.$responseHeaders = {
            "Set-Cookie": sessionCookie(cookieName, token, Math.floor((expiresAt - Date.now()) / 1000)),
        };
        return token;
    }
    if (effect === "clear")
        meta.$responseHeaders = { "Set-Cookie": sessionCookie(cookieName, "", 0) };
    return data;
}
//# sourceMappingURL=session-cookie.js.map