"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.sessionIdOf = void 0;
/**
 * The session id of a token: its SHA-256, hex. accounts stores sessions under it (so the store never
 * holds a usable token) and the gateway keys its caller cache by it, so a revocation event naming
 * session ids reaches the cached callers. One definition, because if the two drift, revocation
 * silently stops working (docs/architecture.md).
 */
const node_crypto_1 = require("node:crypto");
const sessionIdOf = (token) => (0, node_crypto_1.createHash)("sha256").update(token).digest("hex");
exports.sessionIdOf = sessionIdOf;
//# sourceMappingURL=session-id.js.map