/** Helpers of the search suites: the platform's store for seeding, clients with given roles. */
import { acquireStore } from "../../shared/runtime";
import type { Doc, Store } from "../../shared/store/types";
import { type Platform, type Reply } from "./platform";

export { clientWithRoles, type Client } from "./platform";

/** The broker running the search service (the platform itself in-process). */
function searchHost(platform: Platform) {
  const members = (platform as Platform & { members?: Platform[] }).members ?? [];
  return (members.find((m) => m.broker.getLocalService("search")) ?? platform).broker;
}

/**
 * Runs `fn` with the store exactly as the search service sees it (its broker's store: embedded
 * in-process, the store service over the bus in the NATS shape): the way to seed collections whose
 * owning service may not have its create operation yet, and to see what a rejected call left behind.
 */
export async function withStore<T>(platform: Platform, fn: (store: Store) => Promise<T>): Promise<T> {
  const broker = searchHost(platform);
  const store = await acquireStore(broker);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

export function insert(platform: Platform, collection: string, docs: Doc[]): Promise<Doc[]> {
  return withStore(platform, (store) => store.collection(collection).insertMany(docs));
}

/** The `field`s of a 400 VALIDATION_ERROR's items. */
export function fieldsOf(reply: Reply): string[] {
  return (reply.body?.data ?? []).map((d: { field: string }) => d.field);
}

/** Fisher-Yates with a fixed seed: stored order must not be what the answer's order relies on. */
export function shuffled<T>(items: T[], seed = 7): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
