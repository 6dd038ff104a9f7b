"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.accountProjection = exports.SERVICE_ACCOUNTS = void 0;
exports.login = login;
exports.openSession = openSession;
exports.secretMatches = secretMatches;
exports.refuseWhileLocked = refuseWhileLocked;
exports.logout = logout;
exports.whoami = whoami;
exports.myTtl = myTtl;
exports.authenticate = authenticate;
exports.refreshCaller = refreshCaller;
exports.authenticateBasic = authenticateBasic;
exports.requireCaller = requireCaller;
exports.revokeSessions = revokeSessions;
/**
 * Sessions (spec operation 4): sign-in by password or token, sign-out, who am I. Sessions live in
 * `sessions` keyed by the token's session id (shared/session-id.ts); every replica reads them from
 * the store, so any gateway accepts any token.
 */
const node_crypto_1 = require("node:crypto");
const contracts_1 = require("../../shared/contracts");
const moleculer_1 = require("moleculer");
const events_1 = require("../../shared/contracts/events");
const errors_1 = require("../../shared/errors");
const runtime_1 = require("../../shared/runtime");
const service_1 = require("../../shared/service");
const session_id_1 = require("../../shared/session-id");
const text_1 = require("../../shared/text");
const passwords_1 = require("./passwords");
const roles_1 = require("./roles");
/** Service accounts (./service-accounts.ts) sign in here too: by OAuth token, then as any session. */
exports.SERVICE_ACCOUNTS = "service_accounts";
/** Sliding expiry is written at most this often per session, not on every request. */
/** Sliding writes at most once a minute, and at least four times per session TTL (a short TTL still slides). */
const slideGranularityMs = (ttl) => Math.min(60_000, Math.floor(ttl / 4));
const ACCOUNT_FIELDS = [
    "_id",
    "provenance",
    "username",
    "firstname",
    "memberOf",
    "lastLogin",
    "inactive",
    "_meta",
];
// Frozen: the embedded store compiles a frozen projection once.
exports.accountProjection = Object.freeze(Object.fromEntries(ACCOUNT_FIELDS.map((f) => [f, 1])));
async function login(ctx) {
    const { username, password } = ctx.params.user;
    await refuseWhileLocked(this, username);
    const account = await this.store.collection("accounts").findOne({ username });
    if (!(await secretMatches(this, account, password, username)) || !account)
        throw new errors_1.UnauthorizedError("Invalid username or password");
    const profile = await activeProfile(this, ctx);
    if (profile?.authenticationProps?.uniqueSession === true)
        await revokeSessions(this, { accountId: account._id });
    const opened = await openSession(this, account._id);
    await this.store.collection("accounts").updateOne({ _id: account._id }, { $set: { lastLogin: (0, text_1.nowIso)() } });
    this.logger.info(`login: ${username}`);
    return opened;
}
/**
 * A new session of `accountId` (an account's or a service account's id): the token goes to the
 * caller once; the store keeps only its session id (shared/session-id.ts).
 */
async function openSession(service, accountId) {
    const token = (0, node_crypto_1.randomBytes)(32).toString("base64url");
    const now = Date.now();
    const session = {
        _id: (0, session_id_1.sessionIdOf)(token),
        accountId,
        created: now,
        expiresAt: now + ttlMs(service),
    };
    await service.store.collection("sessions").insertOne(session);
    return { token, expiresAt: session.expiresAt };
}
/**
 * Password guessing, per account across every gateway and replica (the count lives in the store):
 * after LOGIN_MAX_FAILURES failed sign-ins within LOGIN_FAILURE_WINDOW_MS, sign-in to that username
 * is refused (429) until the window ends. Unknown usernames are counted too, so the answer does not
 * tell which exist. The gateway also limits sign-ins per client address (LOGIN_RATE_LIMIT).
 */
const LOGIN_FAILURES = "login_failures";
/**
 * Does `secret` match the stored hash of `holder` (an account or a service account), which must be
 * active? An unknown holder is checked against the decoy hash, so the answer takes the same time.
 * A mismatch counts toward the lock-out of `failureKey`.
 */
