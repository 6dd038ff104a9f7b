"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.searchWorkflows = searchWorkflows;
exports.studioWorkflows = studioWorkflows;
const contracts_1 = require("../../../shared/contracts");
const objects_1 = require("../../../shared/objects");
const client_filter_1 = require("../../../shared/client-filter");
const paging_1 = require("../../../shared/paging");
const text_1 = require("../../../shared/text");
const collections_1 = require("../collections");
async function searchWorkflows(ctx) {
    return (0, client_filter_1.searchPage)(this.store.collection(collections_1.WORKFLOWS), ctx.params.options ?? {}, { name: 1 });
}
async function studioWorkflows(ctx) {
    const p = ctx.params.options ?? {};
    const clauses = [];
    if (p.equals?.name !== undefined)
        clauses.push({ name: p.equals.name });
    if (p.equals?._id !== undefined)
        clauses.push({ _id: p.equals._id });
    if (p.contains?.name !== undefined)
        clauses.push({ name: { $regex: (0, text_1.escapeRegex)(p.contains.name), $options: "i" } });
    if (p["starts-with"]?.name !== undefined)
        clauses.push({ name: { $regex: `^${(0, text_1.escapeRegex)(p["starts-with"].name)}`, $options: "i" } });
    const filter = clauses.length === 0 ? {} : clauses.length === 1 ? clauses[0] : { $and: clauses };
    const skip = p.skip ?? 0;
    const limit = (0, paging_1.pageLimit)(p.limit);
    const workflows = this.store.collection(collections_1.WORKFLOWS);
    const [found, total] = await Promise.all([
        workflows.find(filter, { sort: { [p.sort ?? "name"]: p.order ?? 1, _id: 1 }, skip, limit }),
        workflows.count(filter),
    ]);
    const expanded = await expandAccounts(ctx, found, listOf(p.expand));
    const items = expanded.map((w) => shape(w, listOf(p.include), listOf(p.exclude)));
    return { items: items, total, skip, limit };
}
const EXPANDABLE = new Set(["created_by", "last_updated_by"]);
const listOf = (text) => (text ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
/**
 * `expand=created_by,last_updated_by`: the username becomes the account it names (as the accounts
 * list answers it: never a credential), through the accounts service. An account that no longer
 * exists leaves the name as it is.
 */
async function expandAccounts(ctx, items, fields) {
    const wanted = fields.filter((f) => EXPANDABLE.has(f));
    if (wanted.length === 0 || items.length === 0)
        return items;
    const names = [
        ...new Set(items.flatMap((w) => wanted.map((f) => w[f]).filter((v) => typeof v === "string"))),
    ];
    const accounts = new Map();
    for (const username of names) {
        const page = await (0, contracts_1.call)(ctx, "accounts.list", {
            queryOptions: { equals: username, equalsField: "username" },
        });
        if (page.results[0])
            accounts.set(username, page.results[0]);
    }
    return items.map((w) => ({
        ...w,
        ...Object.fromEntries(wanted.filter((f) => accounts.has(w[f])).map((f) => [f, structuredClone(accounts.get(w[f]))])),
    }));
}
/** `include` keeps the named top-level members (and `_id`); `exclude` drops dotted paths. */
function shape(doc, include, exclude) {
    const out = include.length === 0 ? structuredClone(doc) : {};
    if (include.length > 0) {
        for (const key of ["_id", ...include.map((p) => p.split(".")[0])])
            if (key in doc)
                out[key] = structuredClone(doc[key]);
    }
    for (const path of exclude) {
        const parts = path.split(".");
        let at = out;
        for (const part of parts.slice(0, -1))
            at = (0, objects_1.isPlainObject)(at?.[part]) ? at[part] : undefined;
        if (at)
            delete at[parts[parts.length - 1]];
    }
    return out;
}
//# sourceMappingURL=search.js.map