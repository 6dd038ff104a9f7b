/**
 * A caller's roles: the union of `assignedRoles` of its groups, following `memberOf` (group names)
 * from group to group. Inactive groups grant nothing and are not followed.
 */
import type { Group } from "../../shared/contracts/resources";
import type { Role } from "../../shared/contracts/define";

export function resolveGroups(direct: string[], all: Group[]): { groupIds: string[]; roles: Role[] } {
  const byId = new Map(all.map((g) => [g._id, g]));
  const byName = new Map(all.map((g) => [g.name, g]));
  const seen = new Set<string>();
  const roles = new Set<Role>();
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
  return { groupIds: [...seen], roles: [...roles].sort() };
}
