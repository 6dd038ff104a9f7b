"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.MAX_SPEC_TEXT = void 0;
exports.parseSpecText = parseSpecText;
exports.specToText = specToText;
exports.wordsText = wordsText;
/**
 * The text form of a config spec, as the real product's editor writes it
 * (docs/configuration-manager.md#the-text-form): one config line per line, children indented under
 * their parent, and markers in front of a line:
 *   <e/> severity error   <i/> severity info   <w/> (or nothing) severity warning
 *   {d/} disallowed       {i/} ignored          (nothing) required
 *   {o/} the line's children must appear in this order (a strict-order block: ACL entries)
 * Inside a line, `{{ name }}` is a variable and `{/pattern/}` a regex; they can sit inside a word
 * (`{{ site }}-core`). Lines starting with `!` or `#` are comments; Junos terminators (`;`, ` {`,
 * a lone `}`) are dropped so a brace config can be pasted as a spec.
 */
const errors_1 = require("../../shared/errors");
const spec_model_1 = require("./spec-model");
exports.MAX_SPEC_TEXT = 1_000_000;
const MARKER = /^(<[eiw]\/>|\{[dio]\/\})\s*/;
/** A word: a run of regex, variable or plain text pieces up to the next whitespace outside them. */
const PIECE = /\{\/(.+?)\/\}|\{\{\s*([^{}\s]+)\s*\}\}|([^\s{]+|\{(?![{/]))/y;
/** Text form -> JSON spec lines (checked like JSON input). `field` names the input in errors. */
function parseSpecText(text, field = "config") {
    if (text.length > exports.MAX_SPEC_TEXT)
        throw (0, errors_1.invalidField)(field, `A spec text is at most ${exports.MAX_SPEC_TEXT} characters.`);
    const root = [];
    const stack = [{ indent: -1, children: root }];
    const lines = text.split(/\r?\n/);
    for (let n = 0; n < lines.length; n++) {
        const raw = lines[n].replace(/\s+$/, "");
        const trimmed = raw.trim();
        if (trimmed === "" || trimmed === "}" || /^[!#]/.test(trimmed))
            continue;
        const indent = raw.length - raw.trimStart().length;
        while (stack[stack.length - 1].indent >= indent)
            stack.pop();
        if (stack.length > spec_model_1.SPEC_LIMITS.depth)
            throw (0, errors_1.invalidField)(field, `Line ${n + 1}: the spec nests deeper than ${spec_model_1.SPEC_LIMITS.depth} levels.`, "depth");
        const line = parseLine(trimmed, `${field} line ${n + 1}`);
        stack[stack.length - 1].children.push(line);
        stack.push({ indent, children: line.children });
    }
    try {
        return (0, spec_model_1.checkSpec)(root, field);
    }
    catch (err) {
        // The JSON path of a line means nothing to someone who wrote text: the field is the text itself.
        if (err instanceof errors_1.BadRequestError)
            throw (0, errors_1.invalidField)(field, err.message, "spec");
        throw err;
    }
}
function parseLine(text, where) {
    let rest = text;
    const line = { evalMode: "required", severity: "warning", children: [] };
    for (let m = MARKER.exec(rest); m; m = MARKER.exec(rest)) {
        const marker = m[1];
        if (marker === "<e/>")
            line.severity = "error";
        else if (marker === "<i/>")
            line.severity = "info";
        else if (marker === "<w/>")
            line.severity = "warning";
        else if (marker === "{d/}")
            line.evalMode = "disallowed";
        else if (marker === "{i/}")
            line.evalMode = "ignored";
        else
            line.strictOrder = true;
        rest = rest.slice(m[0].length);
    }
    rest = rest
        .replace(/\s*\{$/, "")
        .replace(/;$/, "")
        .trim();
    if (rest === "")
        throw (0, errors_1.invalidField)("config", `${where}: a marker without a config line.`);
    line.words = wordsOf(rest, where);
    return line;
}
function wordsOf(text, where) {
    const words = [];
    let i = 0;
    while (i < text.length) {
        while (i < text.length && /\s/.test(text[i]))
            i++;
        if (i >= text.length)
            break;
        const word = [];
        while (i < text.length && !/\s/.test(text[i])) {
            PIECE.lastIndex = i;
            const m = PIECE.exec(text);
            if (!m)
                throw (0, errors_1.invalidField)("config", `${where}: cannot read '${text.slice(i, i + 40)}'.`);
            if (m[1] !== undefined)
                word.push({ type: "regex", value: m[1] });
            else if (m[2] !== undefined)
                word.push({ type: "variable", value: m[2] });
            else
                appendLiteral(word, m[3]);
            i = PIECE.lastIndex;
        }
        words.push(word);
    }
    return words;
}
function appendLiteral(word, text) {
    const last = word[word.length - 1];
    if (last?.type === "literal")
        last.value += text;
    else
        word.push({ type: "literal", value: text });
}
/** JSON spec -> text form (what export and the node read answer beside the JSON). */
function specToText(lines, depth = 0) {
    const out = [];
    for (const line of lines) {
        const markers = (line.severity === "error" ? "<e/>" : line.severity === "info" ? "<i/>" : "") +
            (line.evalMode === "disallowed" ? "{d/}" : line.evalMode === "ignored" ? "{i/}" : "") +
            (line.strictOrder ? "{o/}" : "");
        out.push(" ".repeat(depth) + markers + wordsText(line.words));
        if (line.children.length > 0)
            out.push(specToText(line.children, depth + 1));
    }
    return out.join("\n");
}
function wordsText(words) {
    return words.map((w) => w.map(partText).join("")).join(" ");
}
function partText(part) {
    return part.type === "literal"
        ? part.value
        : part.type === "variable"
            ? `{{ ${part.value} }}`
            : `{/${part.value}/}`;
}
//# sourceMappingURL=spec-text.js.map