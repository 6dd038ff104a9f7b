"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.maySeeJob = maySeeJob;
exports.jobAccessFilter = jobAccessFilter;
exports.assertOwnGroups = assertOwnGroups;
const errors_1 = require("./errors");
function maySeeJob(caller, groups) {
    if (!caller || caller.roles.includes("admin"))
        return true;
    return (groups ?? []).some((g) => caller.groupIds.includes(g));
}
/** The store filter of the jobs a caller may see. */
function jobAccessFilter(caller) {
    if (!caller || caller.roles.includes("admin"))
        return {};
    return { groups: { $in: caller.groupIds } };
}
/**
 * A caller may give a job (or an automation) only groups it is in, unless it is an admin or the
 * platform itself: otherwise it could place a job in other groups' lists it cannot see.
 */
function assertOwnGroups(caller, groups, field) {
    if (!caller || caller.roles.includes("admin"))
        return;
    const foreign = groups.filter((g) => !caller.groupIds.includes(g));
    if (foreign.length > 0)
        throw new errors_1.ForbiddenError(`You may only name groups you are in; not in: ${foreign.join(", ")} (${field})`);
}
//# sourceMappingURL=job-visibility.js.map