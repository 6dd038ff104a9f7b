"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.patchJson = patchJson;
exports.fastUpdate = fastUpdate;
exports.replayPatch = replayPatch;
/**
 * A faster path for the updates services send most: `$set`, `$inc`, `$push` and `$unset` on plain
 * dotted paths through objects (the engine's `{$set: {...}, $inc: {version: 1}}` on every task
 * transition). mingo's updater deep-clones the whole document and walks it generically; here only
 * the objects on the updated paths are copied, and the new image shares every untouched subtree
 * with the stored one. That is safe because stored documents are never mutated, only replaced
 * (table.ts), and every answer is a copy.
 *
 * Anything else answers `undefined` and stays with mingo: other operators, `$`/numeric/empty path
 * segments, `$each` and other modifiers, paths through arrays, null or scalars, overlapping paths,
 * `$inc` on a non-number and `$push` on a non-array (mingo's own answer to those, a silent no-op or an
 * error, is what the store has always given). test/unit/fast-update.test.ts compares both paths.
 */
const frozen_json_1 = require("../../frozen-json");
const util_1 = require("mingo/util");
const objects_1 = require("../../objects");
/**
 * The JSON text of `ops` as the log holds them (each value's text in place), the same text
 * JSON.stringify gives for the parsed ops; nothing is serialized twice.
 */
