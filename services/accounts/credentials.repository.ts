/**
 * Collection `account_credentials`: the scrypt hash of each account's password and of each service
 * account's client secret, read only by this service. Kept apart from `accounts` so that no read of
 * an account (a list, a projection forgotten) can carry a hash.
 */
import { Repository } from "../../shared/store/repository";

export interface Credentials {
  /** The holder's id (an account's or a service account's): one document per holder, never newId(). */
  _id: string;
  hash: string;
  updated: string;
}

export class CredentialsRepository extends Repository<Credentials> {
  readonly collectionName = "account_credentials";
  /** Read and written by holder id (`_id`) only. */
  readonly indexes = [];

  of(holderId: string): Promise<Credentials | null> {
    return this.docs.findOne({ _id: holderId });
  }

  insert(holderId: string, hash: string, at: string): Promise<Credentials> {
    return this.docs.insertOne({ _id: holderId, hash, updated: at });
  }

  /** Sets the holder's hash, whatever it was (or creating it). */
  set(holderId: string, hash: string, at: string): Promise<unknown> {
    return this.docs.updateOne({ _id: holderId }, { $set: { hash, updated: at } }, { upsert: true });
  }

  /**
   * Compare-and-set on the hash that was verified: of two changes from the same current password,
   * one wins; the other finds the hash changed and changes nothing (false).
   */
  async replace(holderId: string, verifiedHash: string, hash: string, at: string): Promise<boolean> {
    const changed = await this.docs.updateOne(
      { _id: holderId, hash: verifiedHash },
      { $set: { hash, updated: at } },
    );
    return changed.matchedCount > 0;
  }

  remove(holderId: string): Promise<number> {
    return this.docs.deleteOne({ _id: holderId });
  }
}
