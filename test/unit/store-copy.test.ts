/**
 * The embedded store's copy of stored documents (copyDoc) answers what a JSON round trip answers,
 * key order and a "__proto__" member included, and shares no object or array with its source; the
 * engine's copy of a job (copyPlain, the same walk) answers what structuredClone answers.
 */
import { copyPlain } from "../../shared/objects";
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
