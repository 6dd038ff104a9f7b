/**
 * Every regex a user writes (golden-config spec words, parser lex rules, the parser list's
 * `filter.name`, `$regex` in a job or workflow search) runs on RE2 (the `re2js` package): matching
 * takes time linear in the text, whatever the pattern, so no pattern can hold the event loop the
 * way a backtracking engine does on `(a+)+$` (docs/security.md#regular-expressions).
 *
 * The dialect is RE2's (https://github.com/google/re2/wiki/Syntax): what it cannot express in
 * linear time, backreferences and lookaround, is refused with a 400 naming the field, as is
 * anything RE2 cannot parse. Flags are MongoDB's `$options` letters `i`, `m`, `s` (RE2's own
 * `(?i)`, `(?m)`, `(?s)` work inside the pattern too).
 */
import { RE2JS } from "re2js";
import { invalidField } from "./errors";

/** The longest pattern accepted, in characters. */
export const MAX_PATTERN_LENGTH = 512;
/**
 * The largest compiled program accepted (RE2's instruction count, about one per character or
 * class, times any counted repetition): matching costs at most this many steps per character of
 * text, so `[a-z]{1000}` (1,002) is refused and `[a-z]{100}` (102) is not.
 */
export const MAX_PROGRAM_SIZE = 256;
/** The flags a user may pass (`$options`, the letters MongoDB and RE2 share). */
export const REGEX_FLAGS = "ims";

const FLAG_BITS: Record<string, number> = {
  i: RE2JS.CASE_INSENSITIVE,
  m: RE2JS.MULTILINE,
  s: RE2JS.DOTALL,
};

export interface UserRegex {
  readonly source: string;
  readonly flags: string;
  /** Does the pattern match anywhere in `text` (`^`/`$` anchor it)? */
  test(text: string): boolean;
}

/** RE2's parse errors for the two things it refuses by design, told in the user's words. */
const BACKREFERENCE = /invalid escape sequence: `\\[1-9k]/;
const LOOKAROUND = /`\(\?<?[=!]/;
/** Compiled patterns by flags and source: a search or a batch compiles each pattern once. */
const compiled = new Map<string, RE2JS>();
const MAX_CACHED = 1000;

/** Why `pattern` (with `flags`) cannot run on RE2, or undefined when it can. */
export function regexProblem(pattern: unknown, flags: unknown = ""): string | undefined {
  try {
    re2(pattern, flags);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * `pattern` compiled for RE2, or an Error saying why not (in words a user can act on). Compiled
 * patterns are kept, so a pattern used on many documents or lines is compiled once.
 */
export function re2(pattern: unknown, flags: unknown = ""): RE2JS {
  if (typeof pattern !== "string" || pattern.length === 0) throw new Error("the pattern is empty");
  if (pattern.length > MAX_PATTERN_LENGTH)
    throw new Error(`the pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  return compileRe2(pattern, flags, MAX_PROGRAM_SIZE);
}

/**
 * A pattern the platform assembled from checked parts (a spec word: escaped literals around user
 * regexes), compiled for RE2 within `maxProgram` steps per character.
 */
export function compileRe2(pattern: string, flags: unknown, maxProgram: number): RE2JS {
  if (typeof flags !== "string" || [...flags].some((f) => !(f in FLAG_BITS)))
    throw new Error(`the only flags are ${[...REGEX_FLAGS].join(", ")}`);
  const key = `${flags}/${pattern}`;
  const known = compiled.get(key);
  if (known && known.programSize() <= maxProgram) return known;
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(
      pattern,
      [...flags].reduce((bits, f) => bits | FLAG_BITS[f], 0),
    );
  } catch (err) {
    const reason = (err as Error).message;
    if (BACKREFERENCE.test(reason)) throw new Error("backreferences are not supported (RE2 syntax)");
    if (LOOKAROUND.test(reason)) throw new Error("lookaround groups are not supported (RE2 syntax)");
    throw new Error(`invalid pattern (RE2 syntax): ${reason}`);
  }
  if (regex.programSize() > maxProgram)
    throw new Error(
      `the pattern compiles to ${regex.programSize()} steps, more than ${maxProgram} (use fewer or smaller counted repeats)`,
    );
  if (compiled.size >= MAX_CACHED) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, regex);
  return regex;
}

/** `pattern` ready to match, or a 400 naming `field` and why RE2 cannot run it. */
export function userRegex(pattern: unknown, field: string, flags = ""): UserRegex {
  let regex: RE2JS;
  try {
    regex = re2(pattern, flags);
  } catch (err) {
    throw invalidField(field, `Regex '${String(pattern)}' refused: ${(err as Error).message}.`, "regex");
  }
  return { source: pattern as string, flags, test: (text) => regex.test(text) };
}
