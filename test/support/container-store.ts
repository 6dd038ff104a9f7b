/**
 * Where the container suite (`npm run test:containers`) runs, TEST_STORE=mongo and MONGO_URL name
 * its MongoDB replica set: every platform a test starts, in its own broker or a child process, then
 * stores there instead of in the embedded store. Brokers of one cluster (one NAMESPACE, or one
 * DATA_DIR when they have none) share one database, as they would share the embedded store.
 */
import { createHash } from "node:crypto";

export function containerStoreEnv(env: Record<string, string | undefined>): Record<string, string> {
  const url = process.env.MONGO_URL;
  if (process.env.TEST_STORE !== "mongo" || !url || env.STORE) return {};
  const cluster = env.NAMESPACE || env.DATA_DIR || "default";
  const db = `test_${createHash("sha256").update(cluster).digest("hex").slice(0, 16)}`;
  return { MONGO_URL: url, MONGO_DB: db, STORE: "mongo" };
}
