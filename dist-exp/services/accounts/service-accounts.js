"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.createServiceAccount = createServiceAccount;
exports.listServiceAccounts = listServiceAccounts;
exports.deleteServiceAccount = deleteServiceAccount;
exports.rotateServiceAccountSecret = rotateServiceAccountSecret;
exports.token = token;
/**
 * Service accounts and OAuth 2.0 client credentials (docs/platform-rules.md#service-accounts).
 *
 * A service account is a client of the API, not a person: an admin creates it with groups, as an
 * account; the answer holds its client secret once, and the store keeps only a scrypt hash of it
 * (in `account_credentials`, beside the accounts' hashes). `POST /oauth/token` trades the client id
 * and secret for a token that is a session like any other: the gateway resolves it through
 * `accounts.authenticate`, and deleting the service account (or rotating its secret) ends it.
 */
const node_crypto_1 = require("node:crypto");
const errors_1 = require("../../shared/errors");
const types_1 = require("../../shared/store/types");
const text_1 = require("../../shared/text");
const groups_1 = require("./groups");
const passwords_1 = require("./passwords");
const sessions_1 = require("./sessions");
const CLIENT_ID = /^[0-9a-fA-F]{24}$/;
/** Failed token requests are counted per client id, apart from usernames (which may look like ids). */
const failureKey = (clientId) => `oauth:${clientId}`;
/** 32 random bytes: the secret is a key, not a password; nobody has to remember it. */
const newSecret = () => (0, node_crypto_1.randomBytes)(32).toString("base64url");
async function createServiceAccount(ctx) {
    const caller = (0, sessions_1.requireCaller)(ctx.meta);
    const memberOf = await (0, groups_1.memberOfFromBody)(this, ctx.params);
    const secret = newSecret();
    const hash = await (0, passwords_1.hashPassword)(secret);
    const now = (0, text_1.nowIso)();
    // The id is the client id: one value names the document and the OAuth client.
    const id = (0, types_1.newDocumentId)();
    const account = {
        _id: id,
        clientId: id,
        name: ctx.params.name,
        description: ctx.params.description ?? "",
        memberOf,
        inactive: false,
        createdBy: caller.accountId,
        _meta: { created: now, updated: now },
    };
    // The hash first: a service account is never visible without its credentials.
    await this.store.collection("account_credentials").insertOne({ _id: id, hash, updated: now });
    try {
        await this.store.collection(sessions_1.SERVICE_ACCOUNTS).insertOne(account);
    }
    catch (err) {
        await this.store.collection("account_credentials").deleteOne({ _id: id });
        if (err instanceof types_1.DuplicateKeyError)
            throw new errors_1.ConflictError(`Service account '${ctx.params.name}' already exists`);
        throw err;
    }
    return { ...account, clientSecret: secret };
}
async function listServiceAccounts() {
    const results = (await this.store
        .collection(sessions_1.SERVICE_ACCOUNTS)
        .find({}, { sort: { name: 1 } }));
    return { results, total: results.length };
}
async function deleteServiceAccount(ctx) {
    const { clientId } = ctx.params;
    const removed = await this.store.collection(sessions_1.SERVICE_ACCOUNTS).findOneAndDelete({ _id: clientId });
    if (!removed)
        throw new errors_1.NotFoundError("Service account", clientId);
    await this.store.collection("account_credentials").deleteOne({ _id: clientId });
    await (0, sessions_1.revokeSessions)(this, { accountId: clientId });
    return { status: "OK", message: `Service account '${removed.name}' deleted; its tokens ended` };
}
async function rotateServiceAccountSecret(ctx) {
    const { clientId } = ctx.params;
    const account = (await this.store
        .collection(sessions_1.SERVICE_ACCOUNTS)
        .findOne({ _id: clientId }));
    if (!account)
        throw new errors_1.NotFoundError("Service account", clientId);
    const secret = newSecret();
    const now = (0, text_1.nowIso)();
    await this.store
        .collection("account_credentials")
        .updateOne({ _id: clientId }, { $set: { hash: await (0, passwords_1.hashPassword)(secret), updated: now } }, { upsert: true });
    await this.store
        .collection(sessions_1.SERVICE_ACCOUNTS)
        .updateOne({ _id: clientId }, { $set: { "_meta.updated": now } });
    await (0, sessions_1.revokeSessions)(this, { accountId: clientId });
    return { ...account, clientSecret: secret };
}
/**
 * POST /oauth/token (client credentials grant). A wrong or unknown client is one 401 and costs the
 * same time (the decoy hash); failures count toward the same lock-out as sign-ins.
 */
async function token(ctx) {
    const { client_id: clientId, client_secret: secret } = ctx.params;
    await (0, sessions_1.refuseWhileLocked)(this, failureKey(clientId));
    const account = CLIENT_ID.test(clientId)
        ? (await this.store.collection(sessions_1.SERVICE_ACCOUNTS).findOne({ _id: clientId }))
        : null;
    if (!(await (0, sessions_1.secretMatches)(this, account, secret, failureKey(clientId))) || !account)
        throw new errors_1.UnauthorizedError("Invalid client credentials");
    const { token: accessToken, expiresAt } = await (0, sessions_1.openSession)(this, account._id);
    this.logger.info(`oauth token: service account ${account.name}`);
    return {
        access_token: accessToken,
        token_type: "Bearer",
        expires_in: Math.floor((expiresAt - Date.now()) / 1000),
    };
}
//# sourceMappingURL=service-accounts.js.map