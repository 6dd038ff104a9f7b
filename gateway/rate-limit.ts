/**
 * Rate limits per client address (docs/security.md#limits), counted in fixed windows of
 * RATE_LIMIT_WINDOW on each gateway replica: RATE_LIMIT requests for the API, LOGIN_RATE_LIMIT for
 * /login (password guessing; the accounts service also limits failed sign-ins per account, across
 * replicas). Probes, /openapi.json and /version are never limited: an orchestrator's health checks
 * must not be refused because a client is busy. RATE_LIMIT=0 turns both off.
 */
import { Errors } from "moleculer";
import type { Operation } from "../shared/contracts";
import type { PlatformConfig } from "../shared/config";

/** Addresses remembered per window at most; past it the window starts over early (no unbounded growth). */
const MAX_KEYS = 100_000;

class FixedWindow {
  private counts = new Map<string, number>();
  private resetAt = 0;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Counts one request of `key`; false when it is over the limit. */
  take(key: string, now = Date.now()): boolean {
    if (now >= this.resetAt || this.counts.size >= MAX_KEYS) {
      this.counts.clear();
      this.resetAt = now + this.windowMs;
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return count <= this.limit;
  }
}

export function rateLimits(config: PlatformConfig) {
  const on = config.rateLimit > 0;
  const api = new FixedWindow(config.rateLimit, config.rateLimitWindowMs);
  const login = new FixedWindow(config.loginRateLimit, config.rateLimitWindowMs);
  const exempt = (op: Operation) => op.service === "gateway" && op.access === "public";
  return {
    /**
     * Throws 429 RATE_LIMITED (with Retry-After, see error-response.ts) past the operation's limit.
     * The client's address is read only when limits are on: Node asks the socket for it each time.
     */
    take(op: Operation, req: { socket: { remoteAddress?: string } }): void {
      if (!on || exempt(op)) return;
      const window = op.signIn ? login : api;
      if (!window.take(req.socket.remoteAddress ?? "unknown"))
        throw new Errors.MoleculerClientError(
          "Too many requests; retry after the time in Retry-After",
          429,
          "RATE_LIMITED",
        );
    },
  };
}
