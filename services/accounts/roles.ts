/**
 * A caller's roles: the union of `assignedRoles` of its groups, following `memberOf` (group names)
 * from group to group. Inactive groups grant nothing and are not followed. Built-in role names become
 * `roles`; the others are custom roles (./custom-roles.ts), whose methods the caller gets.
 */
import type { Group } from "../../shared/contracts/resources";
import { ROLES, type Role } from "../../shared/contracts/define";

export function resolveGroups(
  direct: string[],
  all: Group[],
  own: readonly string[] = [],
): { groupIds: string[]; roles: Role[]; customRoles: string[] } {
  const byId = new Map(all.map((g) => [g._id, g]));
  const byName = new Map(all.map((g) => [g.name, g]));
  const seen = new Set<string>();
  // The account's own assignedRoles, then its groups'.
  const roles = new Set<string>(own);
  const queue = direct.map((id) => byId.get(id)).filter((g): g is Group => g !== undefined);
  while (queue.length > 0) {
    const group = queue.shift()!;
    if (seen.has(group._id) || group.inactive) continue;
    seen.add(group._id);
    for (const role of group.assignedRoles ?? []) roles.add(role);
    for (const parent of group.memberOf ?? []) {
      const next = byName.get(parent);
      if (next) queue.push(next);
    }
  }
  const builtIn = new Set<string>(ROLES);
  const names = [...roles].sort();
  return {
    groupIds: [...seen],
    roles: names.filter((r): r is Role => builtIn.has(r)),
    customRoles: names.filter((r) => !builtIn.has(r)),
  };
}
