/**
 * boundsViolation answers from a fast walk (no paths) and names the place with a second walk only
 * when a limit is passed: both must agree with a plain recursive measure of depth and values.
 */
import { boundsViolation } from "../../shared/input-bounds";

function measure(value: unknown, depth = 1): { depth: number; nodes: number } {
  if (value === null || typeof value !== "object") return { depth: 0, nodes: 0 };
  let deepest = depth;
  let nodes = 0;
  for (const child of Object.values(value)) {
    nodes++;
    const inner = measure(child, depth + 1);
    deepest = Math.max(deepest, inner.depth);
    nodes += inner.nodes;
  }
  return { depth: deepest, nodes };
}

let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;

function randomValue(depth: number): unknown {
  const r = random();
  if (depth > 6 || r < 0.3) return r < 0.1 ? null : Math.floor(r * 100);
  if (r < 0.6) return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(depth + 1));
  return Object.fromEntries(
    Array.from({ length: Math.floor(random() * 4) }, (_, i) => [`k${i}`, randomValue(depth + 1)]),
  );
}

test("a violation is found exactly when the value is deeper or larger than the limits, and named", () => {
  for (let i = 0; i < 3000; i++) {
    const value = { root: randomValue(0) };
    const limits = { maxDepth: 1 + Math.floor(random() * 6), maxNodes: 1 + Math.floor(random() * 30) };
    const { depth, nodes } = measure(value);
    const violation = boundsViolation(value, limits);
    expect(violation !== null).toBe(depth > limits.maxDepth || nodes > limits.maxNodes);
    if (violation) expect(["depth", "nodes"]).toContain(violation.kind);
  }
});

test("the place of a depth violation is named by its path", () => {
  expect(boundsViolation({ a: { b: { c: {} } } }, { maxDepth: 3, maxNodes: 100 })).toEqual({
    kind: "depth",
    path: "a.b.c",
    limit: 3,
  });
});

test("an array's items are counted as JSON writes them: holes too, named members not", () => {
  const limits = { maxDepth: 10, maxNodes: 10 };
  // JSON writes a hole as null: 50 values on the bus and in the store.
  expect(boundsViolation({ a: new Array(50) }, limits)).toEqual({ kind: "nodes", path: "a", limit: 10 });
  expect(boundsViolation({ a: new Array(9) }, limits)).toBeNull();
  // JSON drops an array's named member; counting it would refuse what the bus carries fine.
  const named = Object.assign([1, 2], { extra: Array.from({ length: 50 }, () => 0) });
  expect(boundsViolation({ a: named }, limits)).toBeNull();
  expect(JSON.stringify({ a: named })).toBe('{"a":[1,2]}');
});

test("a violation inside an array is named by the item's index", () => {
  expect(boundsViolation({ a: [0, { b: { c: {} } }] }, { maxDepth: 4, maxNodes: 100 })).toEqual({
    kind: "depth",
    path: "a.1.b.c",
    limit: 4,
  });
});

test("a member inherited from Object.prototype is neither counted nor walked", () => {
  const proto = Object.prototype as Record<string, unknown>;
  proto.inherited = { deep: { deeper: { deepest: {} } } };
  try {
    const value = { a: { b: 1 }, c: [{ d: 2 }] };
    // a, b, c, c's item, d: five values, three levels.
    expect(boundsViolation(value, { maxDepth: 3, maxNodes: 5 })).toBeNull();
    expect(boundsViolation(value, { maxDepth: 3, maxNodes: 4 })).toEqual({
      kind: "nodes",
      path: "a",
      limit: 4,
    });
  } finally {
    delete proto.inherited;
  }
});
