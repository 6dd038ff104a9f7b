/** search: cross-collection search and tags (spec operation 12). */
import { defineService, SUPPORT_READ, SUPPORT_WRITE } from "./define";
import { returns } from "./schema";
import type { SearchResultGroup } from "./resources";

export const search = defineService("search", {
  find: {
    params: {
      data: {
        type: "object",
        strict: "remove",
        props: {
          text: { type: "string", max: 1024 },
          pageNumber: {
            type: "number",
            integer: true,
            min: 0,
            optional: true,
            description: "Page index, from 0",
          },
          nPerPage: { type: "number", integer: true, min: 1, max: 1000, optional: true },
        },
      },
    },
    result: returns<SearchResultGroup[]>(),
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
      name: { type: "string", min: 1, max: 128 },
      description: { type: "string", max: 1024, optional: true },
    },
    result: returns<{ _id: string; name: string; description: string }>(),
    http: { method: "POST", path: "/search/tags", access: SUPPORT_WRITE, summary: "Create a tag" },
  },
  listTags: {
    params: {},
    result: returns<{ _id: string; name: string; description: string }[]>(),
    http: { method: "GET", path: "/search/tags", access: SUPPORT_READ, summary: "List tags" },
  },
});
