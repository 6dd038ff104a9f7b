/**
 * Data migrations (docs/architecture.md#data-migrations): a change to stored documents that a
 * release needs made once, such as a summary field new code reads that older documents lack. Each
 * has an id; one that finished is recorded in `data_migrations`, and later starts skip it.
 *
 * A migration must be safe to run twice and at once on two replicas (each write conditional, as
 * `$exists: false` on the field it adds): replicas starting together may both run it, and one that
 * dies part-way leaves it unrecorded, so the next start runs it again from the beginning.
 */
import { Repository } from "./repository";
import { DuplicateKeyError, type Store } from "./types";

export const DATA_MIGRATIONS_COLLECTION = "data_migrations";

interface MigrationRecord {
  /** The migration's id, e.g. `jobs.manualTasks`. */
  _id: string;
  /** When it finished (ISO text). */
  doneAt: string;
  /** How many documents it changed. */
  changed: number;
}

class DataMigrationRepository extends Repository<MigrationRecord> {
  readonly collectionName = DATA_MIGRATIONS_COLLECTION;
  readonly indexes = [];

  async isDone(id: string): Promise<boolean> {
    return (await this.docs.findOne({ _id: id })) !== null;
  }

  async recordDone(id: string, changed: number): Promise<void> {
    try {
      await this.docs.insertOne({ _id: id, doneAt: new Date().toISOString(), changed });
    } catch (err) {
      // Another replica ran it too and recorded it first: done either way.
      if (!(err instanceof DuplicateKeyError)) throw err;
    }
  }
}

/**
 * Runs data migration `id` (`migrate` answers how many documents it changed) unless it is recorded
 * as done, then records it; answers what it changed, or "done before".
 */
export async function migrateOnce(
  store: Store,
  id: string,
  migrate: () => Promise<number>,
): Promise<number | "done before"> {
  const migrations = new DataMigrationRepository(store);
  if (await migrations.isDone(id)) return "done before";
  const changed = await migrate();
  await migrations.recordDone(id, changed);
  return changed;
}
