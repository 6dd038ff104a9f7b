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
