/**
 * Which profile is active, across replicas, with the store as the only state.
 *
 * Every profile holds an `activation` number; the active profile is the one with the highest, ties
 * going to the earliest created (then the smaller id). So there is always exactly one active profile
 * while any exists, whatever order concurrent writes land in:
 *  - a new profile gets activation 0: the first profile ever created is active, and later ones
 *    never displace it by being created; a profile created by a non-admin gets INACTIVE (-1) and
 *    counts only once an admin activates it;
 *  - activating a profile is ONE single-document write (its activation becomes the current highest
 *    plus one), so no reader ever sees zero or two active profiles mid-switch;
 *  - two replicas activating at once may write the same number; the tie rule picks one, and the
 *    loser sees it is not active and writes again, higher. The last activation to finish wins.
 */
import type { Collection } from "../../shared/store/types";
import { ConflictError, NotFoundError } from "../../shared/errors";
import { nowIso } from "../../shared/text";
import type { StoredProfile } from "./documents";

export const ACTIVE_ORDER = { activation: -1, "_meta.created": 1, _id: 1 } as const;

/** The activation of a profile that may not become active without an admin activating it. */
export const INACTIVE = -1;

export async function activeProfile(profiles: Collection<StoredProfile>): Promise<StoredProfile | null> {
  const [top] = await profiles.find({ activation: { $gte: 0 } }, { sort: ACTIVE_ORDER, limit: 1 });
  return top ?? null;
}

const MAX_ATTEMPTS = 8;

/** Makes `id` the active profile; answers it. 404 when it does not exist. */
export async function activate(profiles: Collection<StoredProfile>, id: string): Promise<StoredProfile> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await activeProfile(profiles);
    if (current?._id === id) return current;
    const updated = await profiles.findOneAndUpdate(
      { _id: id },
      {
        $set: {
          activation: (current?.activation ?? 0) + 1,
          "_meta.updated": nowIso(),
        },
      },
    );
    if (!updated) throw new NotFoundError("Profile", id);
    const now = await activeProfile(profiles);
    if (now?._id === id) return updated;
    // Another activation landed with the same or a higher number: go again above it.
  }
  throw new ConflictError(`Profile '${id}' could not be activated: other activations kept winning; retry`);
}
