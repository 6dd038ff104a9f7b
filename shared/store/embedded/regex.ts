/**
 * `$regex` in the embedded store runs on RE2 (shared/user-regex.ts), never on JavaScript's
 * backtracking engine: a client's pattern reaches the store inside a search filter (checked by
 * shared/client-filter.ts first), and no pattern may hold the event loop. The compiled fast path
 * (fast-filter.ts) calls `regexTest`; for mingo, `re2Filter` renames each `{$regex, $options}` to
 * an operator of ours, `$re2Regex`, that mingo runs with MongoDB's array semantics but RE2 matching
 * (mingo would otherwise build a JavaScript RegExp first).
 *
 * MongoDB evaluates `$regex` with its own engine (PCRE2) on the database server: a client's
 * pattern was checked as RE2 (no backreferences or lookaround, bounded size) before it got there,
 * and it costs the server, not this process (docs/security.md#regular-expressions).
 */
import { Context } from "mingo";
import { $regex as mingoRegex } from "mingo/operators/query";
import type { Options } from "mingo/types";
import { compileRe2 } from "../../user-regex";
import { isPlainObject } from "../../objects";
import type { Filter } from "../types";

const RE2_REGEX = "$re2Regex";

/**
 * A test for `$regex: pattern` with `$options`: the platform's own patterns (escaped search
 * text) may be long; a client's was bounded before it got here.
 */
export function regexTest(pattern: unknown, options: unknown = ""): (text: string) => boolean {
  if (typeof pattern !== "string") throw new TypeError("$regex takes a string pattern");
  const regex = compileRe2(pattern, options ?? "", Infinity);
  return (text) => regex.test(text);
}

/** Does the filter hold `$regex` anywhere (at any depth, in any operator)? */
function holdsRegex(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsRegex);
  if (!isPlainObject(value)) return false;
  return Object.entries(value).some(([k, v]) => k === "$regex" || holdsRegex(v));
}

function renamed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(renamed);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === "$options" && "$regex" in value) continue;
    if (k === "$regex") out[RE2_REGEX] = { pattern: v, options: value.$options ?? "" };
    else out[k] = renamed(v);
  }
  return out;
}

/**
 * mingo's `$regex` predicate asks its pattern `exec(text)` and reads the answer as truthy: an
 * object that answers RE2's match keeps every other part of its semantics (arrays entered, a
 * missing field never matching).
 */
function re2RegexOperator(selector: string, value: unknown, options: Options) {
  const { pattern: source, options: flags } = value as { pattern: unknown; options: unknown };
  const test = regexTest(source, flags);
  const pattern = { exec: (text: string) => (test(text) ? [text] : null) } as unknown as RegExp;
  return mingoRegex(selector, pattern, options);
}

const RE2_CONTEXT = Context.init({ query: { [RE2_REGEX]: re2RegexOperator } });

/**
 * The filter and the mingo options to run it with: `$regex` renamed to the RE2 operator where the
 * filter holds one; the filter itself (and no options) otherwise.
 */
export function re2Filter(filter: Filter): { filter: Filter; options: Partial<Options> } {
  if (!holdsRegex(filter)) return { filter, options: {} };
  return { filter: renamed(filter) as Filter, options: { context: RE2_CONTEXT } };
}
