"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.poolFor = poolFor;
exports.dropPool = dropPool;
exports.closePools = closePools;
/**
 * One undici connection pool per adapter and generation: keep-alive connections are reused across
 * calls, TLS settings (CA, rejectUnauthorized) apply to that adapter only, and a restart (which
 * bumps the stored generation) makes every replica close the old pool on its next call. Pools are
 * per process on purpose: sockets cannot be shared between replicas.
 */
const undici_1 = require("undici");
const pools = new Map();
/** What makes two targets need different sockets. */
function poolKey(target) {
    return JSON.stringify([target.generation, target.base.origin, target.tls, target.maxInFlight]);
}
/** The adapter's pool; a changed generation or TLS setting replaces (and closes) the old one. */
function poolFor(target) {
    const key = poolKey(target);
    const existing = pools.get(target.name);
    if (existing?.key === key)
        return existing.agent;
    if (existing)
        void existing.agent.destroy().catch(() => undefined);
    const agent = new undici_1.Agent({
        connections: target.maxInFlight,
        keepAliveTimeout: 10_000,
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
function dropPool(name) {
    const pool = pools.get(name);
    if (!pool)
        return;
    pools.delete(name);
    void pool.agent.destroy().catch(() => undefined);
}
/** Closes every pool (the service stopping). */
async function closePools() {
    const all = [...pools.values()];
    pools.clear();
    await Promise.all(all.map((p) => p.agent.destroy().catch(() => undefined)));
}
//# sourceMappingURL=connections.js.map