/**
 * How deeply a JSON value nests, counted by walking it: what the store's depth bound needs of a value
 * the engine hands it frozen (shared/frozen-json.ts adoptFrozen), so the store need not scan its text.
 */
import { hasOwn as sharedHasOwn } from "../../../shared/objects";

/** shared/objects.ts hasOwn as a const of this module, so V8 compiles its for-in checks (see there). */
const hasOwn = sharedHasOwn;

/**
 * How deeply `value`'s objects and arrays nest (`{}` 1, a scalar 0), as the store's jsonNesting
 * finds in its text. With `freeze`, each object is frozen once walked: for a value fresh from
 * JSON.parse that is to be stored (./jobs.ts, ./job-template.ts).
 */
export function nestingOf(value: unknown, freeze = false): number {
  if (typeof value !== "object" || value === null) return 0;
  let inner = 0;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) inner = Math.max(inner, nestingOf(value[i], freeze));
  } else {
    for (const key in value)
      if (hasOwn.call(value, key))
        inner = Math.max(inner, nestingOf((value as Record<string, unknown>)[key], freeze));
  }
  if (freeze) Object.freeze(value);
  return inner + 1;
}

/** `JSON.parse(text)` deep-frozen, with its nesting (counted by the freezing walk). */
export function parseFrozenCounted(text: string): { value: unknown; nesting: number } {
  const value: unknown = JSON.parse(text);
  return { value, nesting: nestingOf(value, true) };
}
