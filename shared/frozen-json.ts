/**
 * Frozen JSON values that carry their JSON text. A value parsed from a text and then deep-frozen
 * can never differ from that text, so whoever receives it may keep it as it is, without a copy,
 * and use the text instead of serializing it again. The engine hands the store its changed job
 * parts this way (services/engine/run/jobs.ts); the embedded store's fast update takes them as
 * they are (shared/store/embedded/fast-update.ts). Any other value is copied and serialized as
 * before: nothing changes for a caller that does not use this.
 */
import { deepFreeze } from "./objects";

const texts = new WeakMap<object, string>();

/** `JSON.parse(text)`, deep-frozen, its text remembered. */
export function parseFrozen(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if (typeof value === "object" && value !== null) texts.set(deepFreeze(value), text);
  return value;
}

/** The JSON text of a value parseFrozen made, or undefined for any other value. */
export function frozenJsonText(value: unknown): string | undefined {
  return typeof value === "object" && value !== null ? texts.get(value) : undefined;
}
