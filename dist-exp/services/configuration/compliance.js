"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.MAX_ISSUES = void 0;
exports.toNodes = toNodes;
exports.evaluate = evaluate;
const compile_spec_1 = require("./compile-spec");
exports.MAX_ISSUES = 10_000;
function toNodes(lines) {
    return lines.map((l) => ({
        text: l.text,
        line: l.line,
        words: l.text.split(/\s+/).filter(Boolean),
        children: toNodes(l.children),
    }));
}
class Evaluator {
    root;
    issues = [];
    remedies = [];
    passes = 0;
    flat;
    constructor(root) {
        this.root = root;
    }
    lines(specs, nodes, path) {
        for (const spec of specs) {
            if (spec.evalMode === "ignored")
                continue;
            const matches = candidates(spec, nodes).filter((n) => (0, compile_spec_1.wordsMatch)(spec.matchers, n.words));
            if (spec.evalMode === "disallowed")
                this.disallowed(spec, matches, path);
            else if (matches.length > 0)
                this.present(spec, matches, path);
            else
                this.absent(spec, nodes, path);
        }
    }
    disallowed(spec, matches, path) {
        if (matches.length === 0) {
            this.passes++;
            return;
        }
        for (const found of matches) {
            this.issue({
                kind: "disallowed",
                severity: spec.severity,
                specLine: spec.text,
                path,
                found: found.text,
                line: found.line,
            });
            this.remedies.push({ parents: path, lines: [{ text: found.text, negate: true, children: [] }] });
        }
    }
    present(spec, matches, path) {
        this.passes++;
        if (spec.children.length === 0)
            return;
        for (const match of matches) {
            const inner = [...path, match.text];
            if (!spec.strictOrder) {
                this.lines(spec.children, match.children, inner);
                continue;
            }
            // A strict-order block: its own fixes are replaced by one rewrite when the order is broken.
            const remediesBefore = this.remedies.length;
            this.lines(spec.children, match.children, inner);
            if (!inOrder(spec.children, match.children)) {
                this.remedies.length = remediesBefore;
                this.issue({
                    kind: "order",
                    severity: spec.severity,
                    specLine: spec.text,
                    path,
                    found: match.children.map((c) => c.text).join("\n"),
                    line: match.line,
                });
                this.remedies.push({ parents: path, lines: [{ text: match.text, negate: true, children: [] }] }, { parents: path, lines: [rewriteBlock(spec, match)] });
            }
        }
    }
    absent(spec, nodes, path) {
        const base = {
            severity: spec.severity,
            specLine: spec.text,
            path,
            expected: spec.render,
            ...(spec.unsetVariables.length > 0 && { unsetVariables: spec.unsetVariables }),
        };
        const sameCommand = spec.literalPrefix > 0 && spec.literalPrefix < spec.matchers.length
            ? candidates(spec, nodes).find((n) => sharesPrefix(spec, n.words))
            : undefined;
        const elsewhere = sameCommand ? undefined : this.findElsewhere(spec, path);
        if (sameCommand)
            this.issue({ kind: "mismatch", ...base, found: sameCommand.text, line: sameCommand.line });
        else if (elsewhere)
            this.issue({
                kind: "misplaced",
                ...base,
                found: [...elsewhere.path, elsewhere.node.text].join(" > "),
                line: elsewhere.node.line,
            });
        else
            this.issue({ kind: "missing", ...base });
        this.remedies.push({ parents: path, lines: [renderRequired(spec)] });
    }
    /**
     * A line matching `spec` at another nesting than `path` (wrong nesting): at another depth, or under
     * another kind of parent. The same line under a sibling block (another interface) is not misplaced.
     */
    findElsewhere(spec, path) {
        this.flat ??= flatten(this.root, []);
        const parentKind = (p) => (p.length === 0 ? "" : p[p.length - 1].split(/\s+/)[0]);
        return this.flat.find((e) => (e.path.length !== path.length || parentKind(e.path) !== parentKind(path)) &&
            (0, compile_spec_1.wordsMatch)(spec.matchers, e.node.words));
    }
    issue(issue) {
        if (this.issues.length < exports.MAX_ISSUES)
            this.issues.push(issue);
    }
}
/** Config lines a spec line could match: by first word when it is fixed text. */
function candidates(spec, nodes) {
    const first = spec.matchers[0];
    if (typeof first !== "string" || nodes.length < 8)
        return nodes;
    return indexOf(nodes).get(first) ?? [];
}
const indexes = new WeakMap();
function indexOf(nodes) {
    let index = indexes.get(nodes);
    if (!index) {
        index = new Map();
        for (const n of nodes) {
            const key = n.words[0] ?? "";
            const list = index.get(key);
            if (list)
                list.push(n);
            else
                index.set(key, [n]);
        }
        indexes.set(nodes, index);
    }
    return index;
}
function sharesPrefix(spec, words) {
    if (words.length < spec.literalPrefix)
        return false;
    for (let i = 0; i < spec.literalPrefix; i++)
        if (spec.matchers[i] !== words[i])
            return false;
    return true;
}
function flatten(nodes, path) {
    return nodes.flatMap((node) => [{ node, path }, ...flatten(node.children, [...path, node.text])]);
}
/** The required children's first matches, in spec order, sit in increasing config order. */
function inOrder(specs, nodes) {
    let last = -1;
    for (const spec of specs) {
        if (spec.evalMode !== "required")
            continue;
        const at = nodes.findIndex((n) => (0, compile_spec_1.wordsMatch)(spec.matchers, n.words));
        if (at === -1)
            continue;
        if (at < last)
            return false;
        last = at;
    }
    return true;
}
/** A required line and its required descendants, as config lines to add. */
function renderRequired(spec) {
    return {
        text: spec.render,
        negate: false,
        children: spec.children.filter((c) => c.evalMode === "required").map(renderRequired),
    };
}
/** A strict-order block rebuilt: spec lines in spec order (as found, or rendered), then the rest as found. */
function rewriteBlock(spec, block) {
    const used = new Set();
    const children = [];
    for (const child of spec.children) {
        if (child.evalMode === "ignored")
            continue;
        const found = block.children.find((n) => !used.has(n) && (0, compile_spec_1.wordsMatch)(child.matchers, n.words));
        if (child.evalMode === "disallowed") {
            if (found)
                used.add(found);
            continue;
        }
        if (found) {
            used.add(found);
            children.push(asRemedy(found));
        }
        else
            children.push(renderRequired(child));
    }
    for (const n of block.children)
        if (!used.has(n))
            children.push(asRemedy(n));
    return { text: block.text, negate: false, children };
}
function asRemedy(node) {
    return { text: node.text, negate: false, children: node.children.map(asRemedy) };
}
/** Evaluates a parsed config against a compiled spec. */
function evaluate(spec, config) {
    const root = toNodes(config);
    const evaluator = new Evaluator(root);
    evaluator.lines(spec, root, []);
    const totals = { errors: 0, warnings: 0, infos: 0, passes: evaluator.passes };
    for (const issue of evaluator.issues) {
        if (issue.severity === "error")
            totals.errors++;
        else if (issue.severity === "warning")
            totals.warnings++;
        else
            totals.infos++;
    }
    const checked = totals.passes + evaluator.issues.length;
    return {
        totals,
        score: checked === 0 ? 100 : Math.round((100 * totals.passes) / checked),
        compliant: totals.errors === 0 && totals.warnings === 0,
        issues: evaluator.issues,
        remedies: evaluator.remedies,
    };
}
//# sourceMappingURL=compliance.js.map