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

/**
 * Object.prototype.hasOwnProperty, for walks that take an object's own members with for-in: V8
 * compiles `for (key in o) if (hasOwn.call(o, key))` to a check of the object's enumeration cache,
 * with no array of keys made (Object.keys makes one per object walked, about a tenth of what the
 * engine allocated per transition), and about a fifth fewer instructions for a copy of a job
 * (callgrind). `Object.hasOwn` is not compiled that way. The check drops what for-in adds to
 * Object.keys: members inherited from a prototype (test/unit/store-copy.test.ts).
 *
 * Only when V8 knows the function called is hasOwnProperty: a module that imports it must call it
 * through a module-level const of its own (`const hasOwn = sharedHasOwn`). An imported binding
 * compiles to a load from the exporting module's `exports` object, which V8 does not fold to a
 * constant, and every check is then a call of the builtin (callgrind: about 140 instructions a
 * member; 180 calls a transition in the engine's job write, engine-1p7). This module's own walks
 * use `ownProperty` for the same reason (a use of `hasOwn` here compiles to `exports.hasOwn`).
 */
const ownProperty = Object.prototype.hasOwnProperty;
export const hasOwn = ownProperty;

/**
 * A deep copy of plain data (objects, arrays, scalars; undefined members kept), as structuredClone
 * gives, several times faster on documents: the store copies every answer and the engine every
 * job it writes. Any other object (a Date, a Map) is handed to structuredClone. A "__proto__"
 * member (JSON.parse makes one) stays a member. Recursive: callers bound the nesting (the store
 * at 200 levels).
 */
export function copyPlain<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyPlain(value[i]);
    return out as T;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key in value) {
    if (!ownProperty.call(value, key)) continue;
    const child = copyPlain((value as Record<string, unknown>)[key]);
    // setOwn's rule, inline: this loop runs for every member of every copied document.
    if (key === "__proto__") setOwn(out, key, child);
    else out[key] = child;
  }
  return out as T;
}

/**
 * Freezes `value` and everything inside it, for data that is shared and must never change (the
 * engine's remembered jobs): a write into it throws (modules are strict) instead of changing every
 * holder at once. Already frozen objects are taken as frozen all through.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const key in value)
    if (ownProperty.call(value, key)) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}

/** The objects deepFreezeInTurns freezes in one turn of the event loop (a few ms of work). */
export const FREEZE_SLICE = 4096;

/**
 * deepFreeze over as many turns of the event loop as it takes, FREEZE_SLICE objects a turn, for a
 * value too large to freeze in one (a node's spec at its bounds: some 40,000 objects, 10-30 ms on
 * the test machines and more beside other load). Only for a value nobody else can reach until
 * this settles: between turns it is partly frozen.
 */
export async function deepFreezeInTurns<T>(value: T, slice = FREEZE_SLICE): Promise<T> {
  const stack: unknown[] = [value];
  let frozen = 0;
  while (stack.length > 0) {
    const next = stack.pop();
    if (typeof next !== "object" || next === null || Object.isFrozen(next)) continue;
    Object.freeze(next);
    for (const key in next)
      if (ownProperty.call(next, key)) stack.push((next as Record<string, unknown>)[key]);
    if (++frozen % slice === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  return value;
}
