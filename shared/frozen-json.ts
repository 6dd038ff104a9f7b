/**
 * Frozen JSON values that carry their JSON text for a moment. A value parsed from a text and then
 * deep-frozen can never differ from that text, so whoever receives it may keep it as it is,
 * without a copy, and use the text instead of serializing it again. The engine hands the store its
 * changed job parts this way (services/engine/run/jobs.ts); the embedded store's fast update and
 * insert take them as they are (shared/store/embedded). Any other value is copied and serialized
 * as before: nothing changes for a caller that does not use this.
 */
import { deepFreeze, deepFreezeInTurns } from "./objects";

/**
 * Texts (and, where the maker knew it, nestings) of the values made this turn. Every entry is
 * forgotten together once the current microtasks have run, so plain Maps, cleared whole, serve:
 * a WeakMap's entries, deleted one by one, cost more to set and to collect.
 */
const texts = new Map<object, string>();
const nestings = new Map<object, number>();
let forgetQueued = false;

function forgetRecent(): void {
  texts.clear();
  // Not every maker counts a nesting; clear() makes a new table even for an empty Map.
  if (nestings.size > 0) nestings.clear();
  forgetQueued = false;
}

function remember(value: object, text: string): void {
  texts.set(value, text);
  if (!forgetQueued) {
    forgetQueued = true;
    queueMicrotask(forgetRecent);
  }
}

/**
 * `JSON.parse(text)`, deep-frozen, its text known until this turn's microtasks have run: long
 * enough to hand it to a synchronous receiver (the embedded store writes before it first waits),
 * and not as long as the value lives (a stored value would keep its text in memory beside it).
 * A receiver that finds no text serializes the value as usual.
 */
export function parseFrozen(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if (typeof value !== "object" || value === null) return value;
  remember(deepFreeze(value), text);
  return value;
}

/**
 * Gives a deep-frozen value its JSON text, as parseFrozen does, for a maker that built the value
 * itself and answers for it: `JSON.parse(text)` would give an equal value, members in the same
 * order (services/engine/run/jobs.ts storedTask, which builds a changed task without parsing it
 * back; test/unit/job-drafts.test.ts holds the two to the same value). `nesting`, when given, is
 * how deeply the value's objects and arrays nest (`{}` 1: what the store's depth.ts jsonNesting
 * finds in `text`), which the maker counted while building it: the store then need not scan the
 * text for its depth bound. The same test holds it to jsonNesting. Answers the value.
 */
export function adoptFrozen<T extends object>(value: T, text: string, nesting?: number): T {
  remember(value, text);
  if (nesting !== undefined) nestings.set(value, nesting);
  return value;
}

/** The JSON text of a value parseFrozen made, or undefined for any other value. */
export function frozenJsonText(value: unknown): string | undefined {
  return typeof value === "object" && value !== null ? texts.get(value) : undefined;
}

/** The nesting adoptFrozen was given with `value` this turn, or undefined. */
export function frozenJsonNesting(value: unknown): number | undefined {
  return typeof value === "object" && value !== null ? nestings.get(value) : undefined;
}

/**
 * Whether the values of the write under way came parsed out of a message for it (the store node's
 * params, withMessageValues): fresh from JSON.parse, held by nobody else once the call is over, each
 * already its own JSON round trip. A receiver that would copy a value to own it (serialize it,
 * parse it back) may take it as it is meanwhile, as it takes a frozen value with its text.
 */
let messageValues = false;

/**
 * Runs `write` with its values taken as handed over (see messageValues): only for values parsed
 * from a message and seen by nothing else since. The flag holds for the synchronous part of the
 * call; a receiver that looks after a wait finds it off and copies, as before.
 */
export function withMessageValues<T>(write: () => T): T {
  const before = messageValues;
  messageValues = true;
  try {
    return write();
  } finally {
    messageValues = before;
  }
}

/** True while withMessageValues runs its write. */
export function valuesFromMessage(): boolean {
  return messageValues;
}

/** Texts of deep-frozen values kept on purpose, for as long as each value lives (keepJsonText). */
const keptTexts = new WeakMap<object, string>();

/**
 * The JSON text of `value`, a deep-frozen value held to be sent many times (the embedded store's
 * read-only answers), kept for as long as the value lives; jsonTextOf then uses it instead of
 * serializing the value again. Made once, on the first call (members with kept texts spliced in).
 */
