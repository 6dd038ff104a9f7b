"use strict";
/** Small facts about JSON values, defined once. */
Object.defineProperty(exports, "__esModule", { value: true });
exports.isPlainObject = isPlainObject;
exports.setOwn = setOwn;
exports.copyPlain = copyPlain;
exports.deepFreeze = deepFreeze;
/** A JSON object: not null, not an array. `T` is what its values are known to be. */
function isPlainObject(v) {
    return typeof v === "object" && v !== null && !Array.isArray(v);
}
/**
 * Sets `obj[key] = value` as an own data member whatever the key: with a key from data,
 * `obj["__proto__"] = v` would set the object's prototype instead (and so change what every
 * lookup on it finds). One home for writing data-named keys.
 */
function setOwn(obj, key, value) {
    if (key === "__proto__")
        Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
    else
        obj[key] = value;
}
/**
 * A deep copy of plain data (objects, arrays, scalars; undefined members kept), as structuredClone
 * gives, several times faster on documents: the store copies every answer and the engine every
 * job it writes. Any other object (a Date, a Map) is handed to structuredClone. A "__proto__"
 * member (JSON.parse makes one) stays a member. Recursive: callers bound the nesting (the store
 * at 200 levels).
 */
function copyPlain(value) {
    if (typeof value !== "object" || value === null)
        return value;
    if (Array.isArray(value)) {
        const out = new Array(value.length);
        for (let i = 0; i < value.length; i++)
            out[i] = copyPlain(value[i]);
        return out;
    }
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null)
        return structuredClone(value);
    const out = {};
    for (const key of Object.keys(value)) {
        const child = copyPlain(value[key]);
        // setOwn's rule, inline: this loop runs for every member of every copied document.
        if (key === "__proto__")
            setOwn(out, key, child);
        else
            out[key] = child;
    }
    return out;
}
/**
 * Freezes `value` and everything inside it, for data that is shared and must never change (the
 * engine's remembered jobs): a write into it throws (modules are strict) instead of changing every
 * holder at once. Already frozen objects are taken as frozen all through.
 */
function deepFreeze(value) {
    if (typeof value !== "object" || value === null || Object.isFrozen(value))
        return value;
    Object.freeze(value);
    for (const key of Object.keys(value))
        deepFreeze(value[key]);
    return value;
}
//# sourceMappingURL=objects.js.map