"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.compileSpec = compileSpec;
exports.wordsMatch = wordsMatch;
/**
 * A spec, ready to match: each line's words become matchers once per (spec, variables), not once
 * per device, so a batch of a thousand devices pays for it once. A literal word compares as text; a
 * word with a variable or regex becomes one anchored RegExp (a set variable is its escaped value, an
 * unset one matches any word); regex sources were checked by checkUserRegex when the spec was stored.
 */
const regex_guard_1 = require("./regex-guard");
const spec_text_1 = require("./spec-text");
function compileSpec(lines, variables) {
    return lines.map((line) => compileLine(line, variables));
}
function compileLine(line, variables) {
    const unset = new Set();
    const matchers = line.words.map((word) => compileWord(word, variables, unset));
    let literalPrefix = 0;
    while (literalPrefix < line.words.length && line.words[literalPrefix].every((p) => p.type === "literal"))
        literalPrefix++;
    return {
        text: (0, spec_text_1.wordsText)(line.words),
        matchers,
        literalPrefix,
        evalMode: line.evalMode,
        severity: line.severity,
        strictOrder: line.strictOrder === true,
        unsetVariables: [...unset],
        render: line.words.map((w) => w.map((p) => renderPart(p, variables)).join("")).join(" "),
        children: compileSpec(line.children, variables),
    };
}
function compileWord(word, variables, unset) {
    const fixed = word.every((p) => p.type === "literal" || (p.type === "variable" && p.value in variables));
    if (fixed)
        return word.map((p) => (p.type === "literal" ? p.value : variables[p.value])).join("");
    const source = word
        .map((p) => {
        if (p.type === "literal")
            return (0, regex_guard_1.escapeRegex)(p.value);
        if (p.type === "regex")
            return `(?:${p.value})`;
        if (p.value in variables)
            return (0, regex_guard_1.escapeRegex)(variables[p.value]);
        unset.add(p.value);
        return "\\S+";
    })
        .join("");
    return new RegExp(`^(?:${source})$`);
}
function renderPart(part, variables) {
    if (part.type === "literal")
        return part.value;
    if (part.type === "variable")
        return variables[part.value] ?? `<${part.value}>`;
    return `<${part.value}>`;
}
/** Does a config line's words match the spec line's matchers (same number of words, each matching)? */
function wordsMatch(matchers, words) {
    if (matchers.length !== words.length)
        return false;
    for (let i = 0; i < matchers.length; i++) {
        const m = matchers[i];
        if (typeof m === "string" ? m !== words[i] : !m.test(words[i]))
            return false;
    }
    return true;
}
//# sourceMappingURL=compile-spec.js.map