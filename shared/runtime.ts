/**
 * Per-broker runtime: the config a broker was built with, and handles on its store. Tests run
 * several brokers in one process, each with its own config, so this is keyed by broker, not global.
 */
import type { ServiceBroker } from "moleculer";
import { loadConfig, type PlatformConfig } from "./config";
import { createStore } from "./store";
import type { Doc, Store } from "./store/types";
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
  // Inserts made by idempotent writes are noted for a takeover (shared/keyed-inserts.ts).
  const store = notingKeyedInserts(
    timedStore(await createStore(config, { broker, hostsStoreService: hostsStoreService(config) }), broker),
  );
  let held = heldStores.get(broker);
  if (!held) heldStores.set(broker, (held = new Set()));
  const handle: Store = {
    backend: store.backend,
    collection: <T extends Doc = Doc>(name: string) => store.collection<T>(name),
    ping: () => store.ping(),
    close: async () => {
      held.delete(handle);
      await store.close();
    },
  };
  held.add(handle);
  return handle;
}

/** The store handles each broker's services hold now: what its readiness pings. */
const heldStores = new WeakMap<ServiceBroker, Set<Store>>();

/**
 * Pings every store this broker's services hold, each within `timeoutMs`: "ok", or "unreachable"
 * when one fails or does not answer in time; undefined when the process holds no store (a gateway
 * alone), so it has nothing to ping.
 */
export async function pingStores(broker: ServiceBroker, timeoutMs = 2000): Promise<string | undefined> {
  const held = [...(heldStores.get(broker) ?? [])];
  if (held.length === 0) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("store ping timed out")), timeoutMs);
  });
  try {
    await Promise.race([Promise.all(held.map((store) => store.ping())), deadline]);
    return "ok";
  } catch {
    return "unreachable";
  } finally {
    clearTimeout(timer);
  }
}
