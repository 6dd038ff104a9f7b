/**
 * Per-broker runtime: the config a broker was built with, and handles on its store. Tests run
 * several brokers in one process, each with its own config, so this is keyed by broker, not global.
 */
import type { ServiceBroker } from "moleculer";
import { loadConfig, type PlatformConfig } from "./config";
import { createStore } from "./store";
import type { Store } from "./store/types";
import { timedStore } from "./observability/store-timing";
import { notingKeyedInserts } from "./keyed-inserts";

const configs = new WeakMap<ServiceBroker, PlatformConfig>();

/** Called by the composition root (app/broker.ts) when it builds a broker from `config`. */
export function bindConfig(broker: ServiceBroker, config: PlatformConfig): void {
  configs.set(broker, config);
}

export function configOf(broker: ServiceBroker): PlatformConfig {
  let config = configs.get(broker);
  if (!config) {
    config = loadConfig();
    configs.set(broker, config);
  }
  return config;
}

/** Does this broker's process run the `store` service (and so own the embedded store)? */
function hostsStoreService(config: PlatformConfig): boolean {
  return config.services === undefined || config.services.includes("store");
}

/**
 * A handle on the broker's store, for one holder (a service, from `started` to `stopped`; a test).
 * The holder closes its handle when done. Counting the holders is the store module's one job
 * (shared/store/index.ts): it opens the backend for the first handle and closes it with the last.
 */
export async function acquireStore(broker: ServiceBroker): Promise<Store> {
  const config = configOf(broker);
  const store = await createStore(config, { broker, hostsStoreService: hostsStoreService(config) });
  // Inserts made by idempotent writes are noted for a takeover (shared/keyed-inserts.ts).
  return notingKeyedInserts(timedStore(store, broker));
}
