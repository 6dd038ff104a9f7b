/**
 * Collection `adapter_health`: each adapter's last check, keyed by the adapter's name (an adapter has
 * one entry, found by the name every read has, so no generated id):
 *   { _id: adapter name, nextCheckAt (epoch ms), connection: {state, lastCheck, lastSuccess,
 *     lastError, latencyMs}, failures (in a row) }
 */
import { index, Repository } from "../../../shared/store/repository";
import { DuplicateKeyError } from "../../../shared/store/types";

export interface HealthDoc {
  _id: string;
  nextCheckAt: number;
  failures?: number;
  connection?: {
    state: "ONLINE" | "OFFLINE";
    lastCheck: string;
    lastSuccess: string | null;
    lastError: string | null;
    latencyMs: number | null;
  };
}

export class AdapterHealthRepository extends Repository<HealthDoc> {
  readonly collectionName = "adapter_health";
  readonly indexes = [index({ nextCheckAt: 1 })];

  /** The entries of the adapters `names`. */
  ofAdapters(names: string[]): Promise<HealthDoc[]> {
    return this.docs.find({ _id: { $in: names } });
  }

  /** Asks for a check on the next pass of any replica. */
  async checkSoon(name: string): Promise<void> {
    await this.docs.updateOne({ _id: name }, { $set: { nextCheckAt: 0 } }, { upsert: true });
  }

  /** Forgets the last check (the adapter's settings changed) and asks for a new one on the next pass. */
  async reset(name: string): Promise<void> {
    await this.docs.updateOne(
      { _id: name },
      { $set: { nextCheckAt: 0 }, $unset: { connection: "", failures: "" } },
      { upsert: true },
    );
  }

  async remove(name: string): Promise<void> {
    await this.docs.deleteOne({ _id: name });
  }

  /**
   * Claims the adapter's due check for this replica: true when this replica won it. The claim is a
   * compare-and-set moving `nextCheckAt` to `next`, or the insert of the first entry (a unique
   * `_id`), so exactly one replica wins a due check.
   */
  async claimCheck(name: string, now: number, next: number): Promise<boolean> {
    if (
      await this.docs.findOneAndUpdate(
        { _id: name, nextCheckAt: { $lte: now } },
        { $set: { nextCheckAt: next } },
      )
    )
      return true;
    if (await this.docs.findOne({ _id: name }, { projection: { _id: 1 } })) return false;
    try {
      await this.docs.insertOne({ _id: name, nextCheckAt: next });
      return true;
    } catch (err) {
      if (err instanceof DuplicateKeyError) return false;
      throw err;
    }
  }

  /** A check that reached the orchestrator: ONLINE, no failures in a row. */
  async recordSuccess(name: string, now: string, latencyMs: number | null): Promise<HealthDoc> {
    const doc = await this.docs.findOneAndUpdate(
      { _id: name },
      {
        $set: {
          "connection.state": "ONLINE",
          "connection.lastCheck": now,
          "connection.lastSuccess": now,
          "connection.lastError": null,
          "connection.latencyMs": latencyMs,
          failures: 0,
        },
      },
      { upsert: true },
    );
    return doc!; // an upsert always answers a document
  }

  /** A failed check: OFFLINE with the error, one more failure in a row. */
  async recordFailure(
    name: string,
    now: string,
    error: string,
    latencyMs: number | null,
  ): Promise<HealthDoc> {
    const doc = await this.docs.findOneAndUpdate(
      { _id: name },
      {
        $set: {
          "connection.state": "OFFLINE",
          "connection.lastCheck": now,
          "connection.lastError": error,
          "connection.latencyMs": latencyMs,
        },
        $inc: { failures: 1 },
      },
      { upsert: true },
    );
    return doc!;
  }
}
