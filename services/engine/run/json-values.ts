/**
 * Facts about the JSON values the engine hands the store frozen (shared/frozen-json.ts
 * adoptFrozen): whether JSON writes a value as it reads, and how deeply one nests (what the store's
 * depth bound needs, so the store need not scan its text).
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

/**
 * Whether JSON writes `value` as a walk of it reads it, at its top level: plain objects (no
 * `toJSON`), arrays, strings, booleans, null and finite numbers only (./jobs.ts jsonSame,
 * ./job-template.ts).
 */
export function jsonKnown(value: unknown): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object": {
      if (value === null || Array.isArray(value)) return true;
      const proto = Object.getPrototypeOf(value);
      return (
        (proto === Object.prototype || proto === null) &&
        typeof (value as { toJSON?: unknown }).toJSON !== "function"
      );
    }
    default:
      return false;
  }
}
