"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.READ_ALL_UP_TO = void 0;
exports.findEverywhere = findEverywhere;
exports.textFilter = textFilter;
exports.tagsById = tagsById;
exports.expandTags = expandTags;
/**
 * Operation 12: one result group per searchable collection with matches, straight from the store.
 *
 * Why no in-memory index: other services (and other replicas of this one) write these collections
 * directly, and the store offers no change feed or version to tell a cache it is stale, so every
 * search asks the store. The cost is one scan per collection; docs/search.md has the figures.
 */
const search_1 = require("../../shared/contracts/search");
const search_registry_1 = require("../../shared/search-registry");
const text_1 = require("../../shared/text");
/**
 * How many matches of a collection are read (as `_id` and name) to be counted, sorted and paged
 * here. With the embedded store in this process, all of them: reading them is one scan, and cheaper
 * than the store counting (one scan) and sorting (another). Over the bus or from MongoDB, up to this
 * many (a bounded answer: a NATS message has a size limit); beyond it the store counts and pages.
 */
exports.READ_ALL_UP_TO = 1000;
async function findEverywhere(store, input) {
    const text = input.text.trim();
    const limit = input.nPerPage ?? search_1.DEFAULT_PAGE_SIZE;
    // Pages count from 1, as people count them; 0 is the first page too (clients that count from 0).
    const skip = Math.max(0, (input.pageNumber ?? 1) - 1) * limit;
    // The text is data: escaped, so `.*(` or `$where` match only themselves.
    const regex = text === "" ? undefined : { $regex: (0, text_1.escapeRegex)(text), $options: "i" };
    const tagIds = regex ? await matchingTagIds(store, regex) : [];
    const matches = await Promise.all(search_registry_1.SEARCHABLES.map(async (entry) => ({
        entry,
        ...(await searchCollection(store, entry, textFilter(entry, regex, tagIds), skip, limit)),
    })));
    const found = matches.filter((m) => m.count > 0);
    const tags = await tagsById(store, found.flatMap((m) => m.page.flatMap(tagIdsOf)));
    return found.map((m) => toGroup(m, tags));
}
/** `_id`s of the tags whose name matches. */
async function matchingTagIds(store, regex) {
    const tags = await store.collection("tags").find({ name: regex }, { projection: { _id: 1 } });
    return tags.map((t) => t._id);
}
/** No text: everything. Otherwise any text field matches, or any tag whose name matches. */
function textFilter(entry, regex, tagIds) {
    if (!regex)
        return {};
    const clauses = entry.textFields.map((field) => ({ [field]: regex }));
    // Only when some tag matched: an empty `$in` branch would still cost a test per document.
    if (tagIds.length > 0)
        clauses.push({ tags: { $in: tagIds } });
    return clauses.length === 1 ? clauses[0] : { $or: clauses };
}
async function searchCollection(store, entry, filter, skip, limit) {
    const collection = store.collection(entry.collection);
    const projection = { _id: 1, [entry.nameField]: 1, [entry.descriptionField]: 1, tags: 1 };
    // No filter (empty text): the store counts without a scan, and reading everything would be a copy.
    const cap = store.backend === "embedded" && Object.keys(filter).length > 0 ? Infinity : exports.READ_ALL_UP_TO;
    // Unsorted with a limit, the scan stops at the first cap + 1 matches.
    const head = await collection.find(filter, {
        projection: { _id: 1, [entry.nameField]: 1 },
        ...(cap !== Infinity && { limit: cap + 1 }),
    });
    if (head.length <= cap) {
        const ids = head
            .sort(byName(entry.nameField))
            .slice(skip, skip + limit)
            .map((d) => d._id);
        if (ids.length === 0)
            return { count: head.length, page: [] };
        // By `_id`: a direct lookup, no scan. One deleted meanwhile is simply left out.
        const docs = new Map((await collection.find({ _id: { $in: ids } }, { projection })).map((d) => [d._id, d]));
        return { count: head.length, page: ids.flatMap((id) => docs.get(id) ?? []) };
    }
    const [page, count] = await Promise.all([
        collection.find(filter, { projection, sort: { [entry.nameField]: 1, _id: 1 }, skip, limit }),
        collection.count(filter),
    ]);
    return { count, page };
}
/**
 * The store's order for `{[nameField]: 1, _id: 1}`: a missing name first, then numbers, then strings
 * by code unit, then anything else; `_id` breaks ties, so pages never overlap or skip.
 */
function byName(nameField) {
    const rank = (v) => v === undefined || v === null ? 0 : typeof v === "number" ? 1 : typeof v === "string" ? 2 : 3;
    return (a, b) => {
        const x = a[nameField];
        const y = b[nameField];
        const byRank = rank(x) - rank(y);
        if (byRank !== 0)
            return byRank;
        if ((rank(x) === 1 || rank(x) === 2) && x !== y)
            return x < y ? -1 : 1;
        return a._id < b._id ? -1 : a._id > b._id ? 1 : 0;
    };
}
function tagIdsOf(doc) {
    return Array.isArray(doc.tags) ? doc.tags.filter((t) => typeof t === "string") : [];
}
/** The named tags, by `_id`; ids of tags that no longer exist are simply absent. */
async function tagsById(store, ids) {
    const unique = [...new Set(ids)];
    if (unique.length === 0)
        return new Map();
    const tags = await store
        .collection("tags")
        .find({ _id: { $in: unique } }, { projection: { _id: 1, name: 1, description: 1 } });
    return new Map(tags.map((t) => [t._id, { _id: t._id, name: t.name, description: t.description ?? "" }]));
}
/** An object's tags in its own order, expanded; unknown ids left out. */
function expandTags(ids, tags) {
    return [...new Set(ids)].flatMap((id) => {
        const tag = tags.get(id);
        return tag ? [tag] : [];
    });
}
/** A stored value as result text: strings as they are, numbers and booleans written out, else "". */
const asText = (value) => typeof value === "string"
    ? value
    : typeof value === "number" || typeof value === "boolean"
        ? String(value)
        : "";
function toGroup({ entry, count, page }, tags) {
    return {
        label: entry.label,
        type: entry.type,
        results: page.map((doc) => {
            const name = asText(doc[entry.nameField]);
            return {
                _id: doc._id,
                name,
                description: asText(doc[entry.descriptionField]),
                url: entry.url({ _id: doc._id, name }),
                tags: expandTags(tagIdsOf(doc), tags),
            };
        }),
        count,
    };
}
//# sourceMappingURL=find.js.map