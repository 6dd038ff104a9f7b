/**
 * Job visibility: a caller sees a job, and may act on it, only when it shares one of the job's
 * groups, or has role admin. Internal calls (no caller) are the platform itself. One home for the
 * engine's reads and writes and the gateway's event stream (GET /events), so they cannot disagree.
 */
import type { Caller } from "./contracts/resources";
import { ForbiddenError } from "./errors";
import type { Filter } from "./store/types";

export function maySeeJob(caller: Caller | undefined, groups: readonly string[] | undefined): boolean {
  if (!caller || caller.roles.includes("admin")) return true;
  return (groups ?? []).some((g) => caller.groupIds.includes(g));
}

/** The store filter of the jobs a caller may see. */
export function jobAccessFilter(caller: Caller | undefined): Filter {
  if (!caller || caller.roles.includes("admin")) return {};
  return { groups: { $in: caller.groupIds } };
}

/**
 * A caller may give a job (or an automation) only groups it is in, unless it is an admin or the
 * platform itself: otherwise it could place a job in other groups' lists it cannot see.
 */
export function assertOwnGroups(caller: Caller | undefined, groups: readonly string[], field: string): void {
  if (!caller || caller.roles.includes("admin")) return;
  const foreign = groups.filter((g) => !caller.groupIds.includes(g));
  if (foreign.length > 0)
    throw new ForbiddenError(`You may only name groups you are in; not in: ${foreign.join(", ")} (${field})`);
}
