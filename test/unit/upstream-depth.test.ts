/**
 * The upstream JSON depth bound (services/adapters/orchestrator/proxy.ts, nestedDeeperThan): the
 * count of `{` and `[` that lets most answers skip the pass must never let a deep text through,
 * nor refuse a shallow one that merely holds many brackets (in strings, or side by side).
 */
import { nestedDeeperThan } from "../../services/adapters/orchestrator/proxy";

const nested = (levels: number, open = "[", close = "]") => open.repeat(levels) + close.repeat(levels);

test("at the limit passes, one level past it is refused, with [ and { mixed", () => {
  expect(nestedDeeperThan(nested(64), 64)).toBe(false);
  expect(nestedDeeperThan(nested(65), 64)).toBe(true);
  const mixed = (levels: number) => '{"a":'.repeat(levels) + "[" + "1" + "]" + "}".repeat(levels);
  expect(nestedDeeperThan(mixed(63), 64)).toBe(false);
  expect(nestedDeeperThan(mixed(64), 64)).toBe(true);
});

test("many brackets side by side or inside strings are shallow: the full pass decides", () => {
  const wide = JSON.stringify(Array.from({ length: 500 }, (_, i) => ({ id: i, tags: [i] })));
  expect(nestedDeeperThan(wide, 64)).toBe(false);
  const inStrings = JSON.stringify({ note: "[".repeat(200) + "{".repeat(200) });
  expect(nestedDeeperThan(inStrings, 64)).toBe(false);
  // Brackets in a string do not hide a deep value beside them.
  expect(nestedDeeperThan(`[${JSON.stringify("{".repeat(100))},${nested(70)}]`, 64)).toBe(true);
});

test("an answer with few openers is never refused, whatever its size", () => {
  const flat = JSON.stringify({ items: "x".repeat(100_000), more: [1, 2, 3] });
  expect(nestedDeeperThan(flat, 64)).toBe(false);
  expect(nestedDeeperThan("", 64)).toBe(false);
  expect(nestedDeeperThan("plain text", 0)).toBe(false);
  expect(nestedDeeperThan("[]", 0)).toBe(true);
});
