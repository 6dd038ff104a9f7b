/** Small facts about JSON values, defined once. */

/** A JSON object: not null, not an array. `T` is what its values are known to be. */
export function isPlainObject<T = unknown>(v: unknown): v is Record<string, T> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
