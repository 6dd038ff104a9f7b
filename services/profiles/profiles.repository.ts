/**
 * Collection `profiles`, one per profile, keyed by its id (`_id`; `name` mirrors it and is unique):
 *   { _id: id, id, name: id, description, tags, properties: <the Profile, secrets sealed>,
 *     activation: number, _meta: {created, updated, createdBy} }
 * (./documents.ts says what each member holds; ./activation.ts which profile is active.)
 */
import { NAME_INDEX, NamedRepository } from "../../shared/named-documents";
import { index } from "../../shared/store/repository";
import type { StoredProfile } from "./documents";

/** The active profile first: the highest activation, ties to the earliest created, then the smaller id. */
const ACTIVE_ORDER = { activation: -1, "_meta.created": 1, _id: 1 } as const;

export class ProfilesRepository extends NamedRepository<StoredProfile> {
  readonly collectionName = "profiles";
  readonly label = "Profile";
  override readonly key = "_id";
  /** `activation` serves the active profile's read (the highest one). */
  override readonly indexes = [NAME_INDEX, index({ activation: -1 })];

  /** The active profile (./activation.ts), or null when no profile may be active. */
  async active(): Promise<StoredProfile | null> {
    const [top] = await this.docs.find({ activation: { $gte: 0 } }, { sort: ACTIVE_ORDER, limit: 1 });
    return top ?? null;
  }

  /** One single-document write of the profile's activation; null when it does not exist. */
  setActivation(id: string, activation: number, now: string): Promise<StoredProfile | null> {
    return this.docs.findOneAndUpdate({ _id: id }, { $set: { activation, "_meta.updated": now } });
  }
}
