"use strict";
/**
 * preserveFormData (spec operation 7): form data that went through a query string or a UI
 * serializer comes back with its containers changed. The stored form is the reference for what
 * each container was; this walks the data and the reference side by side and turns every changed
 * container back. docs/catalog.md states the rules; they are, exactly:
 *
 *  reference is an array, data is an object whose keys are all array indices ("0", "1", "10";
 *    no sign, no leading zero) -> an array of its values in ascending numeric index order (gaps
 *    closed). `{}` is the empty array.
 *  reference is an object, data is an array whose items are all `[key, value]` pairs with string
 *    keys, each key once -> the object of those entries (`Object.fromEntries`). `[]` is `{}`.
 *  anything else is left as it is: only these mutations are known, and a value the reference does
 *    not describe (a member it lacks, an array item past its length, a scalar) has nothing to be
 *    restored to.
 * Restoring goes top down: a container is restored first, then its members are compared with the
 * reference's members (array items by index, object members by key).
 */
Object.defineProperty(exports, "__esModule", { value: true });
exports.MAX_FORM_DEPTH = void 0;
exports.restoreContainers = restoreContainers;
exports.depthOf = depthOf;
const objects_1 = require("../../shared/objects");
const INDEX = /^(0|[1-9]\d{0,14})$/;
/** An object a serializer made from an array: every key an array index. */
function asIndexedArray(value) {
    const keys = Object.keys(value);
    if (!keys.every((k) => INDEX.test(k)))
        return undefined;
    return keys.sort((a, b) => Number(a) - Number(b)).map((k) => value[k]);
}
/** An array a serializer made from an object: `[key, value]` pairs, each key once. */
function asEntries(value) {
    const seen = new Set();
    for (const item of value) {
        if (!Array.isArray(item) || item.length !== 2 || typeof item[0] !== "string" || seen.has(item[0]))
            return undefined;
        seen.add(item[0]);
    }
    // fromEntries defines own properties, so a "__proto__" key stays data.
    return Object.fromEntries(value);
}
/** Deeper than this, the data is left as it is (the reference is never this deep in practice). */
const MAX_DEPTH = 64;
function restoreContainers(reference, data, depth = 0) {
    if (depth > MAX_DEPTH)
        return data;
    if (Array.isArray(reference)) {
        const items = Array.isArray(data) ? data : (0, objects_1.isPlainObject)(data) ? asIndexedArray(data) : undefined;
        if (!items)
            return data;
        return items.map((item, i) => i < reference.length ? restoreContainers(reference[i], item, depth + 1) : item);
    }
    if ((0, objects_1.isPlainObject)(reference)) {
        const members = (0, objects_1.isPlainObject)(data) ? data : Array.isArray(data) ? asEntries(data) : undefined;
        if (!members)
            return data;
        return Object.fromEntries(Object.entries(members).map(([key, value]) => [
            key,
            Object.prototype.hasOwnProperty.call(reference, key)
                ? restoreContainers(reference[key], value, depth + 1)
                : value,
        ]));
    }
    return data;
}
/** The nesting depth of a JSON value (a scalar is 0): forms deeper than a limit are refused. */
function depthOf(value) {
    let max = 0;
    const stack = [[value, 0]];
    while (stack.length > 0) {
        const [v, d] = stack.pop();
        if (typeof v !== "object" || v === null)
            continue;
        if (d + 1 > max)
            max = d + 1;
        for (const child of Object.values(v))
            stack.push([child, d + 1]);
    }
    return max;
}
exports.MAX_FORM_DEPTH = 32;
//# sourceMappingURL=preserve.js.map