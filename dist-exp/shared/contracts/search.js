"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.search = exports.DEFAULT_PAGE_SIZE = exports.MAX_PAGE_SIZE = void 0;
/**
 * search: cross-collection search (spec operation 12) and tags. Which collections are searched, and
 * how, is declared in shared/search-registry.ts; docs/search.md describes the behaviour.
 */
const paging_1 = require("../paging");
Object.defineProperty(exports, "MAX_PAGE_SIZE", { enumerable: true, get: function () { return paging_1.MAX_PAGE_SIZE; } });
const search_registry_1 = require("../search-registry");
const define_1 = require("./define");
const schema_1 = require("./schema");
const resources_1 = require("./resources");
const tagSchema = (0, schema_1.named)("Tag", (0, schema_1.shape)({ _id: schema_1.str, name: schema_1.str, description: schema_1.str }));
/** The tags of one object after an attach or detach, expanded. */
const objectTagsSchema = (0, schema_1.shape)({ collection: schema_1.str, objectId: schema_1.str, tags: (0, schema_1.arrayOf)(tagSchema) });
exports.DEFAULT_PAGE_SIZE = 10;
/** Which object a tag operation acts on: any collection of the search registry. */
const tagTarget = {
    collection: {
        type: "enum",
        values: search_registry_1.SEARCHABLE_COLLECTIONS,
        description: "A searchable collection (docs/search.md)",
    },
    objectId: { type: "string", min: 1, max: 256, description: "The object's `_id`" },
    tagId: schema_1.objectId,
};
exports.search = (0, define_1.defineService)("search", {
    find: {
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
                        max: paging_1.MAX_PAGE_SIZE,
                        optional: true,
                        description: `Results per group and page, default ${exports.DEFAULT_PAGE_SIZE}`,
                    },
                },
            },
        },
        result: (0, schema_1.returns)((0, schema_1.arrayOf)(resources_1.searchResultGroupSchema)),
        http: {
            method: "POST",
            path: "/search/find",
            access: ["admin", "apiwrite"],
            spec: 12,
            summary: "Search every collection, and tags",
        },
    },
    createTag: {
        params: {
            name: { type: "string", trim: true, min: 1, max: 128 },
            description: { type: "string", max: 1024, optional: true },
        },
        result: (0, schema_1.returns)(tagSchema),
        http: { method: "POST", path: "/search/tags", access: define_1.SUPPORT_WRITE, summary: "Create a tag" },
    },
    listTags: {
        params: {},
        result: (0, schema_1.returns)((0, schema_1.arrayOf)(tagSchema)),
        http: { method: "GET", path: "/search/tags", access: define_1.SUPPORT_READ, summary: "List tags" },
    },
    deleteTag: {
        params: { id: schema_1.objectId },
        result: (0, schema_1.returns)(resources_1.messageSchema),
        http: {
            method: "DELETE",
            path: "/search/tags/:id",
            access: define_1.SUPPORT_WRITE,
            summary: "Delete a tag and detach it from every object",
        },
    },
    attachTag: {
        params: tagTarget,
        result: (0, schema_1.returns)(objectTagsSchema),
        http: {
            method: "POST",
            path: "/search/tags/attach",
            access: define_1.SUPPORT_WRITE,
            summary: "Attach a tag to an object of any searchable collection",
        },
    },
    detachTag: {
        params: tagTarget,
        result: (0, schema_1.returns)(objectTagsSchema),
        http: {
            method: "POST",
            path: "/search/tags/detach",
            access: define_1.SUPPORT_WRITE,
            summary: "Detach a tag from an object",
        },
    },
});
//# sourceMappingURL=search.js.map