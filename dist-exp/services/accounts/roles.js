"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.resolveGroups = resolveGroups;
function resolveGroups(direct, all) {
    const byId = new Map(all.map((g) => [g._id, g]));
    const byName = new Map(all.map((g) => [g.name, g]));
    const seen = new Set();
    const roles = new Set();
    const queue = direct.map((id) => byId.get(id)).filter((g) => g !== undefined);
    while (queue.length > 0) {
        const group = queue.shift();
        if (seen.has(group._id) || group.inactive)
            continue;
        seen.add(group._id);
        for (const role of group.assignedRoles ?? [])
            roles.add(role);
        for (const parent of group.memberOf ?? []) {
            const next = byName.get(parent);
            if (next)
                queue.push(next);
        }
    }
    return { groupIds: [...seen], roles: [...roles].sort() };
}
//# sourceMappingURL=roles.js.map