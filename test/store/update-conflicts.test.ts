/**
 * checkUpdate's overlapping-path rule (shared/store/rules.ts), which the store's node runs on every
 * generic update: it looks each path up once in a tree of the earlier ones, segment by segment.
 * Over random updates of awkward paths (empty segments, leading and trailing dots, `$rename`
 * targets), and over updates as long and as wide as the store's bounds let through, it must refuse
 * exactly what the rule's plain statement refuses, naming the same paths: a path clashes with one
 * already in the update that is the same, a prefix of it up to a dot, or inside it.
 */
import { StoreRuleError } from "../../shared/errors";
import { checkUpdate } from "../../shared/store/rules";
import type { Update } from "../../shared/store/types";
import { int, pick, seeded, type Rand } from "../support/random-docs";

/** The rule as MongoDB states it, part by part: the clash `path` meets among `earlier`, if any. */
function clashOf(path: string, earlier: string[]): string | undefined {
  if (earlier.includes(path)) return path;
  const parts = path.split(".");
  for (let i = 1; i < parts.length; i++) {
    const prefix = parts.slice(0, i).join(".");
    if (earlier.includes(prefix)) return prefix;
  }
  return earlier.some((p) => p.startsWith(`${path}.`)) ? path : undefined;
}

/** What the rule refuses in `update`, in the order the checker meets its paths (undefined: nothing). */
function expected(update: Record<string, Record<string, unknown>>): string | undefined {
  const earlier: string[] = [];
  for (const [op, fields] of Object.entries(update))
    for (const [path, operand] of Object.entries(fields))
      for (const target of op === "$rename" && typeof operand === "string" ? [path, operand] : [path]) {
        const clash = clashOf(target, earlier);
        if (clash !== undefined) return `Updating the path '${target}' would create a conflict at '${clash}'`;
        earlier.push(target);
      }
  return undefined;
}

const SEGMENTS = ["a", "b", "ab", "", "tasks", "t1", "t10"];
const OPS = ["$set", "$unset", "$inc", "$rename", "$min"];

function randomPath(r: Rand): string {
  const parts = Array.from({ length: int(r, 1, 4) }, () => pick(r, SEGMENTS));
  return parts.join(".") || "a";
}

/** checkUpdate's answer to `update`: the refusal's message, or undefined when it passes. */
function refusalOf(update: Update): string | undefined {
  try {
    checkUpdate(update);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(StoreRuleError);
    expect((err as StoreRuleError).codeName).toBe("ConflictingUpdateOperators");
    return (err as Error).message;
  }
}

test("every overlap refused, and only those, naming the same paths as the rule part by part", () => {
  const r = seeded(3202);
  let refused = 0;
  for (let n = 0; n < 5000; n++) {
    const update: Record<string, Record<string, unknown>> = {};
    for (let o = int(r, 1, 3); o > 0; o--) {
      const op = pick(r, OPS);
      const fields: Record<string, unknown> = (update[op] ??= {});
      for (let f = int(r, 1, 4); f > 0; f--)
        fields[randomPath(r)] = op === "$rename" ? randomPath(r) : op === "$unset" ? "" : 1;
    }
    const want = expected(update);
    expect({ update, got: refusalOf(update as Update) }).toEqual({ update, got: want });
    if (want) refused++;
  }
  // Both answers met often enough to mean something.
  expect(refused).toBeGreaterThan(1000);
  expect(refused).toBeLessThan(4000);
});

test("the empty path and empty segments: the same answers as the rule part by part", () => {
  const cases: Record<string, Record<string, unknown>>[] = [
    { $set: { "": 1, ".a": 1 } },
    { $set: { ".a": 1, "": 1 } },
    { $set: { "": 1, ".": 1 } },
    { $set: { ".": 1, "": 1 } },
    { $set: { "": 1 }, $unset: { "": "" } },
    { $set: { "": 1, a: 1 } },
    { $set: { "a.": 1, a: 1 } },
    { $set: { "a..b": 1, "a.": 1 } },
    { $set: { "a..b": 1, "a..c": 1, "a.b": 1 } },
    { $rename: { a: "" }, $set: { ".x": 1 } },
  ];
  for (const update of cases) expect(refusalOf(update as Update)).toBe(expected(update));
  // Both answers met.
  expect(cases.filter((update) => expected(update) !== undefined)).toHaveLength(8);
});

// The rule part by part costs the square of these sizes; the checker's own cost grows with them
// linearly (bench/store-update-check.bench.ts).
test("a path of 2,000 segments and an update of 1,000 paths: the same answers as the rule part by part", () => {
  const long = Array.from({ length: 2_000 }, (_, i) => `s${i % 7}`).join(".");
  const prefix = long.slice(0, long.indexOf(".", 3_000));
  const wide: Record<string, number> = {};
  for (let i = 0; i < 1_000; i++) wide[`tasks.t${i}.status`] = 1;
  const cases: Record<string, Record<string, unknown>>[] = [
    { $set: { [long]: 1 } },
    { $set: { [prefix]: 1 }, $unset: { [long]: "" } },
    { $set: { [long]: 1 }, $inc: { [prefix]: 1 } },
    { $set: { [long]: 1, [`${long}x`]: 1, [`${prefix}.y`]: 1 } },
    { $set: wide },
    { $set: wide, $inc: { "tasks.t999": 1 } },
    { $set: wide, $unset: { "tasks.t500.status.at": "" } },
    { $set: { ...wide, "tasks.t1000": 1 } },
  ];
  for (const update of cases) expect(refusalOf(update as Update)).toBe(expected(update));
  // Both answers met.
  expect(cases.filter((update) => expected(update) !== undefined)).toHaveLength(4);
});
