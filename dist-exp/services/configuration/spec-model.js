"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.SPEC_LIMITS = exports.SEVERITIES = exports.EVAL_MODES = void 0;
exports.checkSpec = checkSpec;
exports.variablesOf = variablesOf;
exports.lineKey = lineKey;
exports.checkVariables = checkVariables;
/**
 * A config spec (docs/configuration-manager.md#config-specs): the lines a device's config must,
 * must not, or may hold. Stored as JSON lines of words; each word is literal text, a `{{ variable }}`
 * or a `{/regex/}`, or a mix of them ("{{ site }}-core"). The JSON is checked here, field by field,
 * because its depth is free-form and the contract can only bound its size.
 */
const errors_1 = require("../../shared/errors");
const objects_1 = require("../../shared/objects");
const regex_guard_1 = require("./regex-guard");
exports.EVAL_MODES = ["required", "disallowed", "ignored"];
exports.SEVERITIES = ["error", "warning", "info"];
exports.SPEC_LIMITS = {
    lines: 10_000,
    depth: 32,
    wordsPerLine: 64,
    partsPerWord: 16,
    wordLength: 1024,
    variableName: 128,
};
const VARIABLE_NAME = /^[A-Za-z_][\w.-]*$/;
/** Checks a JSON spec (as sent or stored) and answers it normalized; 400 naming the first bad field. */
function checkSpec(input, field = "spec") {
    const counter = { lines: 0 };
    return checkLines(input, field, 1, counter);
}
function checkLines(input, field, depth, counter) {
    if (!Array.isArray(input))
        throw (0, errors_1.invalidField)(field, `The '${field}' field must be an array of spec lines.`);
    if (depth > exports.SPEC_LIMITS.depth)
        throw (0, errors_1.invalidField)(field, `The spec nests deeper than ${exports.SPEC_LIMITS.depth} levels.`, "depth");
    return input.map((raw, i) => {
        const at = `${field}[${i}]`;
        if (++counter.lines > exports.SPEC_LIMITS.lines)
            throw (0, errors_1.invalidField)(at, `A spec holds at most ${exports.SPEC_LIMITS.lines} lines.`, "count");
        if (!raw || typeof raw !== "object" || Array.isArray(raw))
            throw (0, errors_1.invalidField)(at, `The '${at}' field must be an object.`);
        const line = raw;
        const evalMode = line.evalMode ?? "required";
        const severity = line.severity ?? "warning";
        if (!exports.EVAL_MODES.includes(evalMode))
            throw (0, errors_1.invalidField)(`${at}.evalMode`, `The '${at}.evalMode' field must be one of ${exports.EVAL_MODES.join(", ")}.`);
        if (!exports.SEVERITIES.includes(severity))
            throw (0, errors_1.invalidField)(`${at}.severity`, `The '${at}.severity' field must be one of ${exports.SEVERITIES.join(", ")}.`);
        if (line.strictOrder !== undefined && typeof line.strictOrder !== "boolean")
            throw (0, errors_1.invalidField)(`${at}.strictOrder`, `The '${at}.strictOrder' field must be a boolean.`);
        const words = checkWords(line.words, `${at}.words`);
        return {
            words,
            evalMode: evalMode,
            severity: severity,
            ...(line.strictOrder === true && { strictOrder: true }),
            children: line.children === undefined ? [] : checkLines(line.children, `${at}.children`, depth + 1, counter),
        };
    });
}
function checkWords(input, field) {
    if (!Array.isArray(input) || input.length === 0)
        throw (0, errors_1.invalidField)(field, `The '${field}' field must be a non-empty array of words.`);
    if (input.length > exports.SPEC_LIMITS.wordsPerLine)
        throw (0, errors_1.invalidField)(field, `A spec line holds at most ${exports.SPEC_LIMITS.wordsPerLine} words.`, "count");
    return input.map((word, i) => {
        const at = `${field}[${i}]`;
        // A plain string is one literal word: the short form for hand-written JSON.
        const parts = typeof word === "string" ? [{ type: "literal", value: word }] : word;
        if (!Array.isArray(parts) || parts.length === 0 || parts.length > exports.SPEC_LIMITS.partsPerWord)
            throw (0, errors_1.invalidField)(at, `The '${at}' field must be a string or 1-${exports.SPEC_LIMITS.partsPerWord} word parts.`);
        return parts.map((part, j) => checkPart(part, `${at}[${j}]`));
    });
}
function checkPart(part, field) {
    const p = part;
    if (!p || typeof p !== "object" || typeof p.value !== "string" || p.value.length === 0)
        throw (0, errors_1.invalidField)(field, `The '${field}' field must be {type, value} with a non-empty value.`);
    if (p.value.length > exports.SPEC_LIMITS.wordLength)
        throw (0, errors_1.invalidField)(`${field}.value`, `A word is at most ${exports.SPEC_LIMITS.wordLength} characters.`, "length");
    if (p.type === "literal") {
        if (/\s/.test(p.value))
            throw (0, errors_1.invalidField)(`${field}.value`, "A literal word holds no whitespace.");
    }
    else if (p.type === "variable") {
        if (!VARIABLE_NAME.test(p.value) || p.value.length > exports.SPEC_LIMITS.variableName)
            throw (0, errors_1.invalidField)(`${field}.value`, `'${p.value}' is not a variable name (letters, digits, _ . -).`);
    }
    else if (p.type === "regex") {
        const check = (0, regex_guard_1.checkUserRegex)(p.value);
        if (!check.ok)
            throw (0, errors_1.invalidField)(`${field}.value`, `Regex '${p.value}' refused: ${check.reason}.`, "regex");
    }
    else {
        throw (0, errors_1.invalidField)(`${field}.type`, `The '${field}.type' field must be literal, variable or regex.`);
    }
    return { type: p.type, value: p.value };
}
/** The variables of a spec, in order of first use. */
function variablesOf(lines, into = new Set()) {
    for (const line of lines) {
        for (const word of line.words)
            for (const part of word)
                if (part.type === "variable")
                    into.add(part.value);
        variablesOf(line.children, into);
    }
    return into;
}
/** The identity of a spec line among its siblings: how inheritance finds the line a child node overrides. */
function lineKey(line) {
    return line.words.map((w) => w.map((p) => `${p.type[0]}:${p.value}`).join("")).join(" ");
}
/** Variables: a flat object of names to strings (or numbers), bounded. */
function checkVariables(input, field = "variables") {
    if (input === undefined)
        return {};
    if (!input || typeof input !== "object" || Array.isArray(input))
        throw (0, errors_1.invalidField)(field, `The '${field}' field must be an object of names to values.`);
    const entries = Object.entries(input);
    if (entries.length > 1000)
        throw (0, errors_1.invalidField)(field, "At most 1000 variables.", "count");
    const out = {};
    for (const [name, value] of entries) {
        if (!VARIABLE_NAME.test(name) || name.length > exports.SPEC_LIMITS.variableName)
            throw (0, errors_1.invalidField)(`${field}.${name}`, `'${name}' is not a variable name (letters, digits, _ . -).`);
        if ((typeof value !== "string" && typeof value !== "number") || String(value).length > 1024)
            throw (0, errors_1.invalidField)(`${field}.${name}`, `The '${field}.${name}' field must be a string of at most 1024 characters.`);
        if (/\s/.test(String(value)) || String(value) === "")
            throw (0, errors_1.invalidField)(`${field}.${name}`, `A variable fills one word: '${field}.${name}' holds no whitespace.`);
        (0, objects_1.setOwn)(out, name, String(value));
    }
    return out;
}
//# sourceMappingURL=spec-model.js.map