function patchJson(ops) {
    let text = "[";
    ops.forEach((op, i) => {
        text += `${i ? "," : ""}["${op[0]}",${JSON.stringify(op[1])}${op.length === 3 ? `,${op[2]}` : ""}]`;
    });
    return text + "]";
}
const OPS = new Set(["$set", "$inc", "$push", "$unset"]);
// Not empty, not `$`-led, not an array index (integer-like keys are mingo's to place).
const PLAIN_SEGMENT = /^(?!\d+$)[^$.][^.]*$/;
// Names Object.prototype has (toString, __proto__, ...): mingo's walk trips on them, so it keeps them.
const plainSegment = (part) => PLAIN_SEGMENT.test(part) && !(part in Object.prototype);
/** The steps of `update`, or undefined when it is not a shape this path handles. */
function stepsOf(update) {
    const steps = [];
    for (const op of Object.keys(update)) {
        if (op === "$setOnInsert")
            continue; // only an upsert's insert applies it
        const fields = update[op];
        if (!OPS.has(op) || !(0, objects_1.isPlainObject)(fields) || Object.keys(fields).length === 0)
            return undefined;
        for (const [path, operand] of Object.entries(fields)) {
            const parts = path.split(".");
            if (parts[0] === "_id" || !parts.every(plainSegment))
                return undefined;
            const step = { op: op, parts };
            if (op === "$inc") {
                if (typeof operand !== "number" || !Number.isFinite(operand))
                    return undefined;
                step.value = operand + 0; // -0 is stored as 0, as a JSON round trip leaves it
            }
            else if (op === "$set" || op === "$push") {
                if (op === "$push" && (0, objects_1.isPlainObject)(operand) && Object.keys(operand).some((k) => k.startsWith("$")))
                    return undefined; // $each, $slice, $sort, $position
                step.raw = operand;
                // A frozen value with its text (shared/frozen-json.ts) is kept as given: nobody can change it.
                const known = (0, frozen_json_1.frozenJsonText)(operand);
                step.json = known ?? JSON.stringify(operand);
                if (step.json === undefined)
                    return undefined;
                step.value = known !== undefined ? operand : JSON.parse(step.json);
            }
            steps.push(step);
        }
    }
    return conflicting(steps) ? undefined : steps;
}
/** Two paths where one is the other or inside it: mingo refuses those, so it should say so. */
function conflicting(steps) {
    const paths = new Set();
    for (const { parts } of steps) {
        const path = parts.join(".");
        if (paths.has(path))
            return true;
        paths.add(path);
    }
    return steps.some(({ parts }) => parts.slice(1).some((_, i) => paths.has(parts.slice(0, i + 1).join("."))));
}
/** `update` applied to `doc` as mingo would, or undefined when mingo must do it. */
function fastUpdate(doc, update) {
    const steps = stepsOf(update);
    if (!steps)
        return undefined;
    const root = { ...doc };
    // Objects of the new image that are ours (copied or created here), so they may be written in place.
    const owned = new Set([root]);
    const written = [];
    const patch = [];
    let changed = false;
    // $set steps that wrote a value unequal to mingo (a Date over its text) but maybe equal as JSON.
    const unsure = [];
    for (const step of steps) {
        const { op, parts } = step;
        let node = root;
        let reached = true;
        for (const part of parts.slice(0, -1)) {
            let child = Object.hasOwn(node, part) ? node[part] : undefined;
            if (child === undefined) {
                if (op === "$unset") {
                    reached = false;
                    break;
                }
                child = {};
                owned.add(child);
                node[part] = child;
            }
            else if (!(0, objects_1.isPlainObject)(child)) {
                return undefined;
            }
            else if (!owned.has(child)) {
                child = { ...child };
                owned.add(child);
                node[part] = child;
            }
            node = child;
        }
        if (!reached)
            continue;
        const key = parts[parts.length - 1];
        const has = Object.hasOwn(node, key);
        const old = has ? node[key] : undefined;
        if (op === "$unset") {
            if (has) {
                delete node[key];
                changed = true;
                patch.push(["unset", parts.join(".")]);
            }
            continue;
        }
        let next;
        if (op === "$set") {
            // mingo keeps the stored value when it is equal (in any key order) to the one given.
            if (has && (0, util_1.isEqual)(old, step.raw))
                continue;
            next = step.value;
            if (has && typeof old === "object" && old !== null)
                unsure.push({ old, json: step.json });
            else
                changed ||= !has || old !== next;
        }
        else if (op === "$inc") {
            if (has && typeof old !== "number")
                return undefined;
            next = has ? old + step.value : step.value;
            if (!Number.isFinite(next))
                return undefined;
            changed ||= !has || next !== old;
        }
        else {
            if (has && !Array.isArray(old))
                return undefined;
            next = has ? [...old, step.value] : [step.value];
            changed = true;
        }
        node[key] = next;
        const path = parts.join(".");
        if (op === "$push")
            patch.push(["push", path, step.json]);
        else
            patch.push(["set", path, op === "$inc" ? JSON.stringify(next) : step.json]);
        // A pushed element sits one level below its array; the array's older elements were measured.
        if (op === "$push")
            written.push({ depth: parts.length + 1, json: step.json });
        else
            written.push({ depth: parts.length, json: step.json });
    }
    // The store writes only what changed as JSON; compared only when nothing else decided it.
    changed ||= unsure.some(({ old, json }) => JSON.stringify(old) !== json);
    return changed
        ? { doc: root, changed, written, patch }
        : { doc, changed, written: [], patch: [] };
}
/**
 * A FastUpdate's patch, read back from the log, applied to `doc`, the document it was made on:
 * the same new image. Objects on the patched paths are copied, as fastUpdate does.
 */
function replayPatch(doc, patch) {
    const root = { ...doc };
    const owned = new Set([root]);
    for (const [op, path, value] of patch) {
        const parts = path.split(".");
        let node = root;
        for (const part of parts.slice(0, -1)) {
            let child = Object.hasOwn(node, part) ? node[part] : undefined;
            if (!(0, objects_1.isPlainObject)(child)) {
                child = {};
                owned.add(child);
            }
            else if (!owned.has(child)) {
                child = { ...child };
                owned.add(child);
            }
            node[part] = child;
            node = child;
        }
        const key = parts[parts.length - 1];
        if (op === "unset")
            delete node[key];
        else if (op === "set")
            node[key] = value;
        else
            node[key] = [...(Array.isArray(node[key]) ? node[key] : []), value];
    }
    return root;
}
//# sourceMappingURL=fast-update.js.map