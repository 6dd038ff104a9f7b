/**
 * A collection's one home (docs/architecture.md#repositories). Each collection a service keeps has
 * one repository class, `services/<service>/<collection>.repository.ts` (or beside the code it
 * serves in a service's sub-folder), that owns:
 *  - the stored document's type (no `Record<string, any>` and no cast in the service's code);
 *  - every query and update the service makes of it, as named methods (`claimDue`, `pageForCaller`,
 *    `finishTask`): a reader finds what the service asks of its data in one file, and the index
 *    plan beside the queries it serves;
 *  - its indexes, declared once and always named (a changed definition under the same name is an
 *    index migration: ./index-migration.ts);
 *  - how its documents get their ids.
 * Services call repositories, never the store: a lint rule (eslint.config.mjs) refuses
 * `.collection(` anywhere in services/ outside a repository file.
 */
import { indexName } from "./index-migration";
import {
  newDocumentId,
  type Collection,
  type Doc,
  type Filter,
  type FindOptions,
  type IndexSpec,
  type Store,
} from "./types";

/** An index as a repository declares it: always with its name. */
export type DeclaredIndex = IndexSpec & { name: string };

/**
 * Declares an index; its name defaults to MongoDB's own (`field_1_other_-1`), so that indexes
 * created before repositories existed are the same index, not a migration.
 */
export function index(keys: IndexSpec["keys"], options: Omit<IndexSpec, "keys"> = {}): DeclaredIndex {
  const spec = { keys, ...options };
  return { ...spec, name: indexName(spec) };
}

export abstract class Repository<T extends Doc> {
  /** The collection's name in the store. */
  abstract readonly collectionName: string;
  /** Every index the repository's queries need (the index check: ./embedded/query-shapes.ts). */
  abstract readonly indexes: readonly DeclaredIndex[];
  /**
   * Names of indexes an earlier version declared and this one no longer does: dropped at start, so
   * an index nothing reads stops costing every write (an index migration, docs/architecture.md#indexes).
   */
  readonly retiredIndexes: readonly string[] = [];

  private handle?: Collection<T>;

  constructor(protected readonly store: Store) {}

  /** The collection, for the repository's own methods only. */
  protected get docs(): Collection<T> {
    this.handle ??= this.store.collection<T>(this.collectionName);
    return this.handle;
  }

  /** Drops the retired indexes and creates the declared ones (migrating a changed one); a service's `started()` calls it. */
  async ensureIndexes(): Promise<void> {
    for (const name of this.retiredIndexes) await this.docs.dropIndex(name);
    for (const spec of this.indexes) await this.docs.createIndex(spec);
  }

  /**
   * One page of what `filter` matches, and how many match in all (the two reads at once): every
   * list's answer. A `scan` reason (FindOptions.scan) covers the count too.
   */
  protected async findPage(
    filter: Filter<T>,
    options: FindOptions,
  ): Promise<{ results: T[]; total: number }> {
    const [results, total] = await Promise.all([
      this.docs.find(filter, options),
      this.docs.count(filter, options.scan === undefined ? {} : { scan: options.scan }),
    ]);
    return { results, total };
  }

  /** A new document's id: 24-hex ObjectId text, as every backend gives; a repository may choose otherwise, and says why. */
  newId(): string {
    return newDocumentId();
  }
}
