"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.parseFrozen = parseFrozen;
exports.frozenJsonText = frozenJsonText;
/**
 * Frozen JSON values that carry their JSON text for a moment. A value parsed from a text and then
 * deep-frozen can never differ from that text, so whoever receives it may keep it as it is,
 * without a copy, and use the text instead of serializing it again. The engine hands the store its
 * changed job parts this way (services/engine/run/jobs.ts); the embedded store's fast update and
 * insert take them as they are (shared/store/embedded). Any other value is copied and serialized
 * as before: nothing changes for a caller that does not use this.
 */
const objects_1 = require("./objects");
const texts = new WeakMap();
/** Values whose text is known until the current microtasks have run. */
let recent = [];
function forgetRecent() {
    for (const value of recent)
        texts.delete(value);
    recent = [];
}
/**
 * `JSON.parse(text)`, deep-frozen, its text known until this turn's microtasks have run: long
 * enough to hand it to a synchronous receiver (the embedded store writes before it first waits),
 * and not as long as the value lives (a stored value would keep its text in memory beside it).
 * A receiver that finds no text serializes the value as usual.
 */
function parseFrozen(text) {
    const value = JSON.parse(text);
    if (typeof value !== "object" || value === null)
        return value;
    texts.set((0, objects_1.deepFreeze)(value), text);
    if (recent.push(value) === 1)
        queueMicrotask(forgetRecent);
    return value;
}
/** The JSON text of a value parseFrozen made, or undefined for any other value. */
function frozenJsonText(value) {
    return typeof value === "object" && value !== null ? texts.get(value) : undefined;
}
//# sourceMappingURL=frozen-json.js.map