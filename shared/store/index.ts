/**
 * createStore: the one way services get a Store. Backends opened here are shared per process
 * (one embedded store per data directory, one Mongo client per URL and database) and
 * reference-counted: each caller gets its own handle and its close() releases only that handle.
 */
import path from "node:path";
import type { ServiceBroker } from "moleculer";
import type { PlatformConfig, StoreBackend } from "../config";
import { EmbeddedBackend, type EmbeddedOptions } from "./embedded/backend";
import { MongoBackend, mongoClientOptions } from "./mongo";
import { RemoteBackend } from "./remote";
import type { Doc, Store } from "./types";

export * from "./types";
export { DUPLICATE_KEY } from "./remote";

export interface CreateStoreOptions {
  /** Needed by the remote backend. */
  broker?: ServiceBroker;
  /** This process runs the `store` service (or everything), so the embedded store lives here. */
  hostsStoreService: boolean;
}

export function chooseBackend(config: PlatformConfig, opts: CreateStoreOptions): StoreBackend {
  if (config.storeBackend) return config.storeBackend;
  if (config.mongoUrl) return "mongo";
  return opts.hostsStoreService ? "embedded" : "remote";
}

export async function createStore(config: PlatformConfig, opts: CreateStoreOptions): Promise<Store> {
  switch (chooseBackend(config, opts)) {
    case "embedded":
      return openEmbeddedStore(config.dataDir, embeddedStoreOptions(config));
    case "mongo": {
      const url = config.mongoUrl;
      if (!url) throw new Error("STORE=mongo needs MONGO_URL");
      return acquire(`mongo:${url}#${config.mongoDb}`, () =>
        MongoBackend.connect(url, config.mongoDb, mongoClientOptions(config.mongo)),
      );
    }
    case "remote":
      if (!opts.broker) throw new Error("the remote store needs a service broker");
      return new RemoteBackend(opts.broker);
  }
}

/** The embedded store's options as the platform's config sets them (here and services/store). */
export function embeddedStoreOptions(config: PlatformConfig): Omit<EmbeddedOptions, "dataDir"> {
  return {
    fsync: config.storeFsync,
    queryShapes: config.storeQueryShapes,
    machinery: config.perfMachinery,
    hotDocuments: config.storeHotDocuments,
  };
}

/** The process-wide embedded store of `dataDir`; the store service and its neighbours share it. */
export function openEmbeddedStore(
  dataDir: string,
  options: Omit<EmbeddedOptions, "dataDir"> = {},
): Promise<Store> {
  const resolved = path.resolve(dataDir);
  return acquire(`embedded:${resolved}`, async () => new EmbeddedBackend({ dataDir: resolved, ...options }));
}

interface Shared {
  store: Store;
  refs: number;
}
const shared = new Map<string, Promise<Shared>>();

async function acquire(key: string, open: () => Promise<Store>): Promise<Store> {
  for (;;) {
    let entry = shared.get(key);
    if (!entry) {
      entry = open().then((store) => ({ store, refs: 0 }));
      shared.set(key, entry);
      entry.catch(() => shared.delete(key));
    }
    const s = await entry;
    // The last holder may have closed it while we waited: then open afresh.
    if (shared.get(key) !== entry) continue;
    s.refs++;
    return handle(s, async () => {
      if (--s.refs > 0) return;
      shared.delete(key);
      await s.store.close();
    });
  }
}

function handle(s: Shared, release: () => Promise<void>): Store {
  let released = false;
  return {
    backend: s.store.backend,
    collection: <T extends Doc = Doc>(name: string) => {
      if (released) throw new Error("store handle is closed");
      return s.store.collection<T>(name);
    },
    ping: async () => {
      if (released) throw new Error("store handle is closed");
      await s.store.ping();
    },
    close: async () => {
      if (released) return;
      released = true;
      await release();
    },
  };
}
