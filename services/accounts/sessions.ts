/**
 * Sessions (spec operation 4): sign-in by password or token, sign-out, who am I. Sessions live in
 * `sessions` keyed by the token's session id (./sessions.repository.ts); every replica reads them
 * from the store, so any gateway accepts any token. Service accounts (./service-accounts.ts) sign
 * in here too: by OAuth token, then as any session.
 */
import { createHmac, randomBytes } from "node:crypto";
import { callAsPlatform } from "../../shared/authorization";
import type { accounts as contract } from "../../shared/contracts/accounts";
import { Errors } from "moleculer";
import { SESSIONS_REVOKED_EVENT } from "../../shared/contracts/events";
import type { Account, Caller, Profile, ServiceAccount } from "../../shared/contracts/resources";
import { UnauthorizedError } from "../../shared/errors";
import { configOf } from "../../shared/runtime";
import { isActionAvailable, type HandlerContext, type PlatformMeta } from "../../shared/service";
import { sessionIdOf } from "../../shared/session-id";
import { nowIso } from "../../shared/text";
import { decoyHash, verifyPassword } from "./passwords";
import { resolveGroups } from "./roles";
import { methodsOf } from "./custom-roles";
import type { AccountsService } from "./accounts.service";
import type { StoredAccount } from "./accounts.repository";
import type { SessionSelection } from "./sessions.repository";

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

/** Sliding writes at most once a minute, and at least four times per session TTL (a short TTL still slides). */
const slideGranularityMs = (ttl: number) => Math.min(60_000, Math.floor(ttl / 4));

export async function login(this: AccountsService, ctx: Ctx<"login">) {
  const { username, password } = ctx.params.user;
  await refuseWhileLocked(this, username);
  const account = await this.accounts.byUsername(username);
  if (!(await secretMatches(this, account, password, username)) || !account)
    throw new UnauthorizedError("Invalid username or password");

  const profile = await activeProfile(this, ctx);
  if (profile?.authenticationProps?.uniqueSession === true)
    await revokeSessions(this, { accountId: account._id });
  const opened = await openSession(this, account._id);
  await this.accounts.noteSignIn(account._id, nowIso());
  this.logger.info(`login: ${username}`);
  return opened;
}

/**
 * A new session of `accountId` (an account's or a service account's id): the token goes to the
 * caller once; the store keeps only its session id (shared/session-id.ts).
 */
export async function openSession(
  service: AccountsService,
  accountId: string,
): Promise<{ token: string; expiresAt: number }> {
  const token = randomBytes(32).toString("base64url");
  const now = Date.now();
  const session = await service.sessions.open({
    _id: sessionIdOf(token),
    accountId,
    created: now,
    expiresAt: now + ttlMs(service),
  });
  return { token, expiresAt: session.expiresAt };
}

/** The id a username's failures are counted under: HMAC-SHA256 under the platform key. */
function failureId(service: AccountsService, username: string): string {
  return createHmac("sha256", service.secretKey).update(`login-failure:${username}`).digest("base64url");
}

/**
 * Does `secret` match the stored hash of `holder` (an account or a service account), which must be
 * active? An unknown holder is checked against the decoy hash, so the answer takes the same time.
 * A mismatch counts toward the lock-out of `failureKey`.
 */
export async function secretMatches(
  service: AccountsService,
  holder: { _id: string; inactive: boolean } | null,
  secret: string,
  failureKey: string,
): Promise<boolean> {
  const credentials = holder ? await service.credentials.of(holder._id) : null;
  const valid = await service.passwordWork.run(async () =>
    verifyPassword(secret, credentials?.hash ?? (await decoyHash())),
  );
  if (holder && credentials && valid && !holder.inactive) return true;
  await countFailure(service, failureKey);
  return false;
}

/**
 * Password guessing, per account across every gateway and replica (the count lives in the store):
 * after LOGIN_MAX_FAILURES failed sign-ins within LOGIN_FAILURE_WINDOW_MS, sign-in to that username
 * is refused (429) until the window ends. Unknown usernames are counted too, so the answer does not
 * tell which exist. The gateway also limits sign-ins per client address (LOGIN_RATE_LIMIT).
 *
 * A count is kept under a keyed hash of the username (failureId), never the typed text: a password
 * typed into the username box is not stored. Every replica holds the same platform key, so they
 * all count under the same id. Counts expire with their window (./login-failures.repository.ts).
 */
export async function refuseWhileLocked(service: AccountsService, username: string): Promise<void> {
  const { loginMaxFailures } = configOf(service.broker);
  const failures = await service.loginFailures.countNow(failureId(service, username), Date.now());
  if (failures >= loginMaxFailures)
    throw new Errors.MoleculerClientError(
      "Too many failed sign-ins for this account; try again later",
      429,
      "RATE_LIMITED",
    );
}

async function countFailure(service: AccountsService, username: string): Promise<void> {
  const { loginFailureWindowMs } = configOf(service.broker);
  await service.loginFailures.countOne(failureId(service, username), Date.now(), loginFailureWindowMs);
}

