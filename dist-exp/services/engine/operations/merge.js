"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.merge = merge;
/**
 * `merge`: builds one object from several.
 *
 * Incoming: `data_to_merge`, a list whose items are either `{key, value}` pairs (the value lands
 * under the key) or objects (their members are copied in, later ones winning).
 * Outgoing: `merged_object`.
 */
const objects_1 = require("../../../shared/objects");
const types_1 = require("./types");
const isPair = (v) => typeof v.key === "string" && "value" in v && Object.keys(v).every((k) => k === "key" || k === "value");
function merge(incoming) {
    const items = incoming.data_to_merge;
    if (!Array.isArray(items) || !items.every(types_1.isPlainObject))
        throw new types_1.OperationError("'data_to_merge' must be a list of objects or {key, value} pairs");
    const merged = {};
    for (const item of items) {
        // setOwn: a key from data (`__proto__` included) is a member, never the object's prototype.
        if (isPair(item))
            (0, objects_1.setOwn)(merged, item.key, item.value);
        else
            for (const [key, value] of Object.entries(item))
                (0, objects_1.setOwn)(merged, key, value);
    }
    return { state: "success", outgoing: { merged_object: merged } };
}
//# sourceMappingURL=merge.js.map