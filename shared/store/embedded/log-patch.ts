/**
 * A fast update's changes as the log holds them, read back, and their replay onto the document
 * they were made on (fast-update.ts makes them; the load replays them in load-replay.ts, a
 * compaction in compaction.ts). Apart from fast-update.ts on purpose: the compaction thread loads
 * this and not what making an update needs (the mongodb driver's BSON sizer, mingo), about 23 MiB
 * and a quarter of a second of a worker's start.
 */
import type { Doc } from "../types";
import { isPlainObject as isPlain } from "../../objects";
import type { StoredDoc } from "./table";

/** A PatchOp (fast-update.ts) as the log holds it, read back: the value parsed. */
export type LoggedPatchOp = ["set", string, unknown] | ["unset", string] | ["push", string, unknown];

/** Bounds the memo of logged paths. */
const LOGGED_PATHS_SIZE = 4096;

/**
 * A FastUpdate's patch, read back from the log, applied to `doc`, the document it was made on:
 * the same new image. Objects on the patched paths are copied, as fastUpdate does.
 */
export function replayPatch(doc: StoredDoc, patch: LoggedPatchOp[]): StoredDoc {
  const root: Doc = { ...doc };
  const owned = new Set<object>([root]);
  applyLogged(root, patch, (child) => {
    if (owned.has(child)) return child;
    const copy = { ...child };
    owned.add(copy);
    return copy;
  });
  return root as StoredDoc;
}

/**
 * replayPatch onto `doc` itself, for a document nobody else holds: a compaction's, parsed from its
 * files (./compaction.ts). The copies replayPatch makes were a sixth of a compaction's CPU
 * (docs/performance-rounds.md, eighteenth round); the image is the same, member order included.
 */
export function replayPatchInPlace(doc: StoredDoc, patch: LoggedPatchOp[]): StoredDoc {
  applyLogged(doc as Doc, patch, (child) => child);
  return doc;
}

/** A logged path's segments, remembered (a bounded memo): the same tasks' members come job after job. */
const loggedPaths = new Map<string, readonly string[]>();

function loggedPath(path: string): readonly string[] {
  let parts = loggedPaths.get(path);
  if (parts === undefined) {
    parts = path.split(".");
    if (loggedPaths.size >= LOGGED_PATHS_SIZE) loggedPaths.clear();
    loggedPaths.set(path, parts);
  }
  return parts;
}

/** The one replay of logged ops: `writable` answers the object to write into for a plain child. */
function applyLogged(root: Doc, patch: LoggedPatchOp[], writable: (child: Doc) => Doc): void {
  for (const [op, path, value] of patch) {
    const parts = loggedPath(path);
    let node = root;
    for (let i = 0; i < parts.length - 1; i++) {
      const part = parts[i];
      const child = Object.hasOwn(node, part) ? node[part] : undefined;
      const next = isPlain(child) ? writable(child as Doc) : writable({});
      node[part] = next;
      node = next;
    }
    const key = parts[parts.length - 1];
    if (op === "unset") delete node[key];
    else if (op === "set") node[key] = value;
    else node[key] = [...(Array.isArray(node[key]) ? (node[key] as unknown[]) : []), value];
  }
}
