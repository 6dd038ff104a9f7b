/**
 * The targets of orchestrator adapters, kept per process for a moment, so a proxy call does not
 * read the stored adapter and unseal its credentials every time (docs/orchestrator.md#performance).
 *
 * A kept target is the stored adapter as this process last read it (its settings, `state` and
 * `generation`), so it must not outlive a change: every write to an adapter (update, stop, start,
 * restart, delete) forgets it on the replica that wrote, before that write answers, and broadcasts
 * ADAPTER_CHANGED_EVENT, which makes every other replica forget it too; a replica that missed the
 * event reads the store again within TARGET_TTL_MS (shared/kept-reads.ts says how and why).
 * Errors (404 unknown, 400 another type) are never kept: the next call asks the store again.
 */
import { KeptReads } from "../../../shared/kept-reads";
import type { StoredAdapter } from "../documents";
import type { Target } from "./target";

/** How long a replica may answer from a target it read, if it missed the change's event. */
export const TARGET_TTL_MS = 1_000;
/** More adapters than this are not kept all at once (the oldest kept goes first). */
const MAX_KEPT = 1_000;

export interface KeptTarget {
  /** The target built from the stored adapter. */
  target: Target;
  /** The stored adapter's lifecycle state when it was read. */
  state: StoredAdapter["state"];
}

export class TargetCache extends KeptReads<KeptTarget> {
  constructor(ttlMs = TARGET_TTL_MS) {
    super(ttlMs, MAX_KEPT);
  }
}
