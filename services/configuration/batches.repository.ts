/**
 * Collection `compliance_batches`: the compliance runs, queued, running or done:
 * { _id, treeId, version, nodePath, state, targets, done, totals, claimedBy, leaseUntil, created,
 * finished, error }. A run is claimed by a lease (`claimedBy`, `leaseUntil`) and advances by
 * compare-and-set on `done`: each of those is one conditional write here (batches.ts says why).
 */
import type { ComplianceBatch } from "../../shared/contracts/configuration";
import { index, Repository } from "../../shared/store/repository";

export type StoredBatch = ComplianceBatch;
export type Totals = StoredBatch["totals"];

export class BatchesRepository extends Repository<StoredBatch> {
  readonly collectionName = "compliance_batches";
  /** The sweep's claim: a batch queued or running whose lease ran out. */
  readonly indexes = [index({ state: 1, leaseUntil: 1 })];

  create(fields: Omit<StoredBatch, "_id">): Promise<StoredBatch> {
    return this.docs.insertOne({ _id: this.newId(), ...fields });
  }

  byId(id: string): Promise<StoredBatch | null> {
    return this.docs.findOne({ _id: id });
  }

  async exists(id: string): Promise<boolean> {
    return (await this.docs.findOne({ _id: id }, { projection: { _id: 1 } })) !== null;
  }

  /** The backups a batch checks (those of its targets that had one); none when there is no such batch. */
  async backupIdsOf(id: string): Promise<string[]> {
    const batch = await this.docs.findOne({ _id: id }, { projection: { targets: 1 } });
    return (batch?.targets ?? []).flatMap((t) => (t.backupId ? [t.backupId] : []));
  }

  /**
   * Claims the oldest batch that is queued, or running under a lease that ran out, for `claimer`
   * until `leaseUntil`: one compare-and-set, so two replicas never claim one batch.
   */
  claimNext(claimer: string, now: number, leaseUntil: number): Promise<StoredBatch | null> {
    return this.docs.findOneAndUpdate(
      { state: { $in: ["queued", "running"] }, leaseUntil: { $lt: now } },
      { $set: { state: "running", claimedBy: claimer, leaseUntil } },
      { sort: { created: 1 } },
    );
  }

  /**
   * Records a chunk's progress: `done` moves from `from` to `to`, the totals grow and the lease is
   * renewed, only while `claimer` holds the batch at `from` (one compare-and-set). Null when it
   * does not: its lease ran out and another replica took the batch over.
   */
  advance(
    id: string,
    claimer: string,
    from: number,
    to: number,
    totals: Totals,
    leaseUntil: number,
  ): Promise<StoredBatch | null> {
    return this.docs.findOneAndUpdate(
      { _id: id, claimedBy: claimer, done: from },
      {
        $set: { done: to, leaseUntil },
        $inc: Object.fromEntries(Object.entries(totals).map(([k, v]) => [`totals.${k}`, v])),
      },
    );
  }

  /** Hands the batch back at once (the claimer is stopping): any replica resumes it at `done`. */
  async handBack(id: string, claimer: string): Promise<void> {
    await this.docs.updateOne({ _id: id, claimedBy: claimer }, { $set: { leaseUntil: 0 } });
  }

  /** Ends the batch, if `claimer` still holds it. */
  async complete(id: string, claimer: string, now: string): Promise<void> {
    await this.docs.updateOne(
      { _id: id, claimedBy: claimer },
      { $set: { state: "complete", finished: now } },
    );
  }

  /** Ends the batch with an error, if `claimer` still holds it. */
  async fail(id: string, claimer: string, error: string, now: string): Promise<void> {
    await this.docs.updateOne(
      { _id: id, claimedBy: claimer },
      { $set: { state: "error", error, finished: now } },
    );
  }
}
