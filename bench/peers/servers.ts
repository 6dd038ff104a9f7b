/**
 * The peers' servers: Redis for BullMQ, PostgreSQL for graphile-worker. Each is probed before its
 * peer runs; a server that does not answer makes the bench skip that peer, saying so loudly (the
 * report names it too). The PostgreSQL database is created when it is missing. What each server
 * promises about durability is read and reported beside the figures (docs/performance.md, "Peers").
 */
import os from "node:os";
import IORedis from "ioredis";
import { makeWorkerUtils } from "graphile-worker";
import type { Servers } from "./peers";

/**
 * PEERS_REDIS_URL (redis://127.0.0.1:6379); PEERS_PG_URL, by default the database bench_peers on
 * the local socket as the role named like the OS user (`localhost` there is only a placeholder:
 * node-postgres takes the `host` parameter, the socket's directory).
 */
export function serversFromEnv(): Servers {
  const redis = new URL(process.env.PEERS_REDIS_URL || "redis://127.0.0.1:6379");
  const role = encodeURIComponent(process.env.PGUSER || os.userInfo().username);
  return {
    redis: { host: redis.hostname, port: Number(redis.port || 6379) },
    pgUrl: process.env.PEERS_PG_URL || `postgres://${role}@localhost/bench_peers?host=/var/run/postgresql`,
  };
}

export interface Probe {
  ok: boolean;
  /** Why the peer is skipped, or what the server keeps on disk. */
  note: string;
}

/** Redis answers PING; its persistence settings (RDB `save`, `appendonly`) go in the note. */
export async function probeRedis(servers: Servers): Promise<Probe> {
  const client = new IORedis({
    ...servers.redis,
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.ping();
    const save = ((await client.config("GET", "save")) as string[])[1] ?? "";
    const aof = ((await client.config("GET", "appendonly")) as string[])[1] ?? "";
    const fsync = ((await client.config("GET", "appendfsync")) as string[])[1] ?? "";
    const disk =
      aof === "yes"
        ? `AOF on, appendfsync ${fsync}`
        : save
          ? `no AOF, RDB snapshots (save ${save}): a crash loses the writes since the last one`
          : "no AOF, no RDB snapshot: nothing is kept on disk";
    return { ok: true, note: `Redis ${servers.redis.host}:${servers.redis.port}: ${disk}` };
  } catch (err) {
    return { ok: false, note: `no Redis at ${servers.redis.host}:${servers.redis.port} (${message(err)})` };
  } finally {
    client.disconnect();
  }
}

/**
 * PostgreSQL answers at PEERS_PG_URL; a missing database is created (connected to the `postgres`
 * database of the same server, as the same role). fsync and synchronous_commit go in the note.
 */
export async function probePostgres(servers: Servers): Promise<Probe> {
  const settings = async (url: string) => {
    const utils = await makeWorkerUtils({ connectionString: url, maxPoolSize: 1 });
    try {
      return await utils.withPgClient(async (c) => {
        const { rows } = await c.query(
          "select current_setting('fsync') as fsync, current_setting('synchronous_commit') as sync",
        );
        return rows[0] as { fsync: string; sync: string };
      });
    } finally {
      await utils.release();
    }
  };
  try {
    let found: { fsync: string; sync: string };
    try {
      found = await settings(servers.pgUrl);
    } catch (err) {
      if ((err as { code?: string }).code !== "3D000") throw err; // 3D000: no such database
      await createDatabase(servers.pgUrl);
      found = await settings(servers.pgUrl);
    }
    return {
      ok: true,
      note: `PostgreSQL ${redact(servers.pgUrl)}: fsync ${found.fsync}, synchronous_commit ${found.sync}`,
    };
  } catch (err) {
    return { ok: false, note: `no usable PostgreSQL at ${redact(servers.pgUrl)} (${message(err)})` };
  }
}

async function createDatabase(pgUrl: string): Promise<void> {
  const url = new URL(pgUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`will not create a database named ${name}`);
  url.pathname = "/postgres";
  const utils = await makeWorkerUtils({ connectionString: url.toString(), maxPoolSize: 1 });
  try {
    await utils.withPgClient((c) => c.query(`create database ${name}`));
    console.log(`created PostgreSQL database ${name}`);
  } finally {
    await utils.release();
  }
}

/** A connection string without its password. */
function redact(pgUrl: string): string {
  const url = new URL(pgUrl);
  if (url.password) url.password = "***";
  return url.toString();
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
