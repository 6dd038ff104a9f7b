/**
 * Tags: documents in `tags` (./tags.repository.ts); an object carries the `_id`s of its tags in its
 * `tags` array (./searchable.repository.ts). Names are unique regardless of case, so "BGP" and
 * "bgp" cannot both exist and confuse a search.
 */
import type { ObjectTags, Tag, TagAnswer } from "../../shared/contracts/search";
import { ConflictError, NotFoundError } from "../../shared/errors";
import { page, pageLimit, type Page } from "../../shared/paging";
import { DuplicateKeyError } from "../../shared/store/types";
import { nowIso } from "../../shared/text";
import { expandTags } from "./find";
import type { SearchableCollection } from "./searchable.repository";
import type { TagsRepository } from "./tags.repository";

export async function createTag(
  tags: TagsRepository,
  input: { name: string; description?: string },
  createdBy: string | undefined,
): Promise<TagAnswer> {
  const description = input.description ?? "";
  try {
    const stored = await tags.create(input.name, description, createdBy ?? null, nowIso());
    return withId({ _id: stored._id, name: input.name, description });
  } catch (err) {
    if (err instanceof DuplicateKeyError) throw new ConflictError(`Tag '${input.name}' already exists`);
    throw err;
  }
}

/** A page of tags by name, in the project's list shape (docs/compatibility.md#list-shapes). */
export async function listTags(tags: TagsRepository, skip = 0, requested?: number): Promise<Page<TagAnswer>> {
  const limit = pageLimit(requested);
  const { results, total } = await tags.page(skip, limit);
  return page(results.map(withId), total, skip, limit);
}

/** A tag as the tag routes answer it: `id` beside `_id` (docs/compatibility.md#the-id-member). */
function withId(tag: Tag): TagAnswer {
  return { id: tag._id, ...tag };
}

/**
 * Deletes the tag, then pulls its id from every searchable collection. Should a pull fail half way,
 * the leftover ids name no tag: search and attach answers leave unknown ids out.
 */
export async function deleteTag(
  tags: TagsRepository,
  searchables: readonly SearchableCollection[],
  id: string,
): Promise<{ status: string; message: string }> {
  const tag = await tags.removeById(id);
  if (!tag) throw new NotFoundError("Tag", id);
  let detached = 0;
  for (const collection of searchables) detached += await collection.removeTagEverywhere(id);
  return { status: "OK", message: `Tag '${tag.name}' deleted; detached from ${detached} object(s)` };
}

export interface TagTarget {
  collection: string;
  objectId: string;
  tagId: string;
}

/** Adds the tag to the object's `tags` (once). Unknown tag or object: 404, nothing written. */
export async function attachTag(
  tags: TagsRepository,
  collection: SearchableCollection,
  target: TagTarget,
): Promise<ObjectTags> {
  if (!(await tags.exists(target.tagId))) throw new NotFoundError("Tag", target.tagId);
  return setTags(tags, collection, target, true);
}

/** Removes the tag from the object's `tags`; removing one it does not carry changes nothing. */
export async function detachTag(
  tags: TagsRepository,
  collection: SearchableCollection,
  target: TagTarget,
): Promise<ObjectTags> {
  return setTags(tags, collection, target, false);
}

async function setTags(
  tags: TagsRepository,
  collection: SearchableCollection,
  target: TagTarget,
  adding: boolean,
): Promise<ObjectTags> {
  const { noun } = collection.entry;
  const doc = await collection.tagsOf(target.objectId);
  if (!doc) throw new NotFoundError(noun, target.objectId);
  if (!Array.isArray(doc.tags)) {
    // Nothing to detach; and an object written without a tags list starts from an empty one.
    if (!adding) return { collection: collection.collectionName, objectId: target.objectId, tags: [] };
    await collection.startTags(target.objectId);
  }
  const after = adding
    ? await collection.addTag(target.objectId, target.tagId)
    : await collection.removeTag(target.objectId, target.tagId);
  if (!after) throw new NotFoundError(noun, target.objectId); // deleted meanwhile
  const ids = (after.tags as unknown[]).filter((t): t is string => typeof t === "string");
  return {
    collection: collection.collectionName,
    objectId: target.objectId,
    tags: expandTags(ids, await tags.byIds(ids)).map(withId),
  };
}
