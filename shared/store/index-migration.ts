/**
 * Index migrations on MongoDB (docs/architecture.md#indexes). Every service creates its indexes at
 * start; after an upgrade that changes one (its keys under the same name, its options under the
 * same keys), MongoDB refuses the create (IndexOptionsConflict 85, IndexKeySpecsConflict 86) and the
 * service would never start. Instead, the declared index wins: one replica takes a lock document
 * (`index_migrations`, `_id` = collection and index name, a lease so a replica that dies holding it
 * does not block the others forever), drops the conflicting index and creates the declared one;
 * the others wait for the lock to go, then find the index as declared. The embedded store does the
 * same in one log line (it has one writer: embedded/collection.ts).
 */
import type { IndexSpec } from "./types";

/** MongoDB's codes for an index that exists under the same name or keys, declared otherwise. */
export const INDEX_CONFLICT_CODES = new Set([85, 86]);
export const MIGRATIONS_COLLECTION = "index_migrations";
const LEASE_MS = 60_000;
const WAIT_STEP_MS = 250;

/** What a migration needs of a collection's driver and its database (a narrow port, testable). */
export interface IndexPort {
  collectionName: string;
  create(spec: IndexSpec & { name: string }): Promise<void>;
  list(): Promise<{ name: string; key: Record<string, unknown> }[]>;
  drop(name: string): Promise<void>;
  /** Inserts the lock document; false when it exists. */
  lock(id: string, until: number): Promise<boolean>;
  /** Takes an expired lock over; false when it is held. */
  takeOver(id: string, now: number, until: number): Promise<boolean>;
  unlock(id: string): Promise<void>;
}

/** An index's name: the declared one, else MongoDB's default (`field_1_other_-1`), on every backend. */
export function indexName(spec: IndexSpec): string {
  return (
    spec.name ??
    Object.entries(spec.keys)
      .map(([field, dir]) => `${field}_${dir}`)
      .join("_")
  );
}

export function isIndexConflict(err: unknown): boolean {
  return INDEX_CONFLICT_CODES.has((err as { code?: number })?.code ?? -1);
}

/** The declared index in place of a conflicting one, by one replica at a time. */
export async function migrateIndex(
  port: IndexPort,
  spec: IndexSpec & { name: string },
  clock: () => number = Date.now,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<"migrated" | "done by another"> {
  const id = `${port.collectionName}.${spec.name}`;
  for (;;) {
    const until = clock() + LEASE_MS;
    if ((await port.lock(id, until)) || (await port.takeOver(id, clock(), until))) break;
    await sleep(WAIT_STEP_MS);
    // Another replica migrates: once it is done, the declared index exists and creating it is a no-op.
    try {
      await port.create(spec);
      return "done by another";
    } catch (err) {
      if (!isIndexConflict(err)) throw err;
    }
  }
  try {
    const keys = JSON.stringify(spec.keys);
    for (const index of await port.list())
      if (index.name !== "_id_" && (index.name === spec.name || JSON.stringify(index.key) === keys))
        await port.drop(index.name);
    await port.create(spec);
    return "migrated";
  } finally {
    await port.unlock(id);
  }
}
