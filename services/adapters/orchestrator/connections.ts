/**
 * One undici connection pool per adapter and generation: keep-alive connections are reused across
 * calls, TLS settings (CA, rejectUnauthorized) apply to that adapter only, and a restart (which
 * bumps the stored generation) makes every replica close the old pool on its next call. Pools are
 * per process on purpose: sockets cannot be shared between replicas.
 */
import { Agent } from "undici";
import type { Target } from "./target";

interface Pool {
  key: string;
  agent: Agent;
}

const pools = new Map<string, Pool>();

/** Keys already made, per target: a kept target (./target-cache.ts) serves many calls. */
const keys = new WeakMap<Target, string>();

/** What makes two targets need different sockets. */
function poolKey(target: Target): string {
  let key = keys.get(target);
  if (key === undefined) {
    key = JSON.stringify([target.generation, target.base.origin, target.tls, target.maxInFlight]);
    keys.set(target, key);
  }
  return key;
}

/** The adapter's pool; a changed generation or TLS setting replaces (and closes) the old one. */
export function poolFor(target: Target): Agent {
  const key = poolKey(target);
  const existing = pools.get(target.name);
  if (existing?.key === key) return existing.agent;
  if (existing) void existing.agent.destroy().catch(() => undefined);
  const agent = new Agent({
    connections: target.maxInFlight,
    keepAliveTimeout: 10_000,
    // No undici timers of its own (300 s each by default, re-armed twice per request): every
    // request sent over this pool runs under the adapter's timeout, which bounds the headers and
    // the body together (./proxy.ts, `deadline`).
    headersTimeout: 0,
    bodyTimeout: 0,
    connect: {
      ...(target.tls.ca !== undefined && { ca: target.tls.ca }),
      rejectUnauthorized: target.tls.rejectUnauthorized,
      timeout: Math.min(target.timeoutMs, 10_000),
    },
  });
  pools.set(target.name, { key, agent });
  return agent;
}

/** Drops the adapter's connections in this process (restart, stop, delete). */
export function dropPool(name: string): void {
  const pool = pools.get(name);
  if (!pool) return;
  pools.delete(name);
  void pool.agent.destroy().catch(() => undefined);
}

/** Closes every pool (the service stopping). */
export async function closePools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.agent.destroy().catch(() => undefined)));
}
