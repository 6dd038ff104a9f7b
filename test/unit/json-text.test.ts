/**
 * jsonTextOf (shared/frozen-json.ts), the gateway's answer encoder, writes exactly what
 * JSON.stringify writes, whether or not parts of the value carry kept texts (keepJsonText), and a
 * kept text is only taken for a frozen value.
 */
import { deepFreeze } from "../../shared/objects";
import { jsonTextOf, keepJsonText, keptJsonText, parseKeptInTurns } from "../../shared/frozen-json";
import { deepFreezeInTurns, FREEZE_SLICE } from "../../shared/objects";
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

  test("arrays of answers with kept members (a read-only node answer) are written as JSON.stringify writes them", () => {
    const r = seeded(78);
    let spliced = 0;
    for (let i = 0; i < 1500; i++) {
      const value: unknown[] = [];
      for (let e = int(r, 0, 4); e > 0; e--) {
        const kind = int(r, 0, 5);
        if (kind === 0) value.push(randomMember(r, r() < 0.5));
        else {
          const record: Record<string, unknown> = {};
          for (let m = int(r, 0, 4); m > 0; m--)
            record[pick(r, ["spec", "_id", "path", 'q"', "é"])] = randomMember(r, r() < 0.6);
          value.push(r() < 0.2 ? deepFreeze(record) : record);
        }
      }
      if (r() < 0.1) value.length += 2; // holes: JSON writes them as null
      if (r() < 0.3 && Object.isFrozen(deepFreeze(value))) keepJsonText(value);
      expect(jsonTextOf(value)).toBe(JSON.stringify(value));
      if (value.some((v) => v && typeof v === "object" && Object.values(v).some((m) => keptJsonText(m))))
        spliced++;
    }
    expect(spliced).toBeGreaterThan(300);
  });

  test("parseKeptInTurns: the value frozen, its own text kept and spliced into the answers that hold it", async () => {
    const text = JSON.stringify([{ words: [[{ type: "regex", value: "Gi\\d+" }]], children: [] }]);
    const spec = (await parseKeptInTurns(text)) as { words: unknown[] }[];
    expect(Object.isFrozen(spec[0].words)).toBe(true);
    expect(keptJsonText(spec)).toBe(text);
    const node = { _id: "n1", spec, config: "interface {/Gi\\d+/}" };
    expect(jsonTextOf(node)).toBe(JSON.stringify(node));
    expect(jsonTextOf([node])).toBe(JSON.stringify([node]));
    // Two levels down too: a node read's `effective.spec`, with or without its own spec kept.
    const read = { ...node, effective: { spec, config: "x", variables: { a: "1" } } };
    expect(jsonTextOf(read)).toBe(JSON.stringify(read));
    const restarted = { _id: "n1", spec: [], effective: { spec, variables: {} } };
    expect(jsonTextOf(restarted)).toBe(JSON.stringify(restarted));
    // Not three: deeper kept texts are serialized as JSON.stringify does.
    const deep = { a: { b: { spec } } };
    expect(jsonTextOf(deep)).toBe(JSON.stringify(deep));
    // A text kept must be the value's: a frozen value cannot drift from it.
    expect(() => (spec as unknown[]).push(1)).toThrow(TypeError);
    expect(await parseKeptInTurns("7")).toBe(7);
  });

  test("parseKeptInTurns of a spec at its bounds freezes it a slice a turn: other work runs between, and all of it ends frozen", async () => {
    // 10,000 lines of 4 objects each: some ten slices of FREEZE_SLICE objects.
    const lines = Array.from({ length: 10_000 }, (_, i) => ({
      words: [[{ type: "regex", value: `Gi${i}` }]],
      children: [],
    }));
    const text = JSON.stringify(lines);
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const spec = (await parseKeptInTurns(text)) as typeof lines;
    ticking = false;
    // One turn for the parse, then one a slice: the ticker ran beside each (one held turn: 1 or 2).
    expect(turns).toBeGreaterThanOrEqual(Math.floor((lines.length * 4) / FREEZE_SLICE));
    const unfrozen: unknown[] = [];
    const walk = (v: unknown) => {
      if (typeof v !== "object" || v === null) return;
      if (!Object.isFrozen(v)) unfrozen.push(v);
      Object.values(v).forEach(walk);
    };
    walk(spec);
    expect(unfrozen).toEqual([]);
    expect(keptJsonText(spec)).toBe(text);
  });

  test("deepFreezeInTurns freezes what deepFreeze does, shared and nested members included", async () => {
    const shared = { n: [1, { m: 2 }] };
    const value = { a: shared, b: [shared, { c: { d: [] } }] };
    expect(await deepFreezeInTurns(value, 2)).toBe(value);
    for (const v of [value, value.a, value.a.n, value.a.n[1], value.b, value.b[1], (value.b[1] as any).c.d])
      expect(Object.isFrozen(v)).toBe(true);
    expect(await deepFreezeInTurns(7)).toBe(7);
  });

  test("only frozen values have their text kept", () => {
    expect(() => keepJsonText([{ a: 1 }])).toThrow(TypeError);
  });
});
