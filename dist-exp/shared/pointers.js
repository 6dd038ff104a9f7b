"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.WILDCARD = void 0;
exports.parsePointer = parsePointer;
exports.formatPointer = formatPointer;
exports.resolvePointer = resolvePointer;
exports.mapPointers = mapPointers;
exports.sealValue = sealValue;
exports.sealPointers = sealPointers;
/**
 * JSON pointers (RFC 6901) for the encryption decorators (docs/platform-rules.md#secrets). A decorator's
 * pointer may hold `*` segments, each standing for every index of an array or every key of an
 * object at that place: the pointer of the segments `alarmProps`, `*`, `community` names the
 * community of every alarm. (A key that is literally `*` cannot be named on its own.)
 *
 * The helpers never mutate their input: a service seals a copy of what it was sent, so a failed
 * write leaves no half-encrypted object behind.
 */
const secrets_1 = require("./secrets");
/** A wildcard segment: every array index or object key at that place. */
exports.WILDCARD = "*";
/** The reference tokens of a pointer (`""` is the whole document). Throws on a malformed pointer. */
function parsePointer(pointer) {
    if (pointer === "")
        return [];
    if (!pointer.startsWith("/"))
        throw new Error(`JSON pointer must start with '/': ${pointer}`);
    return pointer
        .slice(1)
        .split("/")
        .map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
}
/** The pointer text of reference tokens (the inverse of parsePointer). */
function formatPointer(tokens) {
    return tokens.map((t) => "/" + t.replace(/~/g, "~0").replace(/\//g, "~1")).join("");
}
const isContainer = (value) => typeof value === "object" && value !== null;
/** Every value present at `pointer` in `doc`, wildcards expanded, in document order. */
function resolvePointer(doc, pointer) {
    const out = [];
    const walk = (value, rest, at) => {
        if (rest.length === 0)
            return void out.push({ pointer: formatPointer(at), value });
        if (!isContainer(value))
            return;
        const [token, ...tail] = rest;
        const keys = token === exports.WILDCARD ? Object.keys(value) : [token];
        for (const key of keys) {
            if (Array.isArray(value) && !/^(0|[1-9]\d*)$/.test(key))
                continue;
            if (!Object.prototype.hasOwnProperty.call(value, key))
                continue;
            walk(value[key], tail, [...at, key]);
        }
    };
    walk(doc, parsePointer(pointer), []);
    return out;
}
/**
 * A deep copy of `doc` where every value present at one of `pointers` is replaced by
 * `replace(value, concretePointer)`. Absent places stay absent: nothing is created.
 */
function mapPointers(doc, pointers, replace) {
    const copy = structuredClone(doc);
    for (const pointer of pointers) {
        const walk = (value, rest, at) => {
            if (!isContainer(value))
                return;
            const [token, ...tail] = rest;
            const keys = token === exports.WILDCARD ? Object.keys(value) : [token];
            for (const key of keys) {
                if (Array.isArray(value) && !/^(0|[1-9]\d*)$/.test(key))
                    continue;
                if (!Object.prototype.hasOwnProperty.call(value, key))
                    continue;
                const here = value;
                if (tail.length === 0)
                    here[key] = replace(here[key], formatPointer([...at, key]));
                else
                    walk(here[key], tail, [...at, key]);
            }
        };
        const tokens = parsePointer(pointer);
        if (tokens.length > 0)
            walk(copy, tokens, []);
    }
    return copy;
}
/**
 * Seals one secret for storage. A value the caller sends is always plaintext to us, even when it
 * looks like the stored `enc:v1:` form: encrypting it again means nobody can copy another
 * object's stored secret into an object of their own and have the platform use it.
 * Numbers are sealed as their text; null and other types are left as they are (nothing to hide).
 */
function sealValue(key, value) {
    if (typeof value === "string")
        return (0, secrets_1.encrypt)(key, value);
    if (typeof value === "number")
        return (0, secrets_1.encrypt)(key, String(value));
    return value;
}
/** A copy of `doc` with every value at `pointers` (wildcards allowed) sealed for storage. */
function sealPointers(key, doc, pointers) {
    return mapPointers(doc, pointers, (value) => sealValue(key, value));
}
//# sourceMappingURL=pointers.js.map