export async function logout(this: AccountsService, ctx: Ctx<"logout">) {
  const sessionId = ctx.meta.caller?.sessionId;
  if (!sessionId) return { status: "OK", message: "No session to end (Basic authentication)" };
  await revokeSessions(this, { sessionId });
  return { status: "OK", message: "Logged out" };
}

export async function whoami(this: AccountsService, ctx: Ctx<"whoami">) {
  const caller = requireCaller(ctx.meta);
  const account =
    (await this.accounts.shownById(caller.accountId)) ??
    (await serviceAccountAsAccount(this, caller.accountId));
  if (!account) throw new UnauthorizedError("Account no longer exists");
  const groups = await this.groups.namesOf(caller.groupIds);
  return { account, roles: caller.roles, groups };
}

export async function myTtl(this: AccountsService, ctx: Ctx<"myTtl">) {
  const caller = requireCaller(ctx.meta);
  if (!caller.sessionId) return 0;
  const session = await this.sessions.byId(caller.sessionId);
  return session ? Math.max(0, Math.floor((session.expiresAt - Date.now()) / 1000)) : 0;
}

export async function authenticate(this: AccountsService, ctx: Ctx<"authenticate">) {
  const sessionId = sessionIdOf(ctx.params.token);
  const now = Date.now();
  let session = await this.sessions.live(sessionId, now);
  if (!session) throw new UnauthorizedError("Invalid or expired token");
  const expiresAt = now + ttlMs(this);
  if (expiresAt - session.expiresAt >= slideGranularityMs(ttlMs(this))) {
    session = await this.sessions.slide(sessionId, now, expiresAt);
    if (!session) throw new UnauthorizedError("Invalid or expired token");
  }
  return { ...(await callerOf(this, session.accountId)), sessionId, expiresAt: session.expiresAt };
}

export async function refreshCaller(this: AccountsService, ctx: Ctx<"refreshCaller">) {
  const { accountId, sessionId } = ctx.params;
  if (sessionId) {
    const session = await this.sessions.live(sessionId, Date.now(), accountId);
    if (!session) throw new UnauthorizedError("The session has ended");
    return { ...(await callerOf(this, accountId)), sessionId, expiresAt: session.expiresAt };
  }
  return callerOf(this, accountId);
}

export async function authenticateBasic(this: AccountsService, ctx: Ctx<"authenticateBasic">) {
  const account = await this.accounts.byUsername(ctx.params.username);
  const credentials = account ? await this.credentials.of(account._id) : null;
  const valid = await this.passwordWork.run(async () =>
    verifyPassword(ctx.params.password, credentials?.hash ?? (await decoyHash())),
  );
  if (!account || !credentials || !valid || account.inactive)
    throw new UnauthorizedError("Invalid username or password");
  return callerOf(this, account._id);
}

function ttlMs(service: AccountsService): number {
  return configOf(service.broker).sessionTtlSeconds * 1000;
}

export function requireCaller(meta: PlatformMeta): Caller {
  if (!meta.caller) throw new UnauthorizedError();
  return meta.caller;
}

/** whoami of a service account: its document in an account's shape (its name as the username). */
async function serviceAccountAsAccount(service: AccountsService, id: string): Promise<Account | null> {
  const sa = await service.serviceAccounts.byId(id);
  if (!sa) return null;
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
async function callerOf(service: AccountsService, accountId: string): Promise<Caller> {
  const holder: StoredAccount | ServiceAccount | null =
    (await service.accounts.byId(accountId)) ?? (await service.serviceAccounts.byId(accountId));
  if (!holder || holder.inactive) throw new UnauthorizedError("Account is inactive or gone");
  const { groupIds, roles, customRoles } = resolveGroups(
    holder.memberOf.map((m) => m.groupId),
    await service.groups.allForRights(),
    "assignedRoles" in holder ? (holder.assignedRoles ?? []) : [],
  );
  const methods = await methodsOf(service, customRoles);
  // resolvedAt: the authorization middleware trusts these rights for AUTH_CACHE_MS (shared/authorization.ts).
  const resolvedAt = Date.now();
  const username = "username" in holder ? holder.username : holder.name;
  return { accountId, username, roles, groupIds, methods, resolvedAt };
}

/** Deletes the selected sessions and tells every gateway to forget them now. */
export async function revokeSessions(service: AccountsService, selection: SessionSelection): Promise<void> {
  const ids = await service.sessions.idsOf(selection);
  if (ids.length === 0) return;
  await service.sessions.removeIds(ids);
  service.broker.broadcast(SESSIONS_REVOKED_EVENT, { sessionIds: ids });
}

/** The active profile's settings, when the profiles service runs; none otherwise. */
async function activeProfile(service: AccountsService, ctx: Ctx<"login">): Promise<Profile | null> {
  if (!isActionAvailable(service.broker, "profiles.active")) return null;
  try {
    return await callAsPlatform(ctx, "profiles.active", {}, { timeout: 2000 });
  } catch {
    return null;
  }
}
