/**
 * The store's depth bound (STORED_DOCUMENT_LIMITS), checked on JSON text the store writes anyway.
 * boundsViolation walks objects and builds a path string per object; on the engine's job writes
 * that walk cost more than the update itself. A scan of the text is exact and cheap; the walk runs
 * only when the scan finds a document too deep, to say where.
 */

/**
 * A value a fast update wrote at `depth` path segments below a stored document's root, as JSON;
 * `nesting`, when known, is jsonNesting(json) without the scan: 0 for a scalar, or what the
 * value's maker counted as it built the value (shared/frozen-json.ts adoptFrozen: the engine's
 * changed tasks and parts, test/unit/job-drafts.test.ts holds it to jsonNesting).
 */
export type WrittenValue = { depth: number; json?: string; nesting?: number };

/** How deeply objects and arrays nest in JSON text (`{}` is 1, a scalar 0); strings are skipped. */
export function jsonNesting(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: skip to its closing quote, stepping over escapes (\" and \\).
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) max = depth;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

/**
 * Whether a document stays within `maxDepth` once `w` is written into it, given it did before:
 * its root is level 1, so the parent of a value `depth` segments down is at level `depth`.
 */
export function writtenWithin(w: WrittenValue, maxDepth: number): boolean {
  return w.depth + (w.nesting ?? (w.json === undefined ? 0 : jsonNesting(w.json))) <= maxDepth;
}
