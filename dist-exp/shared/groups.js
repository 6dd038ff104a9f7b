"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.checkGroupsExist = checkGroupsExist;
const contracts_1 = require("./contracts");
const errors_1 = require("./errors");
async function checkGroupsExist(ctx, groups, field) {
    if (groups.length === 0)
        return;
    const known = new Set((await (0, contracts_1.call)(ctx, "accounts.listGroups", {})).map((g) => g._id));
    const missing = groups.filter((g) => !known.has(g));
    if (missing.length > 0)
        throw new errors_1.BadRequestError(`Unknown group(s): ${missing.join(", ")}`, missing.map((g) => ({ field, message: `Unknown group '${g}'`, type: "unknownGroup" })));
}
//# sourceMappingURL=groups.js.map