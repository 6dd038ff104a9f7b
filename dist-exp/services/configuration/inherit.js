"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.mergeSpecs = mergeSpecs;
exports.ancestorPaths = ancestorPaths;
exports.effectiveOf = effectiveOf;
/**
 * Inheritance down a golden config tree (docs/configuration-manager.md#golden-config-trees): a node's
 * effective spec is its ancestors' specs, root first, with each node's own lines merged in. A line
 * with the same words as an inherited line at the same place overrides it (its evalMode, severity and
 * strict order; children merge the same way), so `base/dc1` can turn a `base` requirement into
 * `ignored`. Variables merge the same way: the nearest node's value wins.
 */
const spec_model_1 = require("./spec-model");
function mergeSpecs(parent, child) {
    const merged = parent.map((line) => ({ ...line }));
    const byKey = new Map(merged.map((line, i) => [(0, spec_model_1.lineKey)(line), i]));
    for (const line of child) {
        const at = byKey.get((0, spec_model_1.lineKey)(line));
        if (at === undefined) {
            byKey.set((0, spec_model_1.lineKey)(line), merged.length);
            merged.push(line);
        }
        else {
            const inherited = merged[at];
            merged[at] = { ...line, children: mergeSpecs(inherited.children, line.children) };
        }
    }
    return merged;
}
/** `base/dc1/rtr` -> [`base`, `base/dc1`, `base/dc1/rtr`]. */
function ancestorPaths(path) {
    const segments = path.split("/");
    return segments.map((_, i) => segments.slice(0, i + 1).join("/"));
}
/** The effective spec and variables of the last node of `chain` (root first). */
function effectiveOf(chain) {
    let spec = [];
    let variables = {};
    for (const node of chain) {
        spec = mergeSpecs(spec, node.spec);
        variables = { ...variables, ...node.variables };
    }
    return { spec, variables };
}
//# sourceMappingURL=inherit.js.map