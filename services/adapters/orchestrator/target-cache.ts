/**
 * The targets of orchestrator adapters, kept per process for a moment, so a proxy call does not
 * read the stored adapter and unseal its credentials every time (docs/orchestrator.md#performance).
 *
 * A kept target is the stored adapter as this process last read it (its settings, `state` and
 * `generation`), so it must not outlive a change:
 *  - every write to an adapter (update, stop, start, restart, delete) forgets it on the replica that
 *    wrote, before that write answers, and broadcasts ADAPTER_CHANGED_EVENT, which makes every other
 *    replica forget it too (the event is sent before the answer, on the same bus connection, so a
 *    caller's next call reaches a replica after it);
 *  - a target is kept for at most TARGET_TTL_MS anyway, so a replica that missed the event (it was
 *    cut off from the bus at that moment) reads the store again within that time;
 *  - a read that was under way when a change was announced is not kept (the epoch below): it may
 *    hold what the store answered before the change.
 * Errors (404 unknown, 400 another type) are never kept: the next call asks the store again.
 */
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

interface Entry extends KeptTarget {
  until: number;
}

export class TargetCache {
  private readonly kept = new Map<string, Entry>();
  /** Bumped by every forget: a read that started before it is not kept. */
  private epoch = 0;

  constructor(private readonly ttlMs = TARGET_TTL_MS) {}

  /**
   * The adapter's kept target, or `load()`'s (kept unless a change was announced while it ran).
   * `load` throws for an unknown adapter or one that is not an orchestrator: nothing is kept then.
   */
  async get(name: string, load: () => Promise<KeptTarget>, now = Date.now()): Promise<KeptTarget> {
    const hit = this.peek(name, now);
    if (hit !== undefined) return hit;
    const epoch = this.epoch;
    const loaded = await load();
    if (epoch === this.epoch) {
      this.kept.delete(name);
      if (this.kept.size >= MAX_KEPT) this.kept.delete(this.kept.keys().next().value as string);
      this.kept.set(name, { ...loaded, until: Date.now() + this.ttlMs });
    }
    return loaded;
  }

  /** The adapter's kept target, without a promise (a proxy call's common case); undefined when none is kept now. */
  peek(name: string, now = Date.now()): KeptTarget | undefined {
    const hit = this.kept.get(name);
    return hit !== undefined && hit.until > now ? hit : undefined;
  }

  /** The adapter changed or is gone: its next call reads the store. */
  forget(name: string): void {
    this.epoch++;
    this.kept.delete(name);
  }

  clear(): void {
    this.epoch++;
    this.kept.clear();
  }
}
