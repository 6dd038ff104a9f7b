/**
 * A config spec (docs/configuration-manager.md#config-specs): the lines a device's config must,
 * must not, or may hold. Stored as JSON lines of words; each word is literal text, a `{{ variable }}`
 * or a `{/regex/}`, or a mix of them ("{{ site }}-core"). The JSON is checked here, field by field,
 * because its depth is free-form and the contract can only bound its size.
 */
import { invalidField } from "../../shared/errors";
import { setOwn } from "../../shared/objects";
import { compileRe2, MAX_PATTERN_LENGTH, MAX_PROGRAM_SIZE, userRegex } from "../../shared/user-regex";
import { wordSource } from "./compile-spec";
import { checkNotReserved } from "./tree-bounds";

export const EVAL_MODES = ["required", "disallowed", "ignored"] as const;
export const SEVERITIES = ["error", "warning", "info"] as const;
export type EvalMode = (typeof EVAL_MODES)[number];
export type Severity = (typeof SEVERITIES)[number];

/** One part of a word: `literal` text, a `variable` name, or a `regex` source. */
export interface WordPart {
  type: "literal" | "variable" | "regex";
  value: string;
}

export interface SpecLine {
  /** The line's words; a word is one or more parts (`{{ site }}-core` is a variable and a literal). */
  words: WordPart[][];
  evalMode: EvalMode;
  severity: Severity;
  /** The children must appear in the spec's order (ACL entries). */
  strictOrder?: boolean;
  children: SpecLine[];
}

export const SPEC_LIMITS = {
  lines: 10_000,
  depth: 32,
  wordsPerLine: 64,
  partsPerWord: 16,
  wordLength: 1024,
  variableName: 128,
  /**
   * RE2 steps per character for a whole word with regex parts (its parts and escaped text, unset
   * variables as `\S+`): each part is checked alone first, then the word they make together.
   */
  wordProgram: 16 * MAX_PROGRAM_SIZE,
} as const;

const VARIABLE_NAME = /^[A-Za-z_][\w.-]*$/;

/** Checks a JSON spec (as sent or stored) and answers it normalized; 400 naming the first bad field. */
export function checkSpec(input: unknown, field = "spec"): SpecLine[] {
  const counter = { lines: 0 };
  return checkLines(input, field, 1, counter);
}

function checkLines(input: unknown, field: string, depth: number, counter: { lines: number }): SpecLine[] {
  if (!Array.isArray(input))
    throw invalidField(field, `The '${field}' field must be an array of spec lines.`);
  // Lines in this list sit at `depth`: an empty list (a leaf's children) adds no level.
  if (depth > SPEC_LIMITS.depth && input.length > 0)
    throw invalidField(field, `The spec nests deeper than ${SPEC_LIMITS.depth} levels.`, "depth");
  return input.map((raw, i) => {
    const at = `${field}[${i}]`;
    if (++counter.lines > SPEC_LIMITS.lines)
      throw invalidField(at, `A spec holds at most ${SPEC_LIMITS.lines} lines.`, "count");
    if (!raw || typeof raw !== "object" || Array.isArray(raw))
      throw invalidField(at, `The '${at}' field must be an object.`);
    const line = raw as Record<string, unknown>;
    const evalMode = line.evalMode ?? "required";
    const severity = line.severity ?? "warning";
    if (!EVAL_MODES.includes(evalMode as EvalMode))
      throw invalidField(
        `${at}.evalMode`,
        `The '${at}.evalMode' field must be one of ${EVAL_MODES.join(", ")}.`,
      );
    if (!SEVERITIES.includes(severity as Severity))
      throw invalidField(
        `${at}.severity`,
        `The '${at}.severity' field must be one of ${SEVERITIES.join(", ")}.`,
      );
    if (line.strictOrder !== undefined && typeof line.strictOrder !== "boolean")
      throw invalidField(`${at}.strictOrder`, `The '${at}.strictOrder' field must be a boolean.`);
    const words = checkWords(line.words, `${at}.words`);
    return {
      words,
      evalMode: evalMode as EvalMode,
      severity: severity as Severity,
      ...(line.strictOrder === true && { strictOrder: true }),
      children:
        line.children === undefined ? [] : checkLines(line.children, `${at}.children`, depth + 1, counter),
    };
  });
}

function checkWords(input: unknown, field: string): WordPart[][] {
  if (!Array.isArray(input) || input.length === 0)
    throw invalidField(field, `The '${field}' field must be a non-empty array of words.`);
  if (input.length > SPEC_LIMITS.wordsPerLine)
    throw invalidField(field, `A spec line holds at most ${SPEC_LIMITS.wordsPerLine} words.`, "count");
  return input.map((word, i) => {
    const at = `${field}[${i}]`;
    // A plain string is one literal word: the short form for hand-written JSON.
    const parts = typeof word === "string" ? [{ type: "literal", value: word }] : word;
    if (!Array.isArray(parts) || parts.length === 0 || parts.length > SPEC_LIMITS.partsPerWord)
      throw invalidField(
        at,
        `The '${at}' field must be a string or 1-${SPEC_LIMITS.partsPerWord} word parts.`,
      );
    // A word that is one regex is compiled once, as the word (what the check will run).
    if (parts.length === 1 && (parts[0] as Partial<WordPart> | null)?.type === "regex") {
      const part = checkPart(parts[0], `${at}[0]`, false);
      checkSingleRegexWord(part, `${at}[0]`);
      return [part];
    }
    const checked = parts.map((part, j) => checkPart(part, `${at}[${j}]`));
    if (checked.some((p) => p.type === "regex")) checkWordPattern(checked, at);
    return checked;
  });
}

