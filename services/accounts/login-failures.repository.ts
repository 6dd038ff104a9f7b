/**
 * Collection `login_failures`: failed sign-ins (and token requests) counted per username under a
 * keyed hash of it (./sessions.ts), never the typed text. Each count carries `expireAt`, the end of
 * its window, with an expiry index on it: the counts of random usernames go away with their window.
 */
import { index, Repository } from "../../shared/store/repository";

export interface LoginFailures {
  /** The keyed hash of the username (./sessions.ts failureId): the id comes from it, never newId(). */
  _id: string;
  count: number;
  /** Epoch ms: the window's end. */
  until: number;
  /** The same instant as a Date, for the expiry index. */
  expireAt: Date;
}

export class LoginFailuresRepository extends Repository<LoginFailures> {
  readonly collectionName = "login_failures";
  readonly indexes = [index({ expireAt: 1 }, { expireAfterSeconds: 0 })];

  /** The expiry index, and counts stored before it (keyed by the typed text, without expireAt) dropped. */
  override async ensureIndexes(): Promise<void> {
    await super.ensureIndexes();
    await this.docs.deleteMany({ expireAt: { $exists: false } });
  }

  /** The failures counted under `id` in a window still open at `now`; 0 when none. */
  async countNow(id: string, now: number): Promise<number> {
    return (await this.docs.findOne({ _id: id, until: { $gt: now } }))?.count ?? 0;
  }

  /**
   * Counts one failure: one atomic write adds it to an open window; only when none is open does a
   * second write start a window of one (ending `windowMs` after `now`).
   */
  async countOne(id: string, now: number, windowMs: number): Promise<void> {
    const counted = await this.docs.updateOne({ _id: id, until: { $gt: now } }, { $inc: { count: 1 } });
    if (counted.matchedCount > 0) return;
    const until = now + windowMs;
    await this.docs.updateOne(
      { _id: id },
      { $set: { count: 1, until, expireAt: new Date(until) } },
      { upsert: true },
    );
  }
}
