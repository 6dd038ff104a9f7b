/** Helpers of the catalog suites: signed-in clients with given roles, reply tracking, secret checks. */
import type { ServiceBroker } from "moleculer";
import { loadKey, decrypt, isEncrypted } from "../../shared/secrets";
import { acquireStore } from "../../shared/runtime";
import { RemoteBackend } from "../../shared/store/remote";
import type { Store } from "../../shared/store/types";
import { client, login, tracked, type Client, type Platform, type Reply } from "./platform";

export { clientWithRoles, tracked, type Client } from "./platform";

export async function adminClient(platform: Platform, seen: Reply[] = []): Promise<Client> {
  return tracked(client(platform.baseUrl, await login(platform.baseUrl)), seen);
}

/** Asserts no reply body (whole text, headers aside) holds any of the plaintext secrets. */
export function expectNoPlaintext(replies: Reply[], secrets: string[]): void {
  expect(replies.length).toBeGreaterThan(0);
  for (const reply of replies)
    for (const secret of secrets)
      expect({ secret, found: reply.text.includes(secret) }).toEqual({ secret, found: false });
}

/** The platform's encryption key (the services' data dir holds it). */
export function platformKey(platform: Platform): Buffer {
  return loadKey({ dataDir: platform.dataDir, encryptionKey: undefined });
}

/** Asserts `stored` is the stored encrypted form of `plaintext`. */
export function expectSealed(platform: Platform, stored: unknown, plaintext: string): void {
  expect(isEncrypted(stored)).toBe(true);
  expect(decrypt(platformKey(platform), stored as string)).toBe(plaintext);
}

/**
 * Runs `fn` with the store the catalog services use, for the few checks no operation can reach:
 * in one process the broker's own store; over NATS the `store` service, as the services reach it.
 */
export async function withStore<T>(platform: Platform, fn: (store: Store) => Promise<T>): Promise<T> {
  const members = (platform as Platform & { members?: Platform[] }).members ?? [platform];
  if (members.length > 1) return fn(new RemoteBackend(platform.broker));
  const store = await acquireStore(platform.broker);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** The `{field, message, type}` items of a 400 VALIDATION_ERROR. */
export function fieldsOf(reply: Reply): string[] {
  return (reply.body?.data ?? []).map((d: { field: string }) => d.field);
}

/**
 * Does every broker of the platform know that `broker` listens to `event`? Moleculer sends an
 * event only to nodes it knows listen, and a node's listeners reach the others in its INFO packet,
 * sent a debounce interval after its services registered: a broadcast before that misses it.
 */
export function listenersKnown(platform: Platform, broker: ServiceBroker, event: string): boolean {
  const members = (platform as Platform & { members?: Platform[] }).members ?? [platform];
  return members.every((m) =>
    m.broker.registry.events.getAllEndpoints(event).some((ep: { id: string }) => ep.id === broker.nodeID),
  );
}
