"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.OPERATORS = void 0;
exports.compare = compare;
exports.evaluation = evaluation;
/**
 * `evaluation`: compares operands and finishes `success` when the comparison holds, `failure`
 * otherwise, so the workflow branches on it.
 *
 * Incoming: either one comparison (`operand_1`, `operator`, `operand_2`) or `evaluations`, a list
 * of them, combined with `all_true_flag` (true, the default: all must hold; false: any).
 * Outgoing: `return_value` (boolean).
 *
 * Operators: `==` `!=` (deep equality), `<` `<=` `>` `>=` (numbers with numbers, text with text),
 * `contains` `!contains` (text in text, an element in a list, a key in an object), `startsWith`,
 * `endsWith`, `in` `!in` (operand_1 in the list operand_2), `exists` `!exists` (operand_1 is set).
 */
const types_1 = require("./types");
exports.OPERATORS = [
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "contains",
    "!contains",
    "startsWith",
    "endsWith",
    "in",
    "!in",
    "exists",
    "!exists",
];
/** JSON values equal as values: objects by their members whatever their order, lists item by item. */
function deepEqual(a, b) {
    if (a === b)
        return true;
    if (Array.isArray(a))
        return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
    if ((0, types_1.isPlainObject)(a) && (0, types_1.isPlainObject)(b)) {
        const keys = Object.keys(a);
        return (keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k])));
    }
    return false;
}
function ordered(a, b, op) {
    if (typeof a === "number" && typeof b === "number")
        return [a, b];
    if (typeof a === "string" && typeof b === "string")
        return [a, b];
    throw new types_1.OperationError(`'${op}' compares two numbers or two strings, got ${typeName(a)} and ${typeName(b)}`);
}
const typeName = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
function contains(container, item) {
    if (typeof container === "string")
        return typeof item === "string" && container.includes(item);
    if (Array.isArray(container))
        return container.some((el) => deepEqual(el, item));
    if ((0, types_1.isPlainObject)(container))
        return typeof item === "string" && Object.hasOwn(container, item);
    throw new types_1.OperationError(`'contains' needs a string, list or object as operand_1, got ${typeName(container)}`);
}
function compare(a, operator, b) {
    switch (operator) {
        case "==":
            return deepEqual(a, b);
        case "!=":
            return !deepEqual(a, b);
        case "<": {
            const [x, y] = ordered(a, b, operator);
            return x < y;
        }
        case "<=": {
            const [x, y] = ordered(a, b, operator);
            return x <= y;
        }
        case ">": {
            const [x, y] = ordered(a, b, operator);
            return x > y;
        }
        case ">=": {
            const [x, y] = ordered(a, b, operator);
            return x >= y;
        }
        case "contains":
            return contains(a, b);
        case "!contains":
            return !contains(a, b);
        case "startsWith":
            return typeof a === "string" && typeof b === "string" && a.startsWith(b);
        case "endsWith":
            return typeof a === "string" && typeof b === "string" && a.endsWith(b);
        case "in":
        case "!in": {
            if (!Array.isArray(b))
                throw new types_1.OperationError(`'${operator}' needs a list as operand_2, got ${typeName(b)}`);
            const found = b.some((el) => deepEqual(el, a));
            return operator === "in" ? found : !found;
        }
        case "exists":
            return a !== undefined && a !== null;
        case "!exists":
            return a === undefined || a === null;
    }
}
function check(c, where) {
    if (typeof c.operator !== "string" || !exports.OPERATORS.includes(c.operator)) {
        throw new types_1.OperationError(`${where}: operator must be one of ${exports.OPERATORS.join(" ")}`, [
            { field: `${where}.operator`, message: `Unknown operator ${JSON.stringify(c.operator)}` },
        ]);
    }
    // A reference to nothing is left out of the incoming values: for every operator but the
    // existence checks, a missing operand is bad input, not a comparison that quietly holds or fails.
    if (c.operator !== "exists" && c.operator !== "!exists") {
        const missing = ["operand_1", "operand_2"].filter((k) => c[k] === undefined);
        if (missing.length > 0)
            throw new types_1.OperationError(`${where}: '${c.operator}' needs operand_1 and operand_2`, missing.map((k) => ({ field: `${where}.${k}`, message: `${k} is missing` })));
    }
    return compare(c.operand_1, c.operator, c.operand_2);
}
function evaluation(incoming) {
    let holds;
    if (incoming.evaluations !== undefined) {
        const list = incoming.evaluations;
        if (!Array.isArray(list) || list.length === 0 || !list.every(types_1.isPlainObject))
            throw new types_1.OperationError("'evaluations' must be a non-empty list of {operand_1, operator, operand_2}");
        const results = list.map((c, i) => check(c, `evaluations.${i}`));
        holds = incoming.all_true_flag === false ? results.some(Boolean) : results.every(Boolean);
    }
    else {
        holds = check(incoming, "evaluation");
    }
    return { state: holds ? "success" : "failure", outgoing: { return_value: holds } };
}
//# sourceMappingURL=evaluation.js.map