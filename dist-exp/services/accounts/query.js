"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.fieldQuery = fieldQuery;
exports.accountQuery = accountQuery;
const text_1 = require("../../shared/text");
const paging_1 = require("../../shared/paging");
function fieldQuery(options, defaultField) {
    const clauses = [];
    if (options.contains !== undefined)
        clauses.push({
            [options.containsField ?? defaultField]: { $regex: (0, text_1.escapeRegex)(options.contains), $options: "i" },
        });
    if (options.startsWith !== undefined)
        clauses.push({
            [options.startsWithField ?? defaultField]: {
                $regex: `^${(0, text_1.escapeRegex)(options.startsWith)}`,
                $options: "i",
            },
        });
    if (options.equals !== undefined)
        clauses.push({ [options.equalsField ?? defaultField]: options.equals });
    const filter = clauses.length === 0 ? {} : clauses.length === 1 ? clauses[0] : { $and: clauses };
    return {
        filter,
        // _id breaks ties so pages never overlap or skip.
        sort: { [options.sort ?? defaultField]: options.order ?? 1, _id: 1 },
        skip: options.skip ?? 0,
        limit: (0, paging_1.pageLimit)(options.limit),
    };
}
function accountQuery(options = {}) {
    const { groupId, ...rest } = options ?? {};
    const query = fieldQuery(rest, "username");
    if (groupId === undefined)
        return query;
    const member = { "memberOf.groupId": groupId };
    const clauses = Object.keys(query.filter).length === 0 ? [] : "$and" in query.filter ? query.filter.$and : [query.filter];
    return { ...query, filter: clauses.length === 0 ? member : { $and: [...clauses, member] } };
}
//# sourceMappingURL=query.js.map