/**
 * Frozen JSON values that carry their JSON text for a moment. A value parsed from a text and then
 * deep-frozen can never differ from that text, so whoever receives it may keep it as it is,
 * without a copy, and use the text instead of serializing it again. The engine hands the store its
 * changed job parts this way (services/engine/run/jobs.ts); the embedded store's fast update and
 * insert take them as they are (shared/store/embedded). Any other value is copied and serialized
 * as before: nothing changes for a caller that does not use this.
 */
import { deepFreeze } from "./objects";

const texts = new WeakMap<object, string>();
/** Values whose text is known until the current microtasks have run. */
let recent: object[] = [];

function forgetRecent(): void {
  for (const value of recent) texts.delete(value);
  recent = [];
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
  texts.set(deepFreeze(value), text);
  if (recent.push(value) === 1) queueMicrotask(forgetRecent);
  return value;
}

/** The JSON text of a value parseFrozen made, or undefined for any other value. */
export function frozenJsonText(value: unknown): string | undefined {
  return typeof value === "object" && value !== null ? texts.get(value) : undefined;
}
