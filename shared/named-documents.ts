/**
 * Documents a user names (adapters, repository configurations, profiles): one collection, a unique
 * key, 409 when the name is taken, 404 when it is not there. One home for that rule, so every
 * named resource answers the same way (docs/architecture.md).
 */
import { ConflictError, NotFoundError } from "./errors";
import { DuplicateKeyError, type Collection, type Doc, type Filter, type Store } from "./store/types";

export interface NamedDocuments<T extends Doc> {
  readonly collection: Collection<T>;
  /** Stores `doc`; ConflictError (409) when its name is taken. */
  insert(doc: Omit<T, "_id"> | T): Promise<T>;
  /** Every document, ordered by name. */
  list(): Promise<T[]>;
  /** The document named `name`; NotFoundError (404) when there is none. */
  get(name: string): Promise<T>;
  /** Deletes and returns the document named `name`; NotFoundError (404) when there is none. */
  remove(name: string): Promise<T>;
}

/**
 * `label` names the resource in messages ("Adapter 'x' not found"); `key` is the field that holds
 * the name (`name`, or `_id` where the name is the id).
 */
export function namedDocuments<T extends Doc>(
  store: Store,
  collectionName: string,
  label: string,
  key: "name" | "_id" = "name",
): NamedDocuments<T> {
  const collection = store.collection<T>(collectionName);
  const nameOf = (doc: Omit<T, "_id"> | T) => String((doc as Doc)[key]);
  // `key` is one of T's fields, which the types cannot see of a generic T.
  const named = (name: string) => ({ [key]: name }) as Filter<T>;
  return {
    collection,
    async insert(doc) {
      try {
        return await collection.insertOne(doc as T);
      } catch (err) {
        if (err instanceof DuplicateKeyError)
          throw new ConflictError(`${label} '${nameOf(doc)}' already exists`);
        throw err;
      }
    },
    list: () => collection.find({}, { sort: { [key]: 1 } }),
    async get(name) {
      const doc = await collection.findOne(named(name));
      if (!doc) throw new NotFoundError(label, name);
      return doc;
    },
    async remove(name) {
      const doc = await collection.findOneAndDelete(named(name));
      if (!doc) throw new NotFoundError(label, name);
      return doc;
    },
  };
}

/** The unique index on the name field; `name` is unique even where `_id` is the key (profiles). */
export async function ensureNameIndex(store: Store, collectionName: string): Promise<void> {
  await store.collection(collectionName).createIndex({ keys: { name: 1 }, unique: true });
}
