/**
 * The text a keyed call's params are fingerprinted by (shared/idempotency.ts stableJson): written
 * with loops for speed, held here to the map/filter/join form it replaced on random JSON-like
 * values, and to its two promises: member order does not count, anything else does.
 */
import { stableJson } from "../../shared/idempotency";

/** The form it replaced, as it was. */
function reference(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(reference).join(",")}]`;
  if (value && typeof value === "object")
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${reference((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(value) ?? "null";
}

/** A small deterministic generator (mulberry32): the same values every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function value(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * (depth > 3 ? 6 : 8));
  const key = () => ["a", "b", "name", "é", "__proto__", "", "1", "10"][Math.floor(next() * 8)];
  switch (pick) {
    case 0:
      return null;
    case 1:
      return undefined;
    case 2:
      return next() < 0.5;
    case 3:
      return Math.floor(next() * 2000) - 1000 + (next() < 0.3 ? 0.5 : 0);
    case 4:
      return ["", "x", 'quote"', "line\n", "ü"][Math.floor(next() * 5)];
    case 5:
      return () => 1;
    case 6:
      return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth + 1));
    default: {
      const out: Record<string, unknown> = {};
      for (let i = Math.floor(next() * 5); i > 0; i--)
        Object.defineProperty(out, key(), {
          value: value(next, depth + 1),
          enumerable: true,
          configurable: true,
        });
      return out;
    }
  }
}

test("the same text as the form it replaced, on 5,000 random values", () => {
  const next = random(26);
  for (let i = 0; i < 5000; i++) {
    const v = value(next, 0);
    expect(stableJson(v)).toBe(reference(v));
  }
});

test("member order does not count; values, members and nesting do", () => {
  const body = { name: "f", children: [{ b: 1, a: 2 }], groups: [] };
  expect(stableJson({ groups: [], children: [{ a: 2, b: 1 }], name: "f" })).toBe(stableJson(body));
  expect(stableJson({ ...body, name: "g" })).not.toBe(stableJson(body));
  expect(stableJson({ ...body, extra: 0 })).not.toBe(stableJson(body));
  expect(stableJson({ ...body, children: [{ b: 1, a: 2 }, null] })).not.toBe(stableJson(body));
  expect(stableJson({ ...body, children: [[{ b: 1, a: 2 }]] })).not.toBe(stableJson(body));
  // An undefined member is no member, as in JSON.
  expect(stableJson({ ...body, gone: undefined })).toBe(stableJson(body));
});
