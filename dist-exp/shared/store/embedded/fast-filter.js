"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.pathValues = pathValues;
exports.compileFilter = compileFilter;
const objects_1 = require("../../objects");
/** The values a dotted path reaches, MongoDB style: arrays on the way and at the end are entered. */
function pathValues(value, parts, out = []) {
    if (parts.length === 0) {
        if (Array.isArray(value))
            out.push(...value);
        else if (value !== undefined)
            out.push(value);
        return out;
    }
    const [part, ...rest] = parts;
    if (Array.isArray(value)) {
        if (/^\d+$/.test(part))
            pathValues(value[Number(part)], rest, out);
        for (const el of value)
            if (el && typeof el === "object" && !Array.isArray(el))
                pathValues(el, parts, out);
    }
    else if (value !== null && typeof value === "object") {
        pathValues(value[part], rest, out);
    }
    return out;
}
const isScalar = (v) => typeof v === "string" || typeof v === "number" || typeof v === "boolean";
const RANGE = {
    $gt: (a, b) => a > b,
    $gte: (a, b) => a >= b,
    $lt: (a, b) => a < b,
    $lte: (a, b) => a <= b,
};
/**
 * One test per operator of a field's condition; undefined when the condition is not one we compile.
 * MongoDB lets different elements of an array satisfy different operators ({$gt: 5, $lt: 2} matches
 * [0, 10]), so the caller asks each test of any reached value, not all tests of one value.
 */
function valueTests(condition) {
    if (isScalar(condition))
        return [(v) => v === condition];
    if (!(0, objects_1.isPlainObject)(condition))
        return undefined;
    const tests = [];
    for (const [op, operand] of Object.entries(condition)) {
        if (op === "$options")
            continue;
        if (op === "$eq" && isScalar(operand))
            tests.push((v) => v === operand);
        else if (op === "$in" && Array.isArray(operand) && operand.every(isScalar)) {
            const set = new Set(operand);
            tests.push((v) => set.has(v));
        }
        else if (op === "$regex" && typeof operand === "string") {
            const options = condition.$options;
            if (options !== undefined && (typeof options !== "string" || /[^imsx]/.test(options)))
                return undefined;
            if (options?.includes("x"))
                return undefined;
            const re = new RegExp(operand, options ?? "");
            tests.push((v) => typeof v === "string" && re.test(v));
        }
        else if (op in RANGE && (typeof operand === "number" || typeof operand === "string")) {
            const compare = RANGE[op];
            // MongoDB compares within a type: numbers with numbers, strings with strings.
            tests.push((v) => typeof v === typeof operand && compare(v, operand));
        }
        else
            return undefined;
    }
    return tests.length === 0 ? undefined : tests;
}
/** A predicate equal to the filter's MongoDB meaning, or undefined when the filter needs mingo. */
function compileFilter(filter) {
    const clauses = [];
    for (const [key, condition] of Object.entries(filter)) {
        if (key === "$and" || key === "$or") {
            if (!Array.isArray(condition) || condition.length === 0)
                return undefined;
            const parts = condition.map((c) => ((0, objects_1.isPlainObject)(c) ? compileFilter(c) : undefined));
            if (parts.some((p) => p === undefined))
                return undefined;
            const preds = parts;
            clauses.push(key === "$and" ? (d) => preds.every((p) => p(d)) : (d) => preds.some((p) => p(d)));
        }
        else if (key.startsWith("$")) {
            return undefined;
        }
        else {
            const tests = valueTests(condition);
            if (!tests)
                return undefined;
            const path = key.split(".");
            // Ranges and regexes never match a missing field; neither does equality to a scalar.
            clauses.push((d) => {
                const values = pathValues(d, path);
                return tests.every((test) => values.some(test));
            });
        }
    }
    return (d) => clauses.every((c) => c(d));
}
//# sourceMappingURL=fast-filter.js.map