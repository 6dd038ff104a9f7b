/**
 * A spec, ready to match: each line's words become matchers once per (spec, variables), not once
 * per device, so a batch of a thousand devices pays for it once. A literal word compares as text; a
 * word with a variable or regex becomes one anchored RE2 pattern (a set variable is its escaped
 * value, an unset one matches any word), linear in the word whatever its regex parts
 * (shared/user-regex.ts); the parts and the whole word were checked when the spec was stored.
 */
import { escapeRegex } from "../../shared/text";
import { compileRe2 } from "../../shared/user-regex";
import type { EvalMode, Severity, SpecLine, WordPart } from "./spec-model";
import { wordsText } from "./spec-text";

export type WordMatcher = string | { test(word: string): boolean };

export interface CompiledLine {
  /** The spec line as written (text form, without markers): issues name it. */
  text: string;
  matchers: WordMatcher[];
  /** How many leading words are fixed text: a config line sharing them is "the same line, another value". */
  literalPrefix: number;
  evalMode: EvalMode;
  severity: Severity;
  strictOrder: boolean;
  /** The variables this line uses that have no value (they matched anything). */
  unsetVariables: string[];
  /** The line as a config command, variables filled (`<name>` where unset, the pattern where a regex). */
  render: string;
  children: CompiledLine[];
}

export function compileSpec(lines: SpecLine[], variables: Record<string, string>): CompiledLine[] {
  return lines.map((line) => compileLine(line, variables));
}

function compileLine(line: SpecLine, variables: Record<string, string>): CompiledLine {
  const unset = new Set<string>();
  const matchers = line.words.map((word) => compileWord(word, variables, unset));
  let literalPrefix = 0;
  while (literalPrefix < line.words.length && line.words[literalPrefix].every((p) => p.type === "literal"))
    literalPrefix++;
  return {
    text: wordsText(line.words),
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

function compileWord(word: WordPart[], variables: Record<string, string>, unset: Set<string>): WordMatcher {
  const fixed = word.every(
    (p) => p.type === "literal" || (p.type === "variable" && Object.hasOwn(variables, p.value)),
  );
  if (fixed) return word.map((p) => (p.type === "literal" ? p.value : variables[p.value])).join("");
  // Variable values (escaped text) may make the word longer than its stored check allowed: text
  // costs RE2 nothing per step it would not cost a comparison, so no step bound here.
  return compileRe2(wordSource(word, variables, unset), "", Infinity);
}

/**
 * A word as one anchored RE2 pattern: literals and set variables escaped, regex parts grouped, an
 * unset variable (or every variable, when `variables` is empty) any run of non-space.
 */
export function wordSource(word: WordPart[], variables: Record<string, string>, unset?: Set<string>): string {
  const source = word
    .map((p) => {
      if (p.type === "literal") return escapeRegex(p.value);
      if (p.type === "regex") return `(?:${p.value})`;
      if (Object.hasOwn(variables, p.value)) return escapeRegex(variables[p.value]);
      unset?.add(p.value);
      return "\\S+";
    })
    .join("");
  return `^(?:${source})$`;
}

function renderPart(part: WordPart, variables: Record<string, string>): string {
  if (part.type === "literal") return part.value;
  if (part.type === "variable")
    return Object.hasOwn(variables, part.value) ? variables[part.value] : `<${part.value}>`;
  return `<${part.value}>`;
}

/** Does a config line's words match the spec line's matchers (same number of words, each matching)? */
export function wordsMatch(matchers: WordMatcher[], words: string[]): boolean {
  if (matchers.length !== words.length) return false;
  for (let i = 0; i < matchers.length; i++) {
    const m = matchers[i];
    if (typeof m === "string" ? m !== words[i] : !m.test(words[i])) return false;
  }
  return true;
}
