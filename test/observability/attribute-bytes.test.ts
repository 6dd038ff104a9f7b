/**
 * The kept bytes of span attributes (shared/observability/attribute-bytes.ts) and the dotted names
 * of nested tags (shared/observability/moleculer-span.ts): both bounded, and neither holds the
 * writer's chunk. The bytes they give are checked against the SDK's in span-bytes.test.ts.
 */
import {
  AttributeBytes,
  MAX_BYTES,
  MAX_NAMES,
  MAX_POOR_FILLS,
  MAX_VALUES,
} from "../../shared/observability/attribute-bytes";
import { flattenTags } from "../../shared/observability/moleculer-span";

const chunk = Buffer.from("0123456789");

test("a value's bytes are a copy of the written ones, not a view of the chunk", () => {
  const bytes = new AttributeBytes();
  const kept = bytes.of("nodeID")!;
  bytes.keep("nodeID", kept, "node-1", chunk, 2, 6);
  const copy = kept.values.get("node-1")!;
  expect(Buffer.from(copy).toString()).toBe("2345");
  expect(copy.buffer).not.toBe(chunk.buffer);
  expect(copy.byteLength).toBe(4);
});

test("fractions, unsafe integers and long attributes are not kept; strings, booleans and integers are, by type", () => {
  const bytes = new AttributeBytes();
  const kept = bytes.of("v")!;
  for (const value of [1.5, 2 ** 60, NaN, -Infinity]) bytes.keep("v", kept, value, chunk, 0, 1);
  const long = Buffer.alloc(MAX_BYTES + 1);
  bytes.keep("v", kept, "x".repeat(MAX_BYTES), long, 0, MAX_BYTES + 1);
  expect(kept.values.size).toBe(0);
  bytes.keep("v", kept, "x".repeat(MAX_BYTES - 3), long, 0, MAX_BYTES);
  expect(kept.values.size).toBe(1);
  kept.values.clear();
  for (const value of [1, "1", true, "true", -7]) bytes.keep("v", kept, value, chunk, 0, 1);
  expect([...kept.values.keys()]).toEqual([1, "1", true, "true", -7]);
});

test("a name's values are bounded; a name whose values do not repeat stops being kept", () => {
  const bytes = new AttributeBytes();
  const kept = bytes.of("requestID")!;
  let fills = 0;
  for (let i = 0; bytes.of("requestID") !== null; i++) {
    expect(kept.values.size).toBeLessThanOrEqual(MAX_VALUES);
    if (kept.values.size === MAX_VALUES) fills++;
    bytes.keep("requestID", kept, `request-${i}`, chunk, 0, 1);
    expect(i).toBeLessThan(MAX_VALUES * (MAX_POOR_FILLS + 1));
  }
  expect(fills).toBe(MAX_POOR_FILLS);
  // A name whose values are found again keeps them, fill after fill.
  const level = bytes.of("callingLevel")!;
  for (let fill = 0; fill < MAX_POOR_FILLS * 2; fill++)
    for (let i = 0; i <= MAX_VALUES; i++) {
      bytes.keep("callingLevel", level, fill * 1000 + i, chunk, 0, 1);
      level.hits += 2; // as the writer counts a value found
    }
  expect(bytes.of("callingLevel")).toBe(level);
});

test("at most MAX_NAMES names are kept: past it, every name starts again", () => {
  const bytes = new AttributeBytes();
  const first = bytes.of("name-0")!;
  bytes.keep("name-0", first, "a", chunk, 0, 1);
  for (let i = 1; i < MAX_NAMES; i++) bytes.of(`name-${i}`);
  expect(bytes.of("name-0")).toBe(first);
  bytes.of(`name-${MAX_NAMES}`);
  const again = bytes.of("name-0")!;
  expect(again).not.toBe(first);
  expect(again.values.size).toBe(0);
});

test("nested tags' dotted names, the same past the memo's bound", () => {
  const names = (tags: Record<string, unknown>) => {
    const out: string[] = [];
    flattenTags(tags, (name) => out.push(name) > 0);
    return out;
  };
  const wide = Object.fromEntries(
    Array.from({ length: 1500 }, (_, i) => [`k${i}`, { x: i, y: { z: true } }]),
  );
  const expected = Array.from({ length: 1500 }, (_, i) => [`k${i}.x`, `k${i}.y.z`]).flat();
  expect(names(wide)).toEqual(expected);
  expect(names(wide)).toEqual(expected);
  expect(names({ action: { name: "a", rawName: "b" }, options: { timeout: 1 } })).toEqual([
    "action.name",
    "action.rawName",
    "options.timeout",
  ]);
});
