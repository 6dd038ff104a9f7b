/**
 * Job visibility: a caller sees a job, and may act on it, when it shares one of the job's groups,
 * started it (`created_by`), or has role admin. Calls the platform makes as itself (no caller; the
 * authorization middleware has checked they carry the platform's identity) see every job. One home
 * for the engine's reads and writes and the gateway's event stream (GET /events).
 *
 * Who may start a job: a workflow with `groups` only its groups' members (or admins).
 */
import type { Caller } from "./contracts/resources";
import { ForbiddenError } from "./errors";
import type { Filter } from "./store/types";

/** What visibility reads of a job. */
export interface JobAccess {
  groups?: readonly string[];
  created_by?: string;
}

export function maySeeJob(caller: Caller | undefined, job: JobAccess): boolean {
  if (!caller || caller.roles.includes("admin")) return true;
  if (job.created_by !== undefined && job.created_by === caller.accountId) return true;
  return (job.groups ?? []).some((g) => caller.groupIds.includes(g));
}

/** The store filter of the jobs a caller may see. */
export function jobAccessFilter(caller: Caller | undefined): Filter {
  if (!caller || caller.roles.includes("admin")) return {};
  return { $or: [{ groups: { $in: caller.groupIds } }, { created_by: caller.accountId }] };
}

/**
 * A caller may give a job (or an automation) only groups it is in, unless it is an admin or the
 * platform itself: otherwise it could place a job in other groups' lists it cannot see.
 */
export function assertOwnGroups(caller: Caller | undefined, groups: readonly string[], field: string): void {
  if (!caller || caller.roles.includes("admin")) return;
  const foreign = groups.filter((g) => !caller.groupIds.includes(g));
  if (foreign.length > 0)
    throw new ForbiddenError(
      `You may only name groups you are in; not in: ${foreign.join(", ")} (${field})`,
      {
        required: ["admin"],
        groups: foreign,
      },
    );
}

/** A workflow with groups starts only for their members (or admins, or the platform). */
export function assertMayStart(
  caller: Caller | undefined,
  workflow: { name: string; groups?: readonly string[] },
): void {
  const groups = workflow.groups ?? [];
  if (!caller || groups.length === 0 || caller.roles.includes("admin")) return;
  if (groups.some((g) => caller.groupIds.includes(g))) return;
  throw new ForbiddenError(`Workflow '${workflow.name}' may be started only by members of its groups`, {
    required: ["admin"],
    groups: [...groups],
  });
}
