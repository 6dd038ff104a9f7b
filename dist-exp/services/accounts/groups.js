"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.createGroup = createGroup;
exports.listGroups = listGroups;
exports.groupsPage = groupsPage;
exports.memberOfFromBody = memberOfFromBody;
exports.groupsByNameOrId = groupsByNameOrId;
/**
 * Groups (spec operation 4): create and list. `groupsByNameOrId` is the one check that named groups
 * exist; other services reach it through `accounts.listGroups`, never the `groups` collection.
 */
const node_crypto_1 = require("node:crypto");
const errors_1 = require("../../shared/errors");
const types_1 = require("../../shared/store/types");
const text_1 = require("../../shared/text");
const query_1 = require("./query");
async function createGroup(ctx) {
    const { name, description = "", memberOf = [], assignedRoles = [], inactive = false } = ctx.params;
    const parents = await groupsByNameOrId(this, memberOf, "memberOf");
    const now = (0, text_1.nowIso)();
    const group = {
        _id: (0, node_crypto_1.randomUUID)(),
        provenance: "local",
        name,
        description,
        memberOf: parents.map((g) => g.name),
        assignedRoles: [...new Set(assignedRoles)],
        inactive,
        _meta: { created: now, updated: now },
    };
    try {
        return (await this.store.collection("groups").insertOne(group));
    }
    catch (err) {
        if (err instanceof types_1.DuplicateKeyError)
            throw new errors_1.ConflictError(`Group '${name}' already exists`);
        throw err;
    }
}
async function listGroups() {
    return (await this.store.collection("groups").find({}, { sort: { name: 1 } }));
}
/** GET /authorization/groups: the accounts list's query over groups, answering `{results, total}`. */
async function groupsPage(ctx) {
    const { filter, sort, skip, limit } = (0, query_1.fieldQuery)(ctx.params.queryOptions ?? {}, "name");
    const groups = this.store.collection("groups");
    const [results, total] = await Promise.all([
        groups.find(filter, { sort, skip, limit }),
        groups.count(filter),
    ]);
    return { results: results, total, skip, limit };
}
/**
 * The `memberOf` of an account or a service account from its create body: `groups` (names or ids)
 * and the resource's own `memberOf: [{groupId}]`, both honoured, never dropped; unknown is a 400.
 */
async function memberOfFromBody(service, body) {
    const refs = [...new Set([...(body.groups ?? []), ...(body.memberOf ?? []).map((m) => m.groupId)])];
    return (await groupsByNameOrId(service, refs, "groups")).map((g) => ({
        groupId: g._id,
        aaaManaged: true,
    }));
}
/** Groups named by name or id; an unknown one is a 400 on `field`. */
async function groupsByNameOrId(service, refs, field) {
    if (refs.length === 0)
        return [];
    const found = (await service.store
        .collection("groups")
        .find({ $or: [{ name: { $in: refs } }, { _id: { $in: refs } }] }));
    const missing = refs.filter((r) => !found.some((g) => g.name === r || g._id === r));
    if (missing.length > 0) {
        throw new errors_1.BadRequestError(`Unknown group(s): ${missing.join(", ")}`, missing.map((m) => ({ field, message: `Unknown group '${m}'`, type: "unknownGroup" })));
    }
    return found;
}
//# sourceMappingURL=groups.js.map