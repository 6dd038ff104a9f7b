/**
 * search: cross-collection search (spec operation 12) and tags. Which collections are searched, and
 * how, is declared in shared/search-registry.ts; docs/search.md describes the behaviour.
 */
import { MAX_PAGE_SIZE } from "../paging";
import { SEARCHABLE_COLLECTIONS } from "../search-registry";
import { defineService, SUPPORT_READ, SUPPORT_WRITE } from "./define";
import { arrayOf, int, integer, named, objectId, returns, shape, str, type InferRule } from "./schema";
import { messageSchema, searchResultGroupSchema } from "./resources";

/**
 * A tag as the tag routes answer it: `id` beside `_id` (docs/compatibility.md#the-id-member). A
 * search result's tags are the spec's `{_id, name, description}` exactly (operation 12).
 */
const tagSchema = named("Tag", shape({ id: str, _id: str, name: str, description: str }));
export type TagAnswer = InferRule<typeof tagSchema>;
/** A tag as a search result carries it (spec operation 12). */
export type Tag = Omit<TagAnswer, "id">;

/** The tags of one object after an attach or detach, expanded. */
const objectTagsSchema = shape({ collection: str, objectId: str, tags: arrayOf(tagSchema) });
export type ObjectTags = InferRule<typeof objectTagsSchema>;

export { MAX_PAGE_SIZE };
export const DEFAULT_PAGE_SIZE = 10;

/** Which object a tag operation acts on: any collection of the search registry. */
const tagTarget = {
  collection: {
    type: "enum",
    values: SEARCHABLE_COLLECTIONS,
    description: "A searchable collection (docs/search.md)",
  },
  objectId: { type: "string", min: 1, max: 256, description: "The object's `_id`" },
  tagId: objectId,
} as const;

export const search = defineService("search", {
  find: {
    idempotent: "repeatable",
    params: {
      data: {
        type: "object",
        strict: "remove",
        props: {
          text: {
            type: "string",
            max: 1024,
            // MongoDB refuses a NUL byte in a pattern; it is never part of a real name anyway.
            // eslint-disable-next-line no-control-regex
            pattern: /^[^\u0000]*$/,
            messages: { stringPattern: "The '{field}' field must not contain a NUL character." },
            description: "Matched literally and case-insensitively; trimmed; empty matches every object",
          },
          pageNumber: {
            type: "number",
            integer: true,
            min: 0,
            max: 1_000_000,
            optional: true,
            description: "Page number, from 1 (0 is the first page too)",
          },
          nPerPage: {
            type: "number",
            integer: true,
            min: 1,
            max: MAX_PAGE_SIZE,
            optional: true,
            description: `Results per group and page, default ${DEFAULT_PAGE_SIZE}`,
          },
        },
      },
    },
    result: returns(arrayOf(searchResultGroupSchema)),
    http: {
      method: "POST",
      path: "/search/find",
      access: ["admin", "apiwrite"],
      spec: 12,
      summary: "Search every collection, and tags",
    },
  },
  createTag: {
    idempotent: "keyed",
    params: {
      name: { type: "string", trim: true, min: 1, max: 128 },
      description: { type: "string", max: 1024, optional: true },
    },
    result: returns(tagSchema),
    http: { method: "POST", path: "/search/tags", access: SUPPORT_WRITE, summary: "Create a tag" },
  },
  listTags: {
    params: { skip: int(0), limit: int(1) },
    result: returns(shape({ results: arrayOf(tagSchema), total: integer, skip: integer, limit: integer })),
    http: {
      method: "GET",
      path: "/search/tags",
      access: SUPPORT_READ,
      summary: "A page of tags by name, {results, total, skip, limit}",
    },
  },
  deleteTag: {
    idempotent: "keyed",
    params: { id: objectId },
    result: returns(messageSchema),
    http: {
      method: "DELETE",
      path: "/search/tags/:id",
      access: SUPPORT_WRITE,
      summary: "Delete a tag and detach it from every object",
    },
  },
  attachTag: {
    idempotent: "keyed",
    params: tagTarget,
    result: returns(objectTagsSchema),
    http: {
      method: "POST",
      path: "/search/tags/attach",
      access: SUPPORT_WRITE,
      summary: "Attach a tag to an object of any searchable collection",
    },
  },
  detachTag: {
    idempotent: "keyed",
    params: tagTarget,
    result: returns(objectTagsSchema),
    http: {
      method: "POST",
      path: "/search/tags/detach",
      access: SUPPORT_WRITE,
      summary: "Detach a tag from an object",
    },
  },
});
