/**
 * The embedded store measures nesting on JSON text (depth.ts); it must agree exactly with the
 * object walk (boundsViolation) it replaces, strings holding brackets, quotes and escapes included.
 */
import { boundsViolation } from "../../shared/input-bounds";
import { jsonNesting } from "../../shared/store/embedded/depth";
import { int, pick, randomValue, seeded } from "../support/random-docs";

/** The nesting boundsViolation sees: the smallest maxDepth it accepts. */
function walkedNesting(value: unknown): number {
  let depth = 0;
  while (boundsViolation(value, { maxDepth: depth, maxNodes: Number.MAX_SAFE_INTEGER })) depth++;
  return depth;
}

const TRICKY = ['{"', "[[", "}]", '\\"', "\\", '\\\\"{', "é{", ""];

test("JSON nesting equals the walked nesting, on random values and tricky strings", () => {
  const r = seeded(42);
  for (let i = 0; i < 5_000; i++) {
    let value = randomValue(r);
    for (let wrap = int(r, 0, 3); wrap > 0; wrap--)
      value = r() < 0.5 ? [pick(r, TRICKY), value] : { [pick(r, TRICKY)]: value, s: pick(r, TRICKY) };
    expect(jsonNesting(JSON.stringify(value))).toBe(walkedNesting(value));
  }
});

test("targeted: scalars, empty containers, deep chains", () => {
  expect(jsonNesting('"a{["')).toBe(0);
  expect(jsonNesting("1")).toBe(0);
  expect(jsonNesting("{}")).toBe(1);
  expect(jsonNesting('[{"a":[]},{}]')).toBe(3);
  let deep: unknown = {};
  for (let i = 0; i < 300; i++) deep = { 'x\\"}': deep };
  expect(jsonNesting(JSON.stringify(deep))).toBe(301);
});
