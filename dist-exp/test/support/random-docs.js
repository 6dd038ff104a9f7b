"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.int = exports.pick = void 0;
exports.seeded = seeded;
exports.randomValue = randomValue;
exports.randomObject = randomObject;
exports.randomDoc = randomDoc;
exports.randomPath = randomPath;
exports.randomUpdate = randomUpdate;
exports.randomFilter = randomFilter;
exports.randomSort = randomSort;
exports.deepFreeze = deepFreeze;
/** mulberry32: small, fast, good enough for test cases. */
function seeded(seed) {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}
const pick = (r, items) => items[Math.floor(r() * items.length)];
exports.pick = pick;
const int = (r, lo, hi) => lo + Math.floor(r() * (hi - lo + 1));
exports.int = int;
const KEYS = ["a", "b", "c", "n", "arr", "o"];
function randomValue(r, depth = 0) {
    const kind = (0, exports.int)(r, 0, depth >= 3 ? 5 : 8);
    switch (kind) {
        case 0:
            return (0, exports.int)(r, -3, 3);
        case 1:
            return (0, exports.int)(r, -3, 3) + 0.5;
        case 2:
            return (0, exports.pick)(r, ["x", "y", "z", "10"]);
        case 3:
            return null;
        case 4:
            return r() < 0.5;
        case 5:
            return (0, exports.int)(r, 0, 9);
        case 6:
        case 7:
            return Array.from({ length: (0, exports.int)(r, 0, 3) }, () => randomValue(r, depth + 1));
        default:
            return randomObject(r, depth + 1);
    }
}
function randomObject(r, depth = 0) {
    const out = {};
    for (let i = (0, exports.int)(r, 0, 4); i > 0; i--)
        out[(0, exports.pick)(r, KEYS)] = randomValue(r, depth);
    return out;
}
function randomDoc(r, id) {
    return { _id: id, ...randomObject(r) };
}
/** Mostly plain paths; now and then one the fast path must leave to mingo. */
function randomPath(r) {
    const odd = ["0", "1", "$", "", "_id", "__proto__", "toString", "$x"];
    const parts = Array.from({ length: (0, exports.int)(r, 1, 3) }, () => (r() < 0.06 ? (0, exports.pick)(r, odd) : (0, exports.pick)(r, KEYS)));
    return parts.join(".");
}
function operand(r, op) {
    if (op === "$inc")
        return r() < 0.9 ? (0, exports.pick)(r, [1, -1, 0, 2.5, -0, 7]) : (0, exports.pick)(r, ["x", null, NaN, 1e308]);
    if (op === "$push")
        return r() < 0.9 ? randomValue(r, 1) : { $each: [1, 2] };
    if (op === "$unset")
        return "";
    if (op === "$set" && r() < 0.05)
        return (0, exports.pick)(r, [undefined, new Date(0), { u: undefined }]);
    return randomValue(r, 1);
}
const FAST_OPS = ["$set", "$inc", "$push", "$unset"];
const OTHER_OPS = ["$pull", "$addToSet", "$min", "$setOnInsert", "$pop"];
function randomUpdate(r) {
    const update = {};
    for (let i = (0, exports.int)(r, 1, 3); i > 0; i--) {
        const op = r() < 0.93 ? (0, exports.pick)(r, FAST_OPS) : (0, exports.pick)(r, OTHER_OPS);
        const fields = (update[op] ??= {});
        for (let j = (0, exports.int)(r, 1, 3); j > 0; j--) {
            fields[randomPath(r)] = op === "$pop" ? 1 : operand(r, op);
        }
    }
    return update;
}
/** Filters the store sees: equalities (indexable), $in, ranges, and a few mingo-only shapes. */
function randomFilter(r) {
    const field = (0, exports.pick)(r, ["g", "u", "a", "n", "o.a", "arr"]);
    const value = () => (0, exports.pick)(r, ["x", "y", "z", 1, 2, 3, true, null]);
    switch ((0, exports.int)(r, 0, 6)) {
        case 0:
            return {};
        case 1:
            return { [field]: value() };
        case 2:
            return { [field]: { $in: [value(), value()] } };
        case 3:
            return { g: value(), [field]: { $eq: value() } };
        case 4:
            return { g: value(), h: value() };
        case 5:
            return { n: { $gte: (0, exports.int)(r, -3, 3) }, g: { $in: ["x", "y"] } };
        default:
            return { $or: [{ g: value() }, { u: value() }], a: { $ne: "x" } };
    }
}
function randomSort(r) {
    const sort = {};
    for (let i = (0, exports.int)(r, 1, 2); i > 0; i--)
        sort[(0, exports.pick)(r, ["n", "a", "g", "arr", "o.a", "_id"])] = (0, exports.pick)(r, [1, -1]);
    return sort;
}
/** Freezes every object and array of `value`, so a write into it throws. */
function deepFreeze(value) {
    if (value && typeof value === "object") {
        for (const child of Object.values(value))
            deepFreeze(child);
        Object.freeze(value);
    }
    return value;
}
//# sourceMappingURL=random-docs.js.map