export function keepJsonText(value: object): string {
  let text = keptTexts.get(value);
  if (text === undefined) {
    // Only a frozen value cannot drift from its text; callers freeze all of it (deepFreeze).
    if (!Object.isFrozen(value)) throw new TypeError("keepJsonText takes deep-frozen values only");
    text = jsonTextOf(value);
    keptTexts.set(value, text);
  }
  return text;
}

/**
 * `JSON.parse(text)`, deep-frozen, with its text kept beside it for as long as it lives (as
 * keepJsonText keeps it): for a large value that is stored, then answered and read many times (a
 * node's spec at its bounds: 1.4 MB of JSON), so nothing serializes it again. The text costs
 * memory beside the value (about a quarter of the parsed value's heap): only for values worth it.
 * Over several turns of the event loop, as parsing and freezing such a text together would hold
 * the loop too long (~25 ms to parse, 10-30 to freeze on the test machines, twice that beside other
 * load): parsed in this turn, then frozen a slice of objects a turn (deepFreezeInTurns) and given
 * its text. Nothing else can reach the value in between, so it is still exactly its text.
 */
export async function parseKeptInTurns(text: string): Promise<unknown> {
  const value: unknown = JSON.parse(text);
  await new Promise((resolve) => setImmediate(resolve));
  if (typeof value === "object" && value !== null) keptTexts.set(await deepFreezeInTurns(value), text);
  return value;
}

/** The text kept beside `value` (keepJsonText, parseKeptInTurns), or undefined. */
export function keptJsonText(value: unknown): string | undefined {
  return typeof value === "object" && value !== null ? keptTexts.get(value) : undefined;
}

/**
 * `JSON.stringify(value)`, with the kept text (keepJsonText, parseKeptInTurns) of the value itself, of any
 * member of a plain object, or of any member of a plain object in an array, spliced in instead of
 * serialized: a page answer `{results, skip, limit, total}` whose `results` the store keeps frozen
 * costs a few concatenations, and so does a node whose spec is kept. Anything else is plain
 * `JSON.stringify` (test/unit/json-text.test.ts holds the two to the same text).
 */
export function jsonTextOf(value: unknown): string {
  if (typeof value !== "object" || value === null) return JSON.stringify(value);
  const own = keptTexts.get(value);
  if (own !== undefined) return own;
  if (Array.isArray(value)) {
    if (!value.some((element) => isKept(element) || holdsKept(element))) return JSON.stringify(value);
    let out = "";
    // Holes too: JSON.stringify writes what it cannot write (undefined, functions, symbols) as null.
    for (let i = 0; i < value.length; i++) {
      const element: unknown = value[i];
      out += `${i ? "," : ""}${isKept(element) ? keptTexts.get(element) : (recordText(element) ?? "null")}`;
    }
    return `[${out}]`;
  }
  return recordText(value) as string;
}

/** How deep in plain objects kept texts are looked for: a node read's `effective.spec` is two down. */
const SPLICE_DEPTH = 2;

/** A plain object (no toJSON) with a kept member, or a plain member holding one, `depth` levels down. */
function holdsKept(value: unknown, depth = SPLICE_DEPTH): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  const record = value as Record<string, unknown>;
  if (typeof record.toJSON === "function") return false;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const member = record[key];
    if (isKept(member) || (depth > 1 && holdsKept(member, depth - 1))) return true;
  }
  return false;
}

/** JSON.stringify(value), kept members of plain objects spliced in; undefined where it gives that. */
function recordText(value: unknown, depth = SPLICE_DEPTH): string | undefined {
  if (!holdsKept(value, depth)) return JSON.stringify(value) as string | undefined;
  let out = "";
  for (const key of Object.keys(value)) {
    const member = value[key];
    const text = isKept(member)
      ? keptTexts.get(member)
      : depth > 1 && holdsKept(member, depth - 1)
        ? recordText(member, depth - 1)
        : (JSON.stringify(member) as string | undefined);
    // JSON.stringify leaves out members it cannot write (undefined, functions, symbols).
    if (text === undefined) continue;
    out += `${out ? "," : ""}${JSON.stringify(key)}:${text}`;
  }
  return `{${out}}`;
}

function isKept(value: unknown): value is object {
  return typeof value === "object" && value !== null && keptTexts.has(value);
}
