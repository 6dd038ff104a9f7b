/**
 * Collection `sessions`: one document per signed-in token, keyed by the token's session id
 * (shared/session-id.ts), so the store never holds a usable token. Every replica reads them here:
 * any gateway accepts any token.
 */
import { index, Repository } from "../../shared/store/repository";

export interface Session {
  /** The session id of the token (shared/session-id.ts): the id comes from the token, never newId(). */
  _id: string;
  /** An account's or a service account's id. */
  accountId: string;
  created: number;
  /** Epoch ms; slides forward while the session is used. */
  expiresAt: number;
}

/** Which sessions to end: one, or an account's (all of them, or all but the caller's own). */
export type SessionSelection = { sessionId: string } | { accountId: string; except?: string };

export class SessionsRepository extends Repository<Session> {
  readonly collectionName = "sessions";
  readonly indexes = [
    // An account's sessions (ended together).
    index({ accountId: 1 }),
    // The sweep of expired sessions.
    index({ expiresAt: 1 }),
  ];

  open(session: Session): Promise<Session> {
    return this.docs.insertOne(session);
  }

  /** The session, expired or not. */
  byId(id: string): Promise<Session | null> {
    return this.docs.findOne({ _id: id });
  }

  /** The session if it is still live at `now` (and, when named, of that account). */
  live(id: string, now: number, accountId?: string): Promise<Session | null> {
    return this.docs.findOne({
      _id: id,
      ...(accountId !== undefined && { accountId }),
      expiresAt: { $gt: now },
    });
  }

  /**
   * Slides a live session's expiry to `expiresAt` in one conditional write: a session that expired
   * (or was ended) meanwhile is not brought back. Null then.
   */
  slide(id: string, now: number, expiresAt: number): Promise<Session | null> {
    return this.docs.findOneAndUpdate({ _id: id, expiresAt: { $gt: now } }, { $set: { expiresAt } });
  }

  countOfAccount(accountId: string): Promise<number> {
    return this.docs.count({ accountId });
  }

  /** The ids of the selected sessions. */
  async idsOf(selection: SessionSelection): Promise<string[]> {
    const filter =
      "sessionId" in selection
        ? { _id: selection.sessionId }
        : {
            accountId: selection.accountId,
            ...(selection.except !== undefined && { _id: { $ne: selection.except } }),
          };
    return (await this.docs.find(filter, { projection: { _id: 1 } })).map((s) => s._id);
  }

  removeIds(ids: string[]): Promise<number> {
    return this.docs.deleteMany({ _id: { $in: ids } });
  }

  /** Expired sessions are refused on read already; this only keeps the collection small. */
  sweepExpired(now: number): Promise<number> {
    return this.docs.deleteMany({ expiresAt: { $lt: now } });
  }
}
