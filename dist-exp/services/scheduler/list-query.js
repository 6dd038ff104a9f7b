"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.readListQuery = readListQuery;
/**
 * The real product's list query on automations and triggers, as a store filter: a value and the
 * field it applies to (`equals=endpoint&equalsField=type`, `contains`, `startsWith`), `sort` and
 * `order`, `skip` and `limit`. Fields are a closed list per collection, mapped to where the value is
 * stored, so a query never reaches a member the answer does not show.
 */
const errors_1 = require("../../shared/errors");
const paging_1 = require("../../shared/paging");
const escapeRegex = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** One operator's condition: both members or neither (400 naming the missing one). */
function condition(query, op, stored) {
    const value = query[op];
    const field = query[`${op}Field`];
    if (value === undefined && field === undefined)
        return {};
    if (value === undefined)
        throw (0, errors_1.invalidField)(op, `'${op}Field' needs a value in '${op}'`, "required");
    if (field === undefined)
        throw (0, errors_1.invalidField)(`${op}Field`, `'${op}' needs the field it applies to in '${op}Field'`, "required");
    const where = stored(field);
    if (op === "equals")
        return { [where]: value };
    const pattern = op === "contains" ? escapeRegex(value) : `^${escapeRegex(value)}`;
    return { [where]: { $regex: pattern, $options: "i" } };
}
/** The filter, sort and page of a list query; `stored` maps an answer's field to the stored one. */
function readListQuery(query, stored = (f) => f) {
    const parts = ["equals", "contains", "startsWith"]
        .map((op) => condition(query, op, stored))
        .filter((c) => Object.keys(c).length > 0);
    const filter = parts.length === 0 ? {} : parts.length === 1 ? parts[0] : { $and: parts };
    const sortField = stored(query.sort ?? "name");
    const sort = { [sortField]: query.order ?? 1, ...(sortField === "_id" ? {} : { _id: 1 }) };
    return { filter, sort, skip: query.skip ?? 0, limit: (0, paging_1.pageLimit)(query.limit) };
}
//# sourceMappingURL=list-query.js.map