/**
 * The gateway's caller cache (gateway/auth.ts): one accounts call per token per window, a token's
 * hash found again without hashing, revocation and the bound dropping both, and no token ever
 * answered with another's caller.
 */
import type { Context } from "moleculer";
import { CallerCache } from "../../gateway/auth";
import { sessionIdOf } from "../../shared/session-id";

function accounts() {
  const calls: string[] = [];
  const ctx = {
    call: async (action: string, params: { token?: string; username?: string }) => {
      calls.push(`${action} ${params.token ?? params.username}`);
      return {
        accountId: `acct-of-${params.token ?? params.username}`,
        roles: [],
        expiresAt: Date.now() + 3_600_000,
      };
    },
  } as unknown as Context;
  return { ctx, calls };
}

const token = (t: string) => ({ kind: "token" as const, token: t });

describe("caller cache", () => {
  test("a token is checked with accounts once per window, and each token gets its own caller", async () => {
    const { ctx, calls } = accounts();
    const cache = new CallerCache(5_000);
    expect((await cache.resolve(ctx, token("a"))).accountId).toBe("acct-of-a");
    expect((await cache.resolve(ctx, token("a"))).accountId).toBe("acct-of-a");
    expect((await cache.resolve(ctx, token("b"))).accountId).toBe("acct-of-b");
    expect((await cache.resolve(ctx, token("a"))).accountId).toBe("acct-of-a");
    expect(calls).toEqual(["accounts.authenticate a", "accounts.authenticate b"]);
  });

  test("cached: a token's caller within its window, found without a call; nothing once revoked, forgotten or past it", async () => {
    const { ctx, calls } = accounts();
    const cache = new CallerCache(5_000);
    expect(cache.cached(token("a"))).toBeUndefined();
    await cache.resolve(ctx, token("a"));
    await cache.resolve(ctx, token("b"));
    expect(cache.cached(token("a"))?.accountId).toBe("acct-of-a");
    expect(cache.cached(token("b"))?.accountId).toBe("acct-of-b");
    expect(cache.cached(token("c"))).toBeUndefined();
    cache.revoke([sessionIdOf("a")]);
    expect(cache.cached(token("a"))).toBeUndefined();
    cache.forgetAccounts(["acct-of-b"]);
    expect(cache.cached(token("b"))).toBeUndefined();
    // Basic credentials are never answered from here (their key is an HMAC: resolve finds them).
    await cache.resolve(ctx, { kind: "basic", username: "u", password: "pw" });
    expect(cache.cached({ kind: "basic", username: "u", password: "pw" })).toBeUndefined();
    expect(calls).toHaveLength(3);
    // Past its window: not cached any more.
    const short = new CallerCache(1);
    await short.resolve(ctx, token("d"));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(short.cached(token("d"))).toBeUndefined();
  });

  test("a revoked session (by its id, the token's SHA-256) is checked with accounts again", async () => {
    const { ctx, calls } = accounts();
    const cache = new CallerCache(5_000);
    await cache.resolve(ctx, token("a"));
    await cache.resolve(ctx, token("b"));
    cache.revoke([sessionIdOf("a")]);
    expect(cache.size).toBe(1);
    await cache.resolve(ctx, token("a"));
    await cache.resolve(ctx, token("b"));
    expect(calls).toEqual(["accounts.authenticate a", "accounts.authenticate b", "accounts.authenticate a"]);
  });

  test("an account's change drops every cached caller of that account (tokens and Basic), no other", async () => {
    const { ctx, calls } = accounts();
    const cache = new CallerCache(5_000);
    await cache.resolve(ctx, token("a"));
    await cache.resolve(ctx, token("b"));
    await cache.resolve(ctx, { kind: "basic", username: "a", password: "pw" });
    // Basic "a" resolves to account acct-of-a too (the fake names accounts after what it was given).
    cache.forgetAccounts(["acct-of-a"]);
    expect(cache.size).toBe(1);
    await cache.resolve(ctx, token("a"));
    await cache.resolve(ctx, token("b"));
    expect(calls).toEqual([
      "accounts.authenticate a",
      "accounts.authenticate b",
      "accounts.authenticateBasic a",
      "accounts.authenticate a",
    ]);
  });

  test("with no window nothing is kept; cleared, everything is checked again", async () => {
    const { ctx, calls } = accounts();
    const off = new CallerCache(0);
    await off.resolve(ctx, token("a"));
    await off.resolve(ctx, token("a"));
    expect(off.size).toBe(0);
    const on = new CallerCache(5_000);
    await on.resolve(ctx, token("a"));
    on.clear();
    await on.resolve(ctx, token("a"));
    expect(calls).toHaveLength(4);
  });

  test("the cache is bounded: the oldest entry (and its token) goes first", async () => {
    const { ctx, calls } = accounts();
    const cache = new CallerCache(60_000);
    for (let i = 0; i < 10_005; i++) await cache.resolve(ctx, token(`t${i}`));
    expect(cache.size).toBe(10_000);
    calls.length = 0;
    await cache.resolve(ctx, token("t10004"));
    expect(calls).toEqual([]);
    // t0 was dropped with its token: it is checked again, and answered with its own caller.
    expect((await cache.resolve(ctx, token("t0"))).accountId).toBe("acct-of-t0");
    expect(calls).toEqual(["accounts.authenticate t0"]);
    expect(cache.size).toBe(10_000);
  });
});
