/**
 * The names and bounds of a golden config tree, in one place for every way a tree grows: create
 * (a version, a node at a time) and import (a whole tree at once) call the same checks, so an
 * import cannot hold what create refuses (docs/configuration-manager.md#golden-config-trees).
 */
import { invalidField } from "../../shared/errors";

export const TREE_LIMITS = {
  versions: 200,
  nodesPerVersion: 2000,
} as const;

/**
 * Names JavaScript objects treat as their own machinery: a version or variable named so would be
 * a key that reads and merges lose (a version `__proto__` made its nodes vanish from reads).
 */
export const RESERVED_NAMES: readonly string[] = ["__proto__", "constructor", "prototype"];

/** 400 naming `field` when `name` is a reserved name. */
export function checkNotReserved(name: string, field: string): void {
  if (RESERVED_NAMES.includes(name))
    throw invalidField(
      field,
      `'${name}' is reserved: names cannot be ${RESERVED_NAMES.join(", ")}.`,
      "reserved",
    );
}

/** A node path whose segments are not reserved (its shape is the contract's). */
export function checkNodePathNames(path: string, field: string): void {
  for (const segment of path.split("/")) checkNotReserved(segment, field);
}

/**
 * A tree holding `versions` versions, and `nodes` nodes in the version named (the version's node
 * count after the write), is within bounds; 400 naming `field` otherwise.
 */
export function checkTreeBounds(
  size: { versions: number; nodes?: { version: string; count: number } },
  fields: { versions: string; nodes: string },
): void {
  if (size.versions > TREE_LIMITS.versions)
    throw invalidField(fields.versions, `A tree holds at most ${TREE_LIMITS.versions} versions.`, "count");
  if (size.nodes && size.nodes.count > TREE_LIMITS.nodesPerVersion)
    throw invalidField(
      fields.nodes,
      `A version holds at most ${TREE_LIMITS.nodesPerVersion} nodes ('${size.nodes.version}' would hold ${size.nodes.count}).`,
      "count",
    );
}
