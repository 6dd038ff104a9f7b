/**
 * A collection another service owns, as search reads it (docs/architecture.md#repositories): search
 * by design reads the collections registered in shared/search-registry.ts, straight from the shared
 * store (find.ts says why: no copy, no cache). So instead of one class per collection, this one
 * generic repository serves each registered collection, knowing only what its registry entry says:
 * the name and description fields, the text fields, and the `tags` array every searchable object may
 * carry. Its writes touch `tags` only; everything else belongs to the owning service.
 *
 * Indexes: the entry's (search's own needs: `tags`); an index the owning service made is that
 * service's to declare (its repository), never declared here again with other options.
 */
import type { Searchable, SearchDoc } from "../../shared/search-registry";
import { index, Repository, type DeclaredIndex } from "../../shared/store/repository";
import type { Filter, Projection, Store } from "../../shared/store/types";

/** An object's `_id` and its tag ids, as the tag operations answer them. */
export interface TaggedObject {
  _id: string;
  tags?: unknown;
}

export class SearchableCollection extends Repository<SearchDoc> {
  readonly collectionName: string;
  readonly indexes: readonly DeclaredIndex[];

  constructor(
    store: Store,
    readonly entry: Searchable,
  ) {
    super(store);
    this.collectionName = entry.collection;
    this.indexes = entry.indexes.map(({ keys, ...options }) => index(keys, options));
  }

  /** True when the store runs in this process: reading every match is then cheaper than a count and a sort. */
  get inProcess(): boolean {
    return this.store.backend === "embedded";
  }

  /**
   * The objects a search text matches: any text field matches `regex`, or the object carries one of
   * `tagIds`; with no `regex` (no text), every object.
   */
  filterFor(regex: Filter | undefined, tagIds: string[]): Filter {
    if (!regex) return {};
    const clauses: Filter[] = this.entry.textFields.map((field) => ({ [field]: regex }));
    // Only when some tag matched: an empty `$in` branch would still cost a test per document.
    if (tagIds.length > 0) clauses.push({ tags: { $in: tagIds } });
    return clauses.length === 1 ? clauses[0] : { $or: clauses };
  }

  /** The matches' `_id` and name, unsorted: all of them, or the first `cap` (+1, to tell there are more). */
  names(filter: Filter, cap?: number): Promise<SearchDoc[]> {
    return this.docs.find(filter, {
      projection: { _id: 1, [this.entry.nameField]: 1 },
      ...(cap !== undefined && { limit: cap + 1 }),
    });
  }

  /** The objects of these ids, as a result answers them (by `_id`: a direct lookup, no scan). */
  results(ids: string[]): Promise<SearchDoc[]> {
    return this.docs.find({ _id: { $in: ids } }, { projection: this.resultFields() });
  }

  /** A page of the matches as results, by name then `_id`, and how many match (the store sorts and counts). */
  async page(filter: Filter, skip: number, limit: number): Promise<{ page: SearchDoc[]; count: number }> {
    const [page, count] = await Promise.all([
      this.docs.find(filter, {
        projection: this.resultFields(),
        sort: { [this.entry.nameField]: 1, _id: 1 },
        skip,
        limit,
      }),
      this.docs.count(filter),
    ]);
    return { page, count };
  }

  private resultFields(): Projection {
    return { _id: 1, [this.entry.nameField]: 1, [this.entry.descriptionField]: 1, tags: 1 };
  }

  /** The object's `_id` and tags; null when there is no such object. */
  tagsOf(id: string): Promise<TaggedObject | null> {
    return this.docs.findOne({ _id: id }, { projection: { _id: 1, tags: 1 } });
  }

  /**
   * Gives an object written without a `tags` list (or with something else there) an empty one, so
   * `$addToSet` has a list to add to; called only when `tagsOf` found no list.
   */
  async startTags(id: string): Promise<void> {
    await this.docs.updateOne({ _id: id }, { $set: { tags: [] } });
  }

  /** Adds the tag to the object's `tags` once, in one write; null when the object is gone. */
  addTag(id: string, tagId: string): Promise<TaggedObject | null> {
    return this.docs.findOneAndUpdate(
      { _id: id },
      { $addToSet: { tags: tagId } },
      { projection: { _id: 1, tags: 1 } },
    );
  }

  /** Takes the tag from the object's `tags`, in one write; null when the object is gone. */
  removeTag(id: string, tagId: string): Promise<TaggedObject | null> {
    return this.docs.findOneAndUpdate(
      { _id: id },
      { $pull: { tags: tagId } },
      { projection: { _id: 1, tags: 1 } },
    );
  }

  /** Takes a deleted tag from every object of the collection; answers how many carried it. */
  async removeTagEverywhere(tagId: string): Promise<number> {
    return (await this.docs.updateMany({ tags: tagId }, { $pull: { tags: tagId } })).modifiedCount;
  }
}
