/** Small facts about JSON values, defined once. */

/** A JSON object: not null, not an array. `T` is what its values are known to be. */
export function isPlainObject<T = unknown>(v: unknown): v is Record<string, T> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Sets `obj[key] = value` as an own data member whatever the key: with a key from data,
 * `obj["__proto__"] = v` would set the object's prototype instead (and so change what every
 * lookup on it finds). One home for writing data-named keys.
 */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  if (key === "__proto__")
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}
