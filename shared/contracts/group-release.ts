/**
 * `releaseGroup`: the internal action of every service that keeps group ids on its objects (the
 * engine, the scheduler). The accounts service calls it over the bus when a group is deleted
 * (services/accounts/group-lifecycle.ts): it never reads another service's collections.
 *  - apply false: which objects name the group as their only owner group (`sole`); changes nothing.
 *  - apply true: the group leaves every object that names another owner group too (`released`);
 *    the `sole` ones keep it (a group that no longer exists: only admins pass them).
 */
import { arrayOf, integer, returns, shape, str } from "./schema";

export const releaseGroupAction = {
  access: "internal",
  // A check, or a release whose filters hold only objects that still name the group: run it twice, same end.
  idempotent: "repeatable",
  params: {
    groupId: { type: "string", min: 1, max: 128 },
    apply: { type: "boolean" },
  },
  result: returns(shape({ sole: arrayOf(shape({ type: str, id: str, name: str })), released: integer })),
  description:
    "A group is being deleted: apply false lists the objects it is the only owner group of; apply true takes it out of every other object.",
} as const;

/** At most this many `sole` objects are listed (a 409 names them; more only make it longer). */
export const RELEASE_LIST_LIMIT = 100;
