/**
 * The session id of a token: its SHA-256, hex. accounts stores sessions under it (so the store never
 * holds a usable token) and the gateway keys its caller cache by it, so a revocation event naming
 * session ids reaches the cached callers. One definition, because if the two drift, revocation
 * silently stops working (docs/architecture.md).
 */
import { createHash } from "node:crypto";

export const sessionIdOf = (token: string): string => createHash("sha256").update(token).digest("hex");
