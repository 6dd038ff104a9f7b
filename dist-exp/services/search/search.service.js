"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * search: cross-collection search (spec operation 12) and tags.
 *
 * The collections searched, their text fields, URLs and indexes come from one place,
 * shared/search-registry.ts; this service reads those collections directly from the shared store
 * (no copy, no cache: every replica answers from the store, so writes by any service or replica
 * show at once). Tags live in `tags`; objects carry tag `_id`s in their `tags` array.
 */
const search_1 = require("../../shared/contracts/search");
const service_1 = require("../../shared/service");
const handlers_1 = require("./handlers");
exports.default = (0, service_1.typedService)({
    name: search_1.search.name,
    mixins: [service_1.storeMixin],
    actions: (0, service_1.contractActions)(search_1.search, {
        find: handlers_1.find,
        createTag: handlers_1.createTag,
        listTags: handlers_1.listTags,
        deleteTag: handlers_1.deleteTag,
        attachTag: handlers_1.attachTag,
        detachTag: handlers_1.detachTag,
    }),
    async started() {
        await (0, handlers_1.ensureIndexes)(this);
    },
});
//# sourceMappingURL=search.service.js.map