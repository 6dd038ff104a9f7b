/**
 * Collection `automation_runs`: one record per slot (automation, due time), its claim and what
 * became of it: { _id: "<automation id>@<due time>", automationId, dueAt, state (claimed, started,
 * skipped, failed), jobId, startedAt, reason, claimedBy, leaseUntil (epoch ms) }.
 *
 * The `_id` is the slot, not a generated id: inserting it is the claim, and the unique `_id` makes
 * it exactly once across replicas (docs/scheduler.md#exactly-once).
 */
import type { AutomationRun } from "../../shared/contracts/resources";
import { index, Repository } from "../../shared/store/repository";
import { DuplicateKeyError, newDocumentId } from "../../shared/store/types";

export const slotId = (automationId: string, dueAt: string) => `${automationId}@${dueAt}`;

export class AutomationRunsRepository extends Repository<AutomationRun> {
  readonly collectionName = "automation_runs";
  readonly indexes = [
    // An automation's run history, newest first.
    index({ automationId: 1, dueAt: -1 }),
    // Claims whose lease ran out, and the earliest lease: both pin `state` to "claimed", held by the
    // few slots in flight, so this index names them, and the run history, which only grows, is
    // never scanned for them.
    index({ state: 1 }),
  ];
  /** Declared until 2026-11-25 where `{state}` serves now: nothing reads it, and every write paid for it. */
  override readonly retiredIndexes = ["state_1_leaseUntil_1"];

  /**
   * The id of the job a claim will start, chosen before the start, so a replica taking over the
   * claim starts the same job (the engine starts an id at most once).
   */
  newJobId(): string {
    return newDocumentId();
  }

  /** Claims the slot: true when this insert won it, false when another replica holds it. */
  async claim(run: AutomationRun): Promise<boolean> {
    try {
      await this.docs.insertOne(run);
      return true;
    } catch (err) {
      if (err instanceof DuplicateKeyError) return false;
      throw err;
    }
  }

  byId(id: string): Promise<AutomationRun | null> {
    return this.docs.findOne({ _id: id });
  }

  /** Claims whose lease ran out before `now` (at most `limit`). */
  expiredClaims(now: number, limit: number): Promise<AutomationRun[]> {
    return this.docs.find({ state: "claimed", leaseUntil: { $lt: now } }, { limit });
  }

  /** The earliest lease of a claim, or null when none is held. */
  async earliestLease(): Promise<number | null> {
    const [first] = await this.docs.find(
      { state: "claimed" },
      { sort: { leaseUntil: 1 }, limit: 1, projection: { leaseUntil: 1 } },
    );
    return first?.leaseUntil ?? null;
  }

  /** Takes an expired claim over: a compare-and-set on the lease read. Null when another replica took it. */
  takeOver(run: AutomationRun, claimedBy: string, leaseUntil: number): Promise<AutomationRun | null> {
    return this.docs.findOneAndUpdate(
      { _id: run._id, state: "claimed", leaseUntil: run.leaseUntil },
      { $set: { claimedBy, leaseUntil } },
    );
  }

  /** Records a claim's outcome, once: null when it was no longer claimed. */
  finish(run: AutomationRun, change: Partial<AutomationRun>): Promise<AutomationRun | null> {
    return this.docs.findOneAndUpdate({ _id: run._id, state: "claimed" }, { $set: change });
  }

  /** A page of an automation's runs, newest due time first, and how many it has. */
  async pageOfAutomation(
    automationId: string,
    skip: number,
    limit: number,
  ): Promise<{ results: AutomationRun[]; total: number }> {
    return this.findPage({ automationId }, { sort: { dueAt: -1 }, skip, limit });
  }
}