/** The word's parts together, as the compliance check will run them: one RE2 pattern, bounded. */
function checkWordPattern(word: WordPart[], field: string): void {
  try {
    compileRe2(wordSource(word, {}), "", SPEC_LIMITS.wordProgram);
  } catch (err) {
    throw invalidField(
      field,
      `The word's regex parts together are refused: ${(err as Error).message}.`,
      "regex",
    );
  }
}

/** Steps the anchors and groups around a one-regex word add to the regex's own program. */
const WORD_WRAP_STEPS = 2;

/**
 * A word of one regex part: its word pattern compiled within the part's own bound, and on a
 * refusal the part's own 400 (userRegex: its message names the pattern as written).
 */
function checkSingleRegexWord(part: WordPart, field: string): void {
  try {
    if (part.value.length > MAX_PATTERN_LENGTH) throw new Error("too long");
    compileRe2(wordSource([part], {}), "", MAX_PROGRAM_SIZE + WORD_WRAP_STEPS);
  } catch {
    userRegex(part.value, `${field}.value`);
    checkWordPattern([part], field); // refused as a word only (cannot happen with one part)
  }
}

/** One part of a word; a regex part's pattern is compiled unless `compileRegex` is false. */
function checkPart(part: unknown, field: string, compileRegex = true): WordPart {
  const p = part as Record<string, unknown> | null;
  if (!p || typeof p !== "object" || typeof p.value !== "string" || p.value.length === 0)
    throw invalidField(field, `The '${field}' field must be {type, value} with a non-empty value.`);
  if (p.value.length > SPEC_LIMITS.wordLength)
    throw invalidField(`${field}.value`, `A word is at most ${SPEC_LIMITS.wordLength} characters.`, "length");
  if (p.type === "literal") {
    if (/\s/.test(p.value)) throw invalidField(`${field}.value`, "A literal word holds no whitespace.");
  } else if (p.type === "variable") {
    if (!VARIABLE_NAME.test(p.value) || p.value.length > SPEC_LIMITS.variableName)
      throw invalidField(`${field}.value`, `'${p.value}' is not a variable name (letters, digits, _ . -).`);
    checkNotReserved(p.value, `${field}.value`);
  } else if (p.type === "regex") {
    if (compileRegex) userRegex(p.value, `${field}.value`);
  } else {
    throw invalidField(`${field}.type`, `The '${field}.type' field must be literal, variable or regex.`);
  }
  return { type: p.type, value: p.value };
}

/** The variables of a spec, in order of first use. */
export function variablesOf(lines: SpecLine[], into = new Set<string>()): Set<string> {
  for (const line of lines) {
    for (const word of line.words)
      for (const part of word) if (part.type === "variable") into.add(part.value);
    variablesOf(line.children, into);
  }
  return into;
}

/** The identity of a spec line among its siblings: how inheritance finds the line a child node overrides. */
export function lineKey(line: SpecLine): string {
  return line.words.map((w) => w.map((p) => `${p.type[0]}:${p.value}`).join("")).join(" ");
}

/** Variables: a flat object of names to strings (or numbers), bounded. */
export function checkVariables(input: unknown, field = "variables"): Record<string, string> {
  if (input === undefined) return {};
  if (!input || typeof input !== "object" || Array.isArray(input))
    throw invalidField(field, `The '${field}' field must be an object of names to values.`);
  const entries = Object.entries(input as Record<string, unknown>);
  if (entries.length > 1000) throw invalidField(field, "At most 1000 variables.", "count");
  const out: Record<string, string> = {};
  for (const [name, value] of entries) {
    if (!VARIABLE_NAME.test(name) || name.length > SPEC_LIMITS.variableName)
      throw invalidField(`${field}.${name}`, `'${name}' is not a variable name (letters, digits, _ . -).`);
    checkNotReserved(name, `${field}.${name}`);
    if ((typeof value !== "string" && typeof value !== "number") || String(value).length > 1024)
      throw invalidField(
        `${field}.${name}`,
        `The '${field}.${name}' field must be a string of at most 1024 characters.`,
      );
    if (/\s/.test(String(value)) || String(value) === "")
      throw invalidField(
        `${field}.${name}`,
        `A variable fills one word: '${field}.${name}' holds no whitespace.`,
      );
    setOwn(out, name, String(value));
  }
  return out;
}
