/**
 * Group-based access to automations and their triggers, as the real product's `gbac` has it
 * (docs/security.md#group-based-access): `write` groups (stored as the automation's `groups`, which
 * its jobs also get) may read, change, run and delete it, and change its `gbac`; `read` groups
 * (`readGroups`) may only read it. An automation with no groups at all is open to every caller the
 * route's roles admit; admins and the platform itself pass. One that a caller may not read answers
 * 404, as one that does not exist; one it may read but not write answers 403.
 *
 * Writes are guarded in the store (the write filter is part of the update's filter), so a `gbac`
 * change racing a write is never bypassed.
 */
import type { Automation, Caller } from "../../shared/contracts/resources";
import { ForbiddenError, NotFoundError } from "../../shared/errors";
import type { Filter } from "../../shared/store/types";

type Gbac = Pick<Automation, "_id" | "groups"> & { readGroups?: string[] };

const unrestricted = (caller: Caller | undefined) => !caller || caller.roles.includes("admin");
const isOpen = (a: Gbac) => (a.groups ?? []).length === 0 && (a.readGroups ?? []).length === 0;
const shares = (caller: Caller, groups: readonly string[] | undefined) =>
  (groups ?? []).some((g) => caller.groupIds.includes(g));

export function mayReadAutomation(caller: Caller | undefined, a: Gbac): boolean {
  return unrestricted(caller) || isOpen(a) || shares(caller!, a.groups) || shares(caller!, a.readGroups);
}

export function mayWriteAutomation(caller: Caller | undefined, a: Gbac): boolean {
  return unrestricted(caller) || isOpen(a) || shares(caller!, a.groups);
}

const OPEN: Filter = {
  $and: [
    { groups: { $size: 0 } },
    { $or: [{ readGroups: { $exists: false } }, { readGroups: { $size: 0 } }] },
  ],
};

/** The store filter of the automations a caller may read (undefined: all). */
export function readableFilter(caller: Caller | undefined): Filter | undefined {
  if (unrestricted(caller)) return undefined;
  const ids = caller!.groupIds;
  return { $or: [{ groups: { $in: ids } }, { readGroups: { $in: ids } }, OPEN] };
}

/** The store filter of the automations a caller may write (undefined: all). */
export function writableFilter(caller: Caller | undefined): Filter | undefined {
  if (unrestricted(caller)) return undefined;
  return { $or: [{ groups: { $in: caller!.groupIds } }, OPEN] };
}

/** `filter` narrowed to what `scope` allows. */
export const within = (filter: Filter, scope: Filter | undefined): Filter =>
  !scope ? filter : Object.keys(filter).length === 0 ? scope : { $and: [filter, scope] };

/** Why a caller may not write automation `a` (or null when it may): 404 if it may not even read it. */
export function writeRefusal(caller: Caller | undefined, a: Gbac | null, id: string): Error | null {
  if (!a || !mayReadAutomation(caller, a)) return new NotFoundError("Automation", id);
  if (mayWriteAutomation(caller, a)) return null;
  return new ForbiddenError(`Only members of automation ${id}'s write groups may change, run or delete it`, {
    required: ["admin"],
    groups: a.groups,
  });
}