async function secretMatches(service, holder, secret, failureKey) {
    const credentials = holder
        ? await service.store.collection("account_credentials").findOne({ _id: holder._id })
        : null;
    const valid = await (0, passwords_1.verifyPassword)(secret, credentials?.hash ?? (await (0, passwords_1.decoyHash)()));
    if (holder && credentials && valid && !holder.inactive)
        return true;
    await countFailure(service, failureKey);
    return false;
}
async function refuseWhileLocked(service, username) {
    const { loginMaxFailures } = (0, runtime_1.configOf)(service.broker);
    const record = await service.store
        .collection(LOGIN_FAILURES)
        .findOne({ _id: username, until: { $gt: Date.now() } });
    if (record && record.count >= loginMaxFailures)
        throw new moleculer_1.Errors.MoleculerClientError("Too many failed sign-ins for this account; try again later", 429, "RATE_LIMITED");
}
async function countFailure(service, username) {
    const now = Date.now();
    const failures = service.store.collection(LOGIN_FAILURES);
    // One atomic write: a window that ran out starts again, otherwise the count goes up.
    const counted = await failures.updateOne({ _id: username, until: { $gt: now } }, { $inc: { count: 1 } });
    if (counted.matchedCount === 0)
        await failures.updateOne({ _id: username }, { $set: { count: 1, until: now + (0, runtime_1.configOf)(service.broker).loginFailureWindowMs } }, { upsert: true });
}
async function logout(ctx) {
    const sessionId = ctx.meta.caller?.sessionId;
    if (!sessionId)
        return { status: "OK", message: "No session to end (Basic authentication)" };
    await revokeSessions(this, { _id: sessionId });
    return { status: "OK", message: "Logged out" };
}
async function whoami(ctx) {
    const caller = requireCaller(ctx.meta);
    const account = (await this.store
        .collection("accounts")
        .findOne({ _id: caller.accountId }, { projection: exports.accountProjection })) ??
        (await serviceAccountAsAccount(this, caller.accountId));
    if (!account)
        throw new errors_1.UnauthorizedError("Account no longer exists");
    const groups = await this.store
        .collection("groups")
        .find({ _id: { $in: caller.groupIds } }, { projection: { _id: 1, name: 1 } });
    return {
        account: account,
        roles: caller.roles,
        groups: groups,
    };
}
async function myTtl(ctx) {
    const caller = requireCaller(ctx.meta);
    if (!caller.sessionId)
        return 0;
    const session = await this.store.collection("sessions").findOne({ _id: caller.sessionId });
    return session ? Math.max(0, Math.floor((session.expiresAt - Date.now()) / 1000)) : 0;
}
async function authenticate(ctx) {
    const sessionId = (0, session_id_1.sessionIdOf)(ctx.params.token);
    const now = Date.now();
    const sessions = this.store.collection("sessions");
    let session = await sessions.findOne({ _id: sessionId, expiresAt: { $gt: now } });
    if (!session)
        throw new errors_1.UnauthorizedError("Invalid or expired token");
    const expiresAt = now + ttlMs(this);
    if (expiresAt - session.expiresAt >= slideGranularityMs(ttlMs(this))) {
        session =
            (await sessions.findOneAndUpdate({ _id: sessionId, expiresAt: { $gt: now } }, { $set: { expiresAt } })) ?? null;
        if (!session)
            throw new errors_1.UnauthorizedError("Invalid or expired token");
    }
    return { ...(await callerOf(this, session.accountId)), sessionId, expiresAt: session.expiresAt };
}
async function refreshCaller(ctx) {
    const { accountId, sessionId } = ctx.params;
    if (sessionId) {
        const session = await this.store
            .collection("sessions")
            .findOne({ _id: sessionId, accountId, expiresAt: { $gt: Date.now() } });
        if (!session)
            throw new errors_1.UnauthorizedError("The session has ended");
        return { ...(await callerOf(this, accountId)), sessionId, expiresAt: session.expiresAt };
    }
    return callerOf(this, accountId);
}
async function authenticateBasic(ctx) {
    const account = await this.store.collection("accounts").findOne({ username: ctx.params.username });
    const credentials = account
        ? await this.store.collection("account_credentials").findOne({ _id: account._id })
        : null;
    const valid = await (0, passwords_1.verifyPassword)(ctx.params.password, credentials?.hash ?? (await (0, passwords_1.decoyHash)()));
    if (!account || !credentials || !valid || account.inactive)
        throw new errors_1.UnauthorizedError("Invalid username or password");
    return callerOf(this, account._id);
}
function ttlMs(service) {
    return (0, runtime_1.configOf)(service.broker).sessionTtlSeconds * 1000;
}
function requireCaller(meta) {
    if (!meta.caller)
        throw new errors_1.UnauthorizedError();
    return meta.caller;
}
/** whoami of a service account: its document in an account's shape (its name as the username). */
async function serviceAccountAsAccount(service, id) {
    const sa = await service.store.collection(exports.SERVICE_ACCOUNTS).findOne({ _id: id });
    if (!sa)
        return null;
    return {
        _id: sa._id,
        provenance: "service",
        username: sa.name,
        firstname: "",
        memberOf: sa.memberOf,
        lastLogin: null,
        inactive: sa.inactive,
        _meta: sa._meta,
    };
}
/** The caller behind an id: an account, or else a service account (whose name stands for a username). */
async function callerOf(service, accountId) {
    const account = (await service.store.collection("accounts").findOne({ _id: accountId })) ??
        (await service.store.collection(exports.SERVICE_ACCOUNTS).findOne({ _id: accountId }));
    if (!account || account.inactive)
        throw new errors_1.UnauthorizedError("Account is inactive or gone");
    const groups = (await service.store.collection("groups").find({}));
    const { groupIds, roles } = (0, roles_1.resolveGroups)((account.memberOf ?? []).map((m) => m.groupId), groups);
    return { accountId, username: account.username ?? account.name, roles, groupIds };
}
/** Deletes the matching sessions and tells every gateway to forget them now. */
async function revokeSessions(service, filter) {
    const sessions = service.store.collection("sessions");
    const ids = (await sessions.find(filter, { projection: { _id: 1 } })).map((s) => s._id);
    if (ids.length === 0)
        return;
    await sessions.deleteMany({ _id: { $in: ids } });
    service.broker.broadcast(events_1.SESSIONS_REVOKED_EVENT, { sessionIds: ids });
}
/** The active profile's settings, when the profiles service runs; none otherwise. */
async function activeProfile(service, ctx) {
    if (!(0, service_1.isActionAvailable)(service.broker, "profiles.active"))
        return null;
    try {
        return await (0, contracts_1.call)(ctx, "profiles.active", {}, { timeout: 2000 });
    }
    catch {
        return null;
    }
}
//# sourceMappingURL=sessions.js.map