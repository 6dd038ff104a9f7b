"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.MAX_ITEMS = void 0;
exports.loopItems = loopItems;
/**
 * `forEach`: runs a loop body once per item of a list, one item after the other.
 *
 * Incoming: `data_array` (the list). The body starts at the targets of the task's `loop`
 * transitions (`{state: "loop", type: "loop"}`) and ends with a transition back to the forEach
 * task. During an iteration the body reads `$var.<forEachId>.current_item` and `.index`. When the
 * body comes back, the returning task's outgoing variables are collected, the body's tasks are
 * reset, and the next item starts. After the last item the task finishes `success` with outgoing
 * `results` (one entry per item) and follows its `success` transitions. An empty list finishes at
 * once with no results.
 */
const types_1 = require("./types");
exports.MAX_ITEMS = 10_000;
function loopItems(incoming) {
    const items = incoming.data_array;
    if (!Array.isArray(items))
        throw new types_1.OperationError("'data_array' must be a list");
    if (items.length > exports.MAX_ITEMS)
        throw new types_1.OperationError(`'data_array' may hold at most ${exports.MAX_ITEMS} items`);
    return items;
}
//# sourceMappingURL=for-each.js.map