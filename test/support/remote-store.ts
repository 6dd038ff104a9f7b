/**
 * A store node and a caller over a real NATS, as an engine replica reaches the store: the `store`
 * service in one broker (its embedded store in a temp dir), a bare broker with a RemoteBackend in
 * another, each suite on a namespace of its own.
 */
import { randomUUID } from "node:crypto";
import { ServiceBroker } from "moleculer";
import { brokerOptions } from "../../app/broker-options";
import { loadConfig } from "../../shared/config";
import { RemoteBackend } from "../../shared/store/remote";
import { startPlatform, tempDir, type Platform } from "./platform";

export interface RemoteStore {
  /** The store's node. */
  store: Platform;
  /** The calling node, with `remote` on it. */
  caller: ServiceBroker;
  remote: RemoteBackend;
  stop(): Promise<void>;
}

/** `name` prefixes the namespace; `storeEnv` is the store node's own settings (STORE_HOT_DOCUMENTS...). */
export async function startRemoteStore(
  name: string,
  storeEnv: Record<string, string> = {},
): Promise<RemoteStore> {
  const namespace = `${name}-${randomUUID().slice(0, 8)}`;
  const env = { TRANSPORTER: process.env.NATS_URL!, NAMESPACE: namespace };
  const store = await startPlatform({
    services: ["store"],
    dataDir: tempDir(),
    env: { ...env, ...storeEnv },
  });
  const caller = new ServiceBroker({
    ...brokerOptions(loadConfig({ ...env, METRICS_PORT: "off" })),
    nodeID: `${namespace}-caller`,
    logger: false,
  });
  await caller.start();
  await caller.waitForServices(["store"], 10_000);
  return {
    store,
    caller,
    remote: new RemoteBackend(caller),
    stop: async () => {
      await caller.stop();
      await store.stop();
    },
  };
}
