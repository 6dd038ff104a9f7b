/**
 * Who is calling (docs/platform-rules.md#sign-in-and-roles). A token comes from `Authorization: Bearer`, the session
 * cookie, or the `token` query parameter; `Authorization: Basic` is checked per request.
 *
 * The accounts service is the authority. Each gateway replica caches a verified caller for a few
 * seconds (AUTH_CACHE_MS), keyed by the token's SHA-256, so a busy client costs one accounts call
 * per window instead of one per request. A cached token's hash is kept beside its entry, so its
 * requests do not hash it again; the token stays in memory no longer than the entry. Logout,
 * password changes and forced logouts broadcast the revoked session ids, and every replica drops
 * them at once; a change to an account or a group (accounts.changed) drops the callers it touches
 * (every caller, for a group), so their next request is resolved anew.
 */
import { createHmac, randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Context } from "moleculer";
import { callAsPlatform } from "../shared/authorization";
import type { Caller } from "../shared/contracts/resources";
import { UnauthorizedError } from "../shared/errors";
import { sessionIdOf } from "../shared/session-id";

export type Credentials =
  { kind: "token"; token: string } | { kind: "basic"; username: string; password: string };

const MAX_CACHED = 10_000;

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name && !(name in out)) {
      try {
        out[name] = decodeURIComponent(value);
      } catch {
        out[name] = value;
      }
    }
  }
  return out;
}

/** The caller's credentials, or undefined when it sent none. A malformed header is a 401. */
export function readCredentials(
  req: IncomingMessage & { query?: Record<string, unknown> },
  cookieName: string,
): Credentials | undefined {
  const header = req.headers.authorization;
  if (header) {
    const space = header.indexOf(" ");
    const scheme = header.slice(0, space).toLowerCase();
    const value = header.slice(space + 1).trim();
    if (space > 0 && scheme === "bearer" && value) return { kind: "token", token: value };
    if (space > 0 && scheme === "basic" && value) {
      const decoded = Buffer.from(value, "base64").toString("utf8");
      const colon = decoded.indexOf(":");
      if (colon > 0)
        return { kind: "basic", username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
    }
    throw new UnauthorizedError(
      "Malformed Authorization header (use Bearer <token> or Basic <base64 user:password>)",
    );
  }
  const cookie = parseCookies(req.headers.cookie)[cookieName];
  if (cookie) return { kind: "token", token: cookie };
  const query = req.query?.token;
  if (typeof query === "string" && query) return { kind: "token", token: query };
  return undefined;
}

/** Basic credentials are keyed by an HMAC under a per-process key: no password hash an attacker could reuse. */
const processKey = randomBytes(32);

/** A token's key is its SHA-256, which is also its session id, so revocation events find it. */
const keyOf = (credentials: Credentials) =>
  credentials.kind === "token"
    ? sessionIdOf(credentials.token)
    : createHmac("sha256", processKey)
        .update(`${credentials.username}\0${credentials.password}`)
        .digest("hex");

type Entry = { caller: Caller; until: number; token?: string };

export class CallerCache {
  private entries = new Map<string, Entry>();
  /** The key (SHA-256) of each token that has an entry: found again without hashing. */
  private tokenKeys = new Map<string, string>();

  constructor(private readonly ttlMs: number) {}

  /**
   * The caller cached for a token, found without a promise (the gateway's common case: every
   * request of a busy client); undefined when it is not cached or its window has passed (resolve).
   * Basic credentials are always left to resolve: their key is an HMAC.
   */
  cached(credentials: Credentials): Caller | undefined {
    if (credentials.kind !== "token") return undefined;
    const key = this.tokenKeys.get(credentials.token);
    const hit = key === undefined ? undefined : this.entries.get(key);
    return hit && hit.until > Date.now() ? hit.caller : undefined;
  }

  async resolve(ctx: Context, credentials: Credentials): Promise<Caller> {
    const key = (credentials.kind === "token" && this.tokenKeys.get(credentials.token)) || keyOf(credentials);
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > now) return hit.caller;
    const caller =
      credentials.kind === "token"
        ? await callAsPlatform(ctx, "accounts.authenticate", { token: credentials.token })
        : await callAsPlatform(ctx, "accounts.authenticateBasic", {
            username: credentials.username,
            password: credentials.password,
          });
    if (this.ttlMs > 0) {
      // A session's own expiry bounds how long it may be cached, and only half the time left is
      // cached: a request after that reaches accounts and slides the session (a short TTL too).
      const until = Math.min(now + this.ttlMs, now + ((caller.expiresAt ?? Infinity) - now) / 2);
      if (!this.entries.has(key) && this.entries.size >= MAX_CACHED)
        this.drop(this.entries.keys().next().value as string);
      const token = credentials.kind === "token" ? credentials.token : undefined;
      this.entries.set(key, { caller, until, token });
      if (token) this.tokenKeys.set(token, key);
    }
    return caller;
  }

  /** Drops sessions revoked anywhere in the cluster (the token hash is the session id). */
  revoke(sessionIds: string[]): void {
    for (const id of sessionIds) this.drop(id);
  }

  /** Drops the cached callers of these accounts (their rights or state changed); Basic entries too. */
  forgetAccounts(accountIds: readonly string[]): void {
    const ids = new Set(accountIds);
    for (const [key, entry] of this.entries) if (ids.has(entry.caller.accountId)) this.drop(key);
  }

  clear(): void {
    this.entries.clear();
    this.tokenKeys.clear();
  }

  /** Entries cached now (for tests and bounds). */
  get size(): number {
    return this.entries.size;
  }

  private drop(key: string): void {
    const token = this.entries.get(key)?.token;
    if (token) this.tokenKeys.delete(token);
    this.entries.delete(key);
  }
}
