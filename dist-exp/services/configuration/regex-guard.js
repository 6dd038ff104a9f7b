"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.MAX_PATTERN_LENGTH = void 0;
exports.checkUserRegex = checkUserRegex;
exports.escapeRegex = escapeRegex;
/**
 * User-supplied regexes (parser lexRules, spec regex words, list filters) are checked before use so a
 * rule cannot hang the service: JavaScript's engine backtracks, and a nested quantifier such as
 * `(a+)+` takes exponential time on a near-miss. We refuse the shapes that cause that instead of
 * timing them out, because a timeout cannot interrupt a synchronous match.
 */
exports.MAX_PATTERN_LENGTH = 512;
/** A quantified group that itself holds a quantifier: `(a+)+`, `(a|b*)*`, `(?:x+){2,}`. */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)\s*(?:[+*]|\{\d+,?\d*\})/;
/** A quantified group with alternatives that can overlap: `(a|a)*`, `(\w|\d)+`. */
const QUANTIFIED_ALTERNATION = /\((?:[^()\\]|\\.)*\|(?:[^()\\]|\\.)*\)\s*(?:[+*]|\{\d+,\d*\})/;
const BACKREFERENCE = /\\[1-9]|\\k</;
const LOOKAROUND = /\(\?<?[=!]/;
function checkUserRegex(pattern, flags = "") {
    if (typeof pattern !== "string" || pattern.length === 0)
        return { ok: false, reason: "pattern is empty" };
    if (pattern.length > exports.MAX_PATTERN_LENGTH)
        return { ok: false, reason: `pattern is longer than ${exports.MAX_PATTERN_LENGTH} characters` };
    if (BACKREFERENCE.test(pattern))
        return { ok: false, reason: "backreferences are not allowed" };
    if (LOOKAROUND.test(pattern))
        return { ok: false, reason: "lookaround groups are not allowed" };
    if (NESTED_QUANTIFIER.test(pattern))
        return { ok: false, reason: "nested quantifiers are not allowed" };
    if (QUANTIFIED_ALTERNATION.test(pattern))
        return { ok: false, reason: "a repeated group of alternatives is not allowed" };
    try {
        return { ok: true, regex: new RegExp(pattern, flags) };
    }
    catch (err) {
        return { ok: false, reason: `invalid pattern: ${err.message}` };
    }
}
/** `filter.name` when `regex` is false: the text matched literally. */
function escapeRegex(text) {
    return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
//# sourceMappingURL=regex-guard.js.map