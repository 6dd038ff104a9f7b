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
import { ConflictError, NotFoundError } from "../../shared/errors";
import { nowIso } from "../../shared/text";
import type { StoredProfile } from "./documents";
import type { ProfilesRepository } from "./profiles.repository";

/** The activation of a profile that may not become active without an admin activating it. */
export const INACTIVE = -1;

const MAX_ATTEMPTS = 8;

/** Makes `id` the active profile; answers it. 404 when it does not exist. */
export async function activate(profiles: ProfilesRepository, id: string): Promise<StoredProfile> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await profiles.active();
    if (current?._id === id) return current;
    const updated = await profiles.setActivation(id, (current?.activation ?? 0) + 1, nowIso());
    if (!updated) throw new NotFoundError("Profile", id);
    const now = await profiles.active();
    if (now?._id === id) return updated;
    // Another activation landed with the same or a higher number: go again above it.
  }
  throw new ConflictError(`Profile '${id}' could not be activated: other activations kept winning; retry`);
}
