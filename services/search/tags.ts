/**
 * Tags: documents in `tags` ({_id, name, description}); an object carries the `_id`s of its tags in
 * its `tags` array. Names are unique regardless of case (`nameKey`, the lower-cased name, holds the
 * unique index), so "BGP" and "bgp" cannot both exist and confuse a search.
 */
import type { ObjectTags, Tag } from "../../shared/contracts/search";
import { ConflictError, NotFoundError } from "../../shared/errors";
import { SEARCHABLES, searchableOf } from "../../shared/search-registry";
import { DuplicateKeyError, type Store } from "../../shared/store/types";
import { nowIso } from "../../shared/text";
import { page, pageLimit, type Page } from "../../shared/paging";
import { expandTags, tagsById } from "./find";

const TAG_FIELDS = { _id: 1, name: 1, description: 1 } as const;

export async function ensureTagIndexes(store: Store): Promise<void> {
  await store.collection("tags").createIndex({ keys: { nameKey: 1 }, unique: true });
}

export async function createTag(
  store: Store,
  input: { name: string; description?: string },
  createdBy: string | undefined,
): Promise<Tag> {
  const tag = { name: input.name, description: input.description ?? "" };
  try {
    const stored = await store.collection("tags").insertOne({
      ...tag,
      nameKey: input.name.toLowerCase(),
      created: nowIso(),
      createdBy: createdBy ?? null,
    });
    return { _id: stored._id, ...tag };
  } catch (err) {
    if (err instanceof DuplicateKeyError) throw new ConflictError(`Tag '${input.name}' already exists`);
    throw err;
  }
}

/** A page of tags by name, in the project's list shape (docs/compatibility.md#list-shapes). */
export async function listTags(store: Store, skip = 0, requested?: number): Promise<Page<Tag>> {
  const limit = pageLimit(requested);
  const collection = store.collection<Tag>("tags");
  const [tags, total] = await Promise.all([
    collection.find({}, { projection: TAG_FIELDS, sort: { nameKey: 1, _id: 1 }, skip, limit }),
    collection.count({}),
  ]);
  return page(
    tags.map((t) => ({ _id: t._id, name: t.name, description: t.description ?? "" })),
    total,
    skip,
    limit,
  );
}

/**
 * Deletes the tag, then pulls its id from every searchable collection. Should a pull fail half way,
 * the leftover ids name no tag: search and attach answers leave unknown ids out.
 */
export async function deleteTag(store: Store, id: string): Promise<{ status: string; message: string }> {
  const tag = await store.collection("tags").findOneAndDelete({ _id: id });
  if (!tag) throw new NotFoundError("Tag", id);
  let detached = 0;
  for (const { collection } of SEARCHABLES) {
    const result = await store.collection(collection).updateMany({ tags: id }, { $pull: { tags: id } });
    detached += result.modifiedCount;
  }
  return { status: "OK", message: `Tag '${tag.name}' deleted; detached from ${detached} object(s)` };
}

export interface TagTarget {
  collection: string;
  objectId: string;
  tagId: string;
}

/** Adds the tag to the object's `tags` (once). Unknown tag or object: 404, nothing written. */
export async function attachTag(store: Store, target: TagTarget): Promise<ObjectTags> {
  const tag = await store.collection("tags").findOne({ _id: target.tagId }, { projection: { _id: 1 } });
  if (!tag) throw new NotFoundError("Tag", target.tagId);
  return setTags(store, target, { $addToSet: { tags: target.tagId } }, true);
}

/** Removes the tag from the object's `tags`; removing one it does not carry changes nothing. */
export async function detachTag(store: Store, target: TagTarget): Promise<ObjectTags> {
  return setTags(store, target, { $pull: { tags: target.tagId } }, false);
}

async function setTags(
  store: Store,
  target: TagTarget,
  update: Record<string, unknown>,
  adding: boolean,
): Promise<ObjectTags> {
  const entry = searchableOf(target.collection)!; // the contract's enum allows registry names only
  const collection = store.collection(entry.collection);
  const doc = await collection.findOne({ _id: target.objectId }, { projection: { _id: 1, tags: 1 } });
  if (!doc) throw new NotFoundError(entry.noun, target.objectId);
  if (!Array.isArray(doc.tags)) {
    // Nothing to detach; and an object written without a tags list starts from an empty one.
    if (!adding) return { collection: entry.collection, objectId: target.objectId, tags: [] };
    await collection.updateOne({ _id: target.objectId }, { $set: { tags: [] } });
  }
  const after = await collection.findOneAndUpdate({ _id: target.objectId }, update, {
    projection: { _id: 1, tags: 1 },
  });
  if (!after) throw new NotFoundError(entry.noun, target.objectId); // deleted meanwhile
  const ids = (after.tags as unknown[]).filter((t): t is string => typeof t === "string");
  return {
    collection: entry.collection,
    objectId: target.objectId,
    tags: expandTags(ids, await tagsById(store, ids)),
  };
}
