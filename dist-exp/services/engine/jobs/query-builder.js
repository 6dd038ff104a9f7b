"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.DEREFERENCEABLE = void 0;
exports.jobStoreQuery = jobStoreQuery;
const errors_1 = require("../../../shared/errors");
const text_1 = require("../../../shared/text");
const query_fields_1 = require("./query-fields");
const paging_1 = require("../../../shared/paging");
/** Reference fields `dereference` can expand (./handlers.ts does the expanding). */
exports.DEREFERENCEABLE = ["workflow", "groups"];
const P = "queryParameters";
const RANGE_OPS = ["gt", "gte", "lt", "lte"];
const TEXT_PATTERNS = {
    contains: (t) => t,
    "starts-with": (t) => `^${t}`,
    "ends-with": (t) => `${t}$`,
};
function commaList(text) {
    return text
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "");
}
function equalsClause(path, value, field) {
    const kind = (0, query_fields_1.kindOf)(path);
    if (kind === "any") {
        const values = (0, query_fields_1.alternatives)(value);
        return { [path]: values.length === 1 ? values[0] : { $in: values } };
    }
    return { [path]: (0, query_fields_1.coerceTo)(kind, value, field) };
}
function listClause(op, path, raw, field) {
    const items = typeof raw === "string" ? commaList(raw) : raw;
    const kind = (0, query_fields_1.kindOf)(path);
    const values = kind === "any" ? items.flatMap((v) => (0, query_fields_1.alternatives)(v)) : items.map((v) => (0, query_fields_1.coerceTo)(kind, v, field));
    return { [path]: { [op]: [...new Set(values)] } };
}
function textClause(op, path, value, field) {
    const kind = (0, query_fields_1.kindOf)(path);
    if (kind === "number")
        throw (0, errors_1.invalidField)(field, `'${op}' matches text; '${path}' is a number field (use gt/gte/lt/lte or equals)`, "text");
    return { [path]: { $regex: TEXT_PATTERNS[op]((0, text_1.escapeRegex)(String(value))), $options: "i" } };
}
function rangeClause(op, path, value, field) {
    const kind = (0, query_fields_1.kindOf)(path);
    const coerced = kind === "any" ? (0, query_fields_1.rangeValue)(value) : (0, query_fields_1.coerceTo)(kind, value, field);
    return { [path]: { [`$${op}`]: coerced } };
}
/** `include`/`exclude` text as a projection; a path under another listed path is dropped (MongoDB refuses the pair). */
function projectionOf(params) {
    const include = params.include !== undefined ? commaList(params.include) : [];
    const exclude = params.exclude !== undefined ? commaList(params.exclude) : [];
    include.forEach((p) => (0, query_fields_1.checkPath)(p, `${P}.include`));
    exclude.forEach((p) => (0, query_fields_1.checkPath)(p, `${P}.exclude`));
    if (include.length > 0 && exclude.some((p) => p !== "_id")) {
        throw (0, errors_1.invalidField)(`${P}.exclude`, "include and exclude cannot be combined (except exclude=_id): list the fields you want in include", "projection");
    }
    const listed = include.length > 0 ? include : exclude;
    if (listed.length === 0)
        return undefined;
    const kept = [...new Set(listed)].filter((p) => !listed.some((q) => q !== p && p.startsWith(`${q}.`)));
    const projection = Object.fromEntries(kept.map((p) => [p, include.length > 0 ? 1 : 0]));
    if (include.length > 0 && exclude.includes("_id"))
        projection._id = 0;
    return projection;
}
function dereferenceOf(text) {
    if (text === undefined)
        return [];
    const names = commaList(text);
    const unknown = names.filter((n) => !exports.DEREFERENCEABLE.includes(n));
    if (unknown.length > 0)
        throw (0, errors_1.invalidField)(`${P}.dereference`, `Cannot dereference ${unknown.map((u) => `'${u}'`).join(", ")}: expandable fields are ${exports.DEREFERENCEABLE.join(", ")}`, "dereference");
    return [...new Set(names)];
}
/** The store query of a job query; `scope` (group-based access) is AND-ed with the caller's filters. */
function jobStoreQuery(params = {}, scope) {
    const clauses = scope ? [scope] : [];
    const each = (op, map, build) => {
        for (const [path, value] of Object.entries(map ?? {})) {
            const field = `${P}.${op}.${path}`;
            clauses.push(build((0, query_fields_1.checkPath)(path, field), value, field));
        }
    };
    each("equals", params.equals, (path, v, field) => equalsClause(path, v, field));
    for (const op of ["contains", "starts-with", "ends-with"])
        each(op, params[op], (path, v, field) => textClause(op, path, v, field));
    for (const op of RANGE_OPS)
        each(op, params[op], (path, v, field) => rangeClause(op, path, v, field));
    each("in", params.in, (path, v, field) => listClause("$in", path, v, field));
    each("not-in", params["not-in"], (path, v, field) => listClause("$nin", path, v, field));
    if (params.q !== undefined && params.q.trim() !== "") {
        const text = { $regex: (0, text_1.escapeRegex)(params.q.trim()), $options: "i" };
        clauses.push({ $or: [{ name: text }, { description: text }] });
    }
    const hints = [];
    const requested = params.limit ?? paging_1.DEFAULT_PAGE_SIZE;
    const limit = Math.min(requested, paging_1.MAX_PAGE_SIZE);
    if (requested > paging_1.MAX_PAGE_SIZE)
        hints.push(`limit ${requested} is over the largest page: capped at ${paging_1.MAX_PAGE_SIZE}`);
    // Without a sort, newest jobs first. _id breaks ties in the same direction, so pages never overlap.
    const sortPath = params.sort !== undefined ? (0, query_fields_1.checkPath)(params.sort, `${P}.sort`) : undefined;
    const order = params.order ?? (sortPath ? 1 : -1);
    const sort = sortPath
        ? { [sortPath]: order, ...(sortPath !== "_id" && { _id: order }) }
        : { "metrics.start_time": order, _id: order };
    return {
        filter: clauses.length === 0 ? {} : clauses.length === 1 ? clauses[0] : { $and: clauses },
        sort,
        skip: params.skip ?? 0,
        limit,
        projection: projectionOf(params),
        dereference: dereferenceOf(params.dereference),
        hints,
    };
}
//# sourceMappingURL=query-builder.js.map