"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.normalizePath = normalizePath;
exports.query = query;
/**
 * `query`: reads one value out of an object by a path (`interfaces.0.name`, or with brackets
 * `interfaces[0].name`).
 *
 * Incoming: `obj` (the object or list), `query` (the path), `pass_on_null` (boolean, default false).
 * Outgoing: `return_data`. Nothing at the path: finish state `failure`, unless `pass_on_null`,
 * then `success` with `return_data` null.
 */
const variables_1 = require("../run/variables");
const types_1 = require("./types");
/** `a[0].b` and `a.0.b` are the same path. */
function normalizePath(query) {
    return query.replace(/\[(\d+)\]/g, ".$1").replace(/^\./, "");
}
function query(incoming) {
    const path = incoming.query;
    if (typeof path !== "string")
        throw new types_1.OperationError("'query' must be a path such as 'a.b[0].c'");
    const value = path.trim() === "" ? incoming.obj : (0, variables_1.atPath)(incoming.obj, normalizePath(path.trim()));
    if (value === undefined || value === null) {
        return { state: incoming.pass_on_null === true ? "success" : "failure", outgoing: { return_data: null } };
    }
    return { state: "success", outgoing: { return_data: value } };
}
//# sourceMappingURL=query.js.map