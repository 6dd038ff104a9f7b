/**
 * A remote versioned write's `$set`, each object it sets over an object the caller holds sent as
 * the members that changed (RemoteCollection.updateVersioned).
 *
 * Why: over NATS every task transition's compare-and-set carried its tasks whole (about 400 bytes
 * each, most of it members the transition left alone: type, app, name, variables), and the
 * store's node parsed, bounds-checked and applied them, then logged only the members that changed
 * (embedded/fast-update.ts pushMembers). The caller knows what it changed: it holds the document
 * at `version` (VersionedWriteOptions.before).
 *
 * What must keep holding:
 * - The stored document is the one the whole values make, member order included. Member sets
 *   follow memberChanges' rule (the members kept are in the old order, the new ones after them),
 *   and the store's node applies a write's paths in the order given, a new member after the
 *   others. MongoDB places the new fields of one update in its own (lexicographic) order, so only
 *   the remote store narrows its writes.
 * - `before` is what is stored at `version`: a job's tasks are written only by versioned writes
 *   (each moves the version), and the engine passes it only when none of the write's values were
 *   moved out of the job (run/jobs.ts planSpill: the stored values are then the ones it holds).
 * Test: test/unit/member-writes.test.ts.
 */
import { isPlainObject as isPlain } from "../objects";
import { memberChanges, plainMember } from "./embedded/fast-update";
import type { Doc } from "./types";

export interface VersionedChange {
  set: Record<string, unknown>;
  unset?: Record<string, "">;
}

/**
 * `set` and `unset` with each plain object set over a plain object of `before` (at the same
 * path) as `path.member` sets and unsets of the members that changed, where memberChanges allows
 * it (no more change than stay) and at least one member is set; every other path as it was, in the
 * order given.
 */
export function memberWrites(
  set: Record<string, unknown>,
  unset: Record<string, ""> | undefined,
  before: Doc,
): VersionedChange {
  let narrowed: Record<string, unknown> | undefined;
  /** The caller's `unset` with the dropped members beside it, copied once a member is dropped. */
  let dropping: Record<string, ""> | undefined;
  const paths = Object.keys(set);
  for (let i = 0; i < paths.length; i++) {
    const path = paths[i];
    const next = set[path];
    const members = isPlain(next) ? memberChanges(valueAt(before, path), next) : undefined;
    // A path narrowed to unsets alone could leave `$set` empty, which MongoDB's rules refuse.
    if (
      !members ||
      members.changed.length === 0 ||
      !members.dropped.every(plainMember) ||
      !members.changed.every((at) => plainMember(members.keys[at]))
    ) {
      if (narrowed) narrowed[path] = next;
      continue;
    }
    if (!narrowed) {
      narrowed = {};
      for (let j = 0; j < i; j++) narrowed[paths[j]] = set[paths[j]];
    }
    for (const at of members.changed) narrowed[`${path}.${members.keys[at]}`] = members.values[at];
    if (members.dropped.length > 0) {
      dropping ??= { ...unset };
      for (const key of members.dropped) dropping[`${path}.${key}`] = "";
    }
  }
  const unsetOut = dropping ?? unset;
  return narrowed ? { set: narrowed, ...(unsetOut && { unset: unsetOut }) } : { set, unset };
}

/** The value at a dotted `path` of `doc` through its own plain objects; undefined where there is none. */
function valueAt(doc: Doc, path: string): unknown {
  let node: unknown = doc;
  for (const part of path.split(".")) {
    if (!isPlain(node) || !Object.hasOwn(node, part)) return undefined;
    node = node[part];
  }
  return node;
}
