"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.inMemorySearch = inMemorySearch;
/**
 * The baseline: the same search as a plain in-memory filter over the same objects, in this process
 * (Array.filter with the same case-insensitive literal match on name, description and tag names,
 * then the same sort and page). No HTTP, no bus, no store: the floor any store-backed search is
 * compared with.
 */
const search_registry_1 = require("../../shared/search-registry");
const text_1 = require("../../shared/text");
function inMemorySearch(catalog, tags, rawText, pageNumber = 0, nPerPage = 10) {
    const text = rawText.trim();
    const re = text === "" ? undefined : new RegExp((0, text_1.escapeRegex)(text), "i");
    const tagHits = new Set(re ? tags.filter((t) => re.test(t.name)).map((t) => t._id) : []);
    const out = [];
    for (const entry of search_registry_1.SEARCHABLES) {
        const objects = catalog[entry.collection] ?? [];
        const name = (o) => String(o[entry.nameField] ?? "");
        const matches = re
            ? objects.filter((o) => re.test(name(o)) ||
                re.test(String(o[entry.descriptionField] ?? "")) ||
                o.tags.some((id) => tagHits.has(id)))
            : objects;
        if (matches.length === 0)
            continue;
        const page = [...matches]
            .sort((a, b) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : a._id < b._id ? -1 : 1))
            .slice(pageNumber * nPerPage, (pageNumber + 1) * nPerPage);
        out.push({ type: entry.type, count: matches.length, names: page.map(name) });
    }
    return out;
}
//# sourceMappingURL=baseline.js.map