/**
 * Documents a user names (adapters, repository configurations, profiles, forms): one collection, a
 * unique key, 409 when the name is taken, 404 when it is not there. One home for that rule, so every
 * named resource answers the same way (docs/architecture.md).
 *
 * `NamedRepository` is the rule as a repository base class (docs/architecture.md#repositories): a
 * named collection's repository extends it and adds its own queries.
 */
import { ConflictError, NotFoundError } from "./errors";
import { index, Repository, type DeclaredIndex } from "./store/repository";
import { DuplicateKeyError, type Doc, type Filter } from "./store/types";

/** The unique index on the name field; `name` is unique even where `_id` is the key (profiles). */
export const NAME_INDEX = index({ name: 1 }, { unique: true });

/** A named collection's repository: insert (409 on a taken name), list by name, get and remove (404). */
export abstract class NamedRepository<T extends Doc> extends Repository<T> {
  /** Names the resource in messages ("Adapter 'x' not found"). */
  abstract readonly label: string;
  /** The field that holds the name: `name`, or `_id` where the name is the id (profiles). */
  readonly key: "name" | "_id" = "name";
  readonly indexes: readonly DeclaredIndex[] = [NAME_INDEX];

  /** Stores `doc`; ConflictError (409) when its name is taken. */
  async insert(doc: Omit<T, "_id"> & { _id?: string }): Promise<T> {
    try {
      return await this.docs.insertOne(doc);
    } catch (err) {
      if (err instanceof DuplicateKeyError)
        throw new ConflictError(`${this.label} '${String((doc as Doc)[this.key])}' already exists`);
      throw err;
    }
  }

  /** The filter for one name: `key` is one of T's fields, which the types cannot see of a generic T. */
  private named(name: string): Filter<T> {
    return { [this.key]: name } as Filter<T>;
  }

  /** Every document, ordered by name. */
  list(): Promise<T[]> {
    return this.docs.find({}, { sort: { [this.key]: 1 } });
  }

  /** The document named `name`, or null. */
  find(name: string): Promise<T | null> {
    return this.docs.findOne(this.named(name));
  }

  /** The document named `name`; NotFoundError (404) when there is none. */
  async get(name: string): Promise<T> {
    const doc = await this.find(name);
    if (!doc) throw new NotFoundError(this.label, name);
    return doc;
  }

  /** Deletes and returns the document named `name`; NotFoundError (404) when there is none. */
  async remove(name: string): Promise<T> {
    const doc = await this.docs.findOneAndDelete(this.named(name));
    if (!doc) throw new NotFoundError(this.label, name);
    return doc;
  }
}
