/**
 * The embedded store's copy of stored documents (copyDoc) answers what a JSON round trip answers,
 * key order and a "__proto__" member included, and shares no object or array with its source; the
 * engine's copy of a job (copyPlain, the same walk) answers what structuredClone answers.
 */
import { copyPlain, deepFreeze as freezeAll } from "../../shared/objects";
import { copyDoc } from "../../shared/store/embedded/mongo";
import type { Doc } from "../../shared/store/types";
import { deepFreeze, randomDoc, seeded } from "../support/random-docs";

function objectsOf(value: unknown, out = new Set<object>()): Set<object> {
  if (value && typeof value === "object") {
    out.add(value);
    Object.values(value).forEach((child) => objectsOf(child, out));
  }
  return out;
}

test("copies equal the JSON round trip and share nothing with the stored document", () => {
  const r = seeded(7);
  for (let i = 0; i < 2_000; i++) {
    const stored = deepFreeze(JSON.parse(JSON.stringify(randomDoc(r, `d${i}`)))) as Doc;
    const copy = copyDoc(stored);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(stored));
    expect(copy).toStrictEqual(JSON.parse(JSON.stringify(stored)));
    const mine = objectsOf(copy);
    for (const shared of objectsOf(stored)) expect(mine.has(shared)).toBe(false);
  }
});

test('a "__proto__" member stays a member, never the prototype', () => {
  const stored = JSON.parse('{"_id":"p","__proto__":{"polluted":true},"a":[{"__proto__":1}]}');
  const copy = copyDoc(stored);
  expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  expect(Object.keys(copy)).toEqual(["_id", "__proto__", "a"]);
  expect(JSON.stringify(copy)).toBe(JSON.stringify(stored));
  expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
});

test("copyPlain answers what structuredClone does on plain data, undefined members and Dates included", () => {
  const r = seeded(11);
  for (let i = 0; i < 1_000; i++) {
    const value: Record<string, unknown> = {
      ...randomDoc(r, `d${i}`),
      gone: undefined,
      list: [undefined, 1],
    };
    if (i % 10 === 0) value.when = new Date(i);
    const copy = copyPlain(value);
    expect(copy).toStrictEqual(structuredClone(value));
    expect(Object.keys(copy)).toEqual(Object.keys(value));
    if (i % 10 === 0) expect(copy.when).not.toBe(value.when);
  }
});

/**
 * copyPlain and deepFreeze walk members with for-in and Object.prototype.hasOwnProperty (no array
 * of keys per object): for-in also lists enumerable members inherited from a prototype, which the
 * check must leave out, as Object.keys did.
 */
test("copyPlain and deepFreeze take own members only, with a member inherited from Object.prototype", () => {
  const inherited = { x: 1 };
  Object.defineProperty(Object.prototype, "inheritedForIn", {
    value: inherited,
    enumerable: true,
    configurable: true,
    writable: true,
  });
  try {
    const r = seeded(13);
    for (let i = 0; i < 200; i++) {
      const value = randomDoc(r, `d${i}`) as Record<string, unknown>;
      const copy = copyPlain(value);
      expect(Object.keys(copy)).toEqual(Object.keys(value));
      expect(Object.hasOwn(copy, "inheritedForIn")).toBe(false);
      expect(JSON.stringify(copy)).toBe(JSON.stringify(value));
    }
    const frozen = freezeAll({ a: { b: [{ c: 1 }] } });
    expect(Object.isFrozen(frozen.a.b[0])).toBe(true);
    expect(Object.isFrozen(inherited)).toBe(false);
  } finally {
    delete (Object.prototype as Record<string, unknown>).inheritedForIn;
  }
});
