/** The broker's store for the length of `fn`, released after (shared/runtime.ts counts the users). */
import type { ServiceBroker } from "moleculer";
import { acquireStore } from "../../shared/runtime";
import type { Store } from "../../shared/store/types";

export async function withStore<T>(broker: ServiceBroker, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await acquireStore(broker);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
