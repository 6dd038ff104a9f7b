"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.checkFilter = checkFilter;
exports.checkSort = checkSort;
exports.checkFields = checkFields;
exports.searchPage = searchPage;
/**
 * A filter, sort and projection written by a client (the real product's search bodies,
 * `{options: {query, sort, fields}}`), checked before it reaches the store. Only comparison and
 * logical operators pass: no `$where`, `$expr`, `$function` or `$regex` (a client's pattern could
 * take the store's event loop hostage), no field path starting with `$`. The depth and size are
 * bounded by the gateway's input bounds already; this bounds the operators. A refused query is a
 * 400 naming the offending key.
 */
const errors_1 = require("./errors");
const objects_1 = require("./objects");
const paging_1 = require("./paging");
const LOGICAL = new Set(["$and", "$or", "$nor"]);
const COMPARISON = new Set([
    "$eq",
    "$ne",
    "$gt",
    "$gte",
    "$lt",
    "$lte",
    "$in",
    "$nin",
    "$exists",
    "$all",
    "$size",
    "$elemMatch",
    "$not",
]);
const MAX_SORT_KEYS = 5;
function isFieldPath(key) {
    return (key.length > 0 && key.length <= 200 && key.split(".").every((s) => s.length > 0 && !s.startsWith("$")));
}
function checkCondition(value, field) {
    if (!(0, objects_1.isPlainObject)(value))
        return;
    const keys = Object.keys(value);
    // `{a: {b: 1}}` is an equality on a sub-document; only an operator object needs checking.
    if (!keys.some((k) => k.startsWith("$")))
        return;
    for (const op of keys) {
        if (!COMPARISON.has(op))
            throw (0, errors_1.invalidField)(field, `Operator '${op}' is not allowed in a search query`);
        if (op === "$elemMatch")
            checkFilter(value[op], `${field}.$elemMatch`);
        else if (op === "$not")
            checkCondition(value[op], `${field}.$not`);
    }
}
/** Throws 400 unless `query` uses field paths and the allowed operators only. */
function checkFilter(query, field = "options.query") {
    if (query === undefined)
        return {};
    if (!(0, objects_1.isPlainObject)(query))
        throw (0, errors_1.invalidField)(field, "A search query must be an object");
    for (const [key, value] of Object.entries(query)) {
        if (LOGICAL.has(key)) {
            if (!Array.isArray(value) || value.length === 0)
                throw (0, errors_1.invalidField)(`${field}.${key}`, `'${key}' takes a non-empty array of queries`);
            value.forEach((q, i) => checkFilter(q, `${field}.${key}[${i}]`));
        }
        else if (isFieldPath(key))
            checkCondition(value, `${field}.${key}`);
        else
            throw (0, errors_1.invalidField)(`${field}.${key}`, `'${key}' is not a field path or an allowed operator`);
    }
    return query;
}
/** A client's `{field: 1 | -1}` sort, field paths only, at most five keys. */
function checkSort(sort, field = "options.sort") {
    if (!sort)
        return undefined;
    const keys = Object.keys(sort);
    if (keys.length > MAX_SORT_KEYS)
        throw (0, errors_1.invalidField)(field, `At most ${MAX_SORT_KEYS} sort keys`);
    for (const key of keys)
        if (!isFieldPath(key))
            throw (0, errors_1.invalidField)(`${field}.${key}`, "Not a field path");
    return keys.length === 0 ? undefined : sort;
}
/** A client's `{field: 1}` or `{field: 0}` projection: one kind only (`_id` may differ), field paths only. */
function checkFields(fields, field = "options.fields") {
    if (!fields || Object.keys(fields).length === 0)
        return undefined;
    const kinds = new Set();
    for (const [key, value] of Object.entries(fields)) {
        if (!isFieldPath(key))
            throw (0, errors_1.invalidField)(`${field}.${key}`, "Not a field path");
        if (key !== "_id")
            kinds.add(Boolean(value));
    }
    if (kinds.size > 1)
        throw (0, errors_1.invalidField)(field, "Fields must all be included (1) or all excluded (0)");
    return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v ? 1 : 0]));
}
/**
 * One page of a client's search over `collection`, `{results, total, limit, skip}`: its query,
 * sort and fields checked as above, within `scope` (what the caller may see) when there is one.
 * `_id` breaks ties in the client's sort (or `defaultSort`), so pages never overlap.
 */
async function searchPage(collection, options, defaultSort, scope) {
    const query = checkFilter(options.query);
    const filter = !scope ? query : Object.keys(query).length === 0 ? scope : { $and: [scope, query] };
    const sort = checkSort(options.sort) ?? defaultSort;
    const projection = checkFields(options.fields);
    const skip = options.skip ?? 0;
    const limit = (0, paging_1.pageLimit)(options.limit);
    const [results, total] = await Promise.all([
        collection.find(filter, {
            sort: { ...sort, _id: sort._id ?? 1 },
            skip,
            limit,
            ...(projection && { projection }),
        }),
        collection.count(filter),
    ]);
    return { results: results, total, limit, skip };
}
//# sourceMappingURL=client-filter.js.map