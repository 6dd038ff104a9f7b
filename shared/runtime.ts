/**
 * Per-broker runtime: the config a broker was built with and its one store. Tests run several
 * brokers in one process, each with its own config, so this is keyed by broker, not global.
 */
import type { ServiceBroker } from "moleculer";
import { loadConfig, type PlatformConfig } from "./config";
import { createStore } from "./store";
import type { Store } from "./store/types";
import { timedStore } from "./observability/store-timing";

const configs = new WeakMap<ServiceBroker, PlatformConfig>();
const stores = new WeakMap<ServiceBroker, { store: Promise<Store>; users: number }>();

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
 * The broker's store, opened once and shared by every service on that broker. Each service that
 * acquires it releases it when it stops; the last release closes it.
 */
export function acquireStore(broker: ServiceBroker): Promise<Store> {
  let entry = stores.get(broker);
  if (!entry) {
    const config = configOf(broker);
    entry = {
      store: createStore(config, { broker, hostsStoreService: hostsStoreService(config) }).then((store) =>
        timedStore(store, broker),
      ),
      users: 0,
    };
    stores.set(broker, entry);
  }
  entry.users++;
  return entry.store;
}

export async function releaseStore(broker: ServiceBroker): Promise<void> {
  const entry = stores.get(broker);
  if (!entry || --entry.users > 0) return;
  stores.delete(broker);
  await (await entry.store).close();
}
