/** One collection of the embedded store in memory: documents by `_id`, indexes, unique keys. */
import { DuplicateKeyError, type Doc, type IndexSpec } from "../types";
import { indexKeys, keyObject } from "./mongo";

export type NamedIndex = IndexSpec & { name: string };
export type StoredDoc = Doc & { _id: string };

/** One collection's documents and indexes. Stored documents are never mutated, only replaced. */
export class Table {
  readonly docs = new Map<string, StoredDoc>();
  readonly indexes = new Map<string, NamedIndex>();
  /** Per unique index: key tuple (JSON) -> `_id` of the document holding it. */
  private readonly uniqueKeys = new Map<string, Map<string, string>>();

  addIndex(spec: NamedIndex): void {
    this.indexes.set(spec.name, spec);
    if (spec.unique) {
      const keys = new Map<string, string>();
      this.uniqueKeys.set(spec.name, keys);
      for (const doc of this.docs.values()) for (const key of indexKeys(doc, spec)) keys.set(key, doc._id);
    }
  }

  /** Throws DuplicateKeyError when writing `puts` (new `_id`s when `inserting`) would break a unique index. */
  check(collection: string, puts: StoredDoc[], inserting: boolean): void {
    const batchIds = new Set<string>();
    for (const doc of puts) {
      if (inserting && (this.docs.has(doc._id) || batchIds.has(doc._id))) {
        throw new DuplicateKeyError(collection, { _id: doc._id });
      }
      batchIds.add(doc._id);
    }
    for (const [name, owners] of this.uniqueKeys) {
      const spec = this.indexes.get(name)!;
      const claimed = new Map<string, string>();
      for (const doc of puts) {
        for (const key of indexKeys(doc, spec)) {
          const claimant = claimed.get(key);
          const owner = owners.get(key);
          // An owner that is itself rewritten in this batch only clashes if its new image claims the key too.
          const clash =
            (claimant !== undefined && claimant !== doc._id) ||
            (owner !== undefined && owner !== doc._id && !batchIds.has(owner));
          if (clash) throw new DuplicateKeyError(collection, keyObject(spec, key));
          claimed.set(key, doc._id);
        }
      }
    }
  }

  apply(puts: StoredDoc[], dels: string[]): void {
    const removed = [...dels, ...puts.map((d) => d._id)];
    for (const id of removed) {
      const old = this.docs.get(id);
      if (old) this.forEachUnique(old, (keys, key) => keys.get(key) === id && keys.delete(key));
    }
    for (const id of dels) this.docs.delete(id);
    for (const doc of puts) {
      this.docs.set(doc._id, doc);
      this.forEachUnique(doc, (keys, key) => keys.set(key, doc._id));
    }
  }

  private forEachUnique(doc: StoredDoc, fn: (keys: Map<string, string>, key: string) => unknown): void {
    for (const [name, keys] of this.uniqueKeys) {
      for (const key of indexKeys(doc, this.indexes.get(name)!)) fn(keys, key);
    }
  }
}
