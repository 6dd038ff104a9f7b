/**
 * jsonTextOf (shared/frozen-json.ts), the gateway's answer encoder, writes exactly what
 * JSON.stringify writes, whether or not parts of the value carry kept texts (keepJsonText), and a
 * kept text is only taken for a frozen value.
 */
import { deepFreeze } from "../../shared/objects";
import { jsonTextOf, keepJsonText } from "../../shared/frozen-json";
import { int, pick, randomObject, seeded, type Rand } from "../support/random-docs";

function randomMember(r: Rand, kept: boolean): unknown {
  const kind = int(r, 0, 9);
  if (kind <= 2) {
    const page = Array.from({ length: int(r, 0, 4) }, () => randomObject(r));
    if (kept) keepJsonText(deepFreeze(page));
    return page;
  }
  if (kind === 3) return undefined;
  if (kind === 4) return () => 1;
  if (kind === 5) return { toJSON: () => ({ replaced: true }) };
  if (kind === 6) return [undefined, () => 1, Symbol("s"), null, new Date(0)];
  if (kind === 7) return pick(r, ["text", 12, -0, NaN, Infinity, true, null, 'é\u2028"q"']);
  return randomObject(r);
}

describe("jsonTextOf", () => {
  test("random answers, some with kept members, are written as JSON.stringify writes them", () => {
    const r = seeded(77);
    let spliced = 0;
    for (let i = 0; i < 3000; i++) {
      const value: Record<string, unknown> = {};
      for (let m = int(r, 0, 5); m > 0; m--)
        value[pick(r, ["results", "total", "skip", 'a"b', "__proto__x", "9", "é"])] = randomMember(
          r,
          r() < 0.5,
        );
      if (r() < 0.05) Object.defineProperty(value, "__proto__", { value: [1], enumerable: true });
      const expected = JSON.stringify(value);
      expect(jsonTextOf(value)).toBe(expected);
      if (Object.values(value).some((v) => Array.isArray(v) && Object.isFrozen(v))) spliced++;
    }
    expect(spliced).toBeGreaterThan(500);
  });

  test("a kept value itself, arrays, scalars, class instances and toJSON go as JSON.stringify writes them", () => {
    const page = deepFreeze([
      { _id: "a", n: 1 },
      { _id: "b", tags: ["x"] },
    ]);
    keepJsonText(page);
    for (const value of [
      page,
      [page, 1],
      "s",
      1,
      null,
      true,
      new Date(0),
      { toJSON: () => page },
      new (class A {
        x = page;
      })(),
    ])
      expect(jsonTextOf(value)).toBe(JSON.stringify(value));
    expect(jsonTextOf(undefined)).toBe(JSON.stringify(undefined));
  });

  test("only frozen values have their text kept", () => {
    expect(() => keepJsonText([{ a: 1 }])).toThrow(TypeError);
  });
});
