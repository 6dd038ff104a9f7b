/**
 * Service accounts and OAuth 2.0 client credentials (docs/platform-rules.md#service-accounts).
 *
 * A service account is a client of the API, not a person: an admin creates it with groups, as an
 * account; the answer holds its client secret once, and the store keeps only a scrypt hash of it
 * (in `account_credentials`, beside the accounts' hashes). `POST /oauth/token` trades the client id
 * and secret for a token that is a session like any other: the gateway resolves it through
 * `accounts.authenticate`, and deleting the service account (or rotating its secret) ends it.
 */
import { randomBytes } from "node:crypto";
import type { accounts as contract } from "../../shared/contracts/accounts";
import type { ServiceAccount } from "../../shared/contracts/resources";
import { ConflictError, NotFoundError, UnauthorizedError } from "../../shared/errors";
import { page, pageLimit } from "../../shared/paging";
import type { HandlerContext } from "../../shared/service";
import { DuplicateKeyError } from "../../shared/store/types";
import { nowIso } from "../../shared/text";
import type { AccountsService } from "./accounts.service";
import { memberOfFromBody } from "./groups";
import { hashPassword } from "./passwords";
import { openSession, refuseWhileLocked, requireCaller, revokeSessions, secretMatches } from "./sessions";

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

const CLIENT_ID = /^[0-9a-fA-F]{24}$/;
/** Failed token requests are counted per client id, apart from usernames (which may look like ids). */
const failureKey = (clientId: string) => `oauth:${clientId}`;

/** 32 random bytes: the secret is a key, not a password; nobody has to remember it. */
const newSecret = () => randomBytes(32).toString("base64url");

export async function createServiceAccount(this: AccountsService, ctx: Ctx<"createServiceAccount">) {
  const caller = requireCaller(ctx.meta);
  const memberOf = await memberOfFromBody(this, ctx.params);
  const secret = newSecret();
  const hash = await this.passwordWork.run(() => hashPassword(secret));
  const now = nowIso();
  // The id is the client id: one value names the document and the OAuth client.
  const id = this.serviceAccounts.newId();
  const account: ServiceAccount = {
    _id: id,
    clientId: id,
    name: ctx.params.name,
    description: ctx.params.description ?? "",
    memberOf,
    inactive: ctx.params.inactive ?? false,
    createdBy: caller.accountId,
    _meta: { created: now, updated: now },
  };
  // The hash first: a service account is never visible without its credentials.
  await this.credentials.insert(id, hash, now);
  try {
    await this.serviceAccounts.insert(account);
  } catch (err) {
    await this.credentials.remove(id);
    if (err instanceof DuplicateKeyError)
      throw new ConflictError(`Service account '${ctx.params.name}' already exists`);
    throw err;
  }
  return { ...account, clientSecret: secret };
}

export async function listServiceAccounts(this: AccountsService, ctx: Ctx<"listServiceAccounts">) {
  const skip = ctx.params.skip ?? 0;
  const limit = pageLimit(ctx.params.limit);
  const { results, total } = await this.serviceAccounts.page(skip, limit);
  return page(results, total, skip, limit);
}

export async function deleteServiceAccount(this: AccountsService, ctx: Ctx<"deleteServiceAccount">) {
  const { clientId } = ctx.params;
  const removed = await this.serviceAccounts.remove(clientId);
  if (!removed) throw new NotFoundError("Service account", clientId);
  await this.credentials.remove(clientId);
  await revokeSessions(this, { accountId: clientId });
  return { status: "OK", message: `Service account '${removed.name}' deleted; its tokens ended` };
}

export async function rotateServiceAccountSecret(
  this: AccountsService,
  ctx: Ctx<"rotateServiceAccountSecret">,
) {
  const { clientId } = ctx.params;
  const account = await this.serviceAccounts.byId(clientId);
  if (!account) throw new NotFoundError("Service account", clientId);
  const secret = newSecret();
  const now = nowIso();
  await this.credentials.set(clientId, await this.passwordWork.run(() => hashPassword(secret)), now);
  await this.serviceAccounts.touch(clientId, now);
  await revokeSessions(this, { accountId: clientId });
  return { ...account, clientSecret: secret };
}

/**
 * POST /oauth/token (client credentials grant). A wrong or unknown client is one 401 and costs the
 * same time (the decoy hash); failures count toward the same lock-out as sign-ins.
 */
export async function token(this: AccountsService, ctx: Ctx<"token">) {
  const { client_id: clientId, client_secret: secret } = ctx.params;
  await refuseWhileLocked(this, failureKey(clientId));
  const account = CLIENT_ID.test(clientId) ? await this.serviceAccounts.byId(clientId) : null;
  if (!(await secretMatches(this, account, secret, failureKey(clientId))) || !account)
    throw new UnauthorizedError("Invalid client credentials");
  const { token: accessToken, expiresAt } = await openSession(this, account._id);
  this.logger.info(`oauth token: service account ${account.name}`);
  return {
    access_token: accessToken,
    token_type: "Bearer" as const,
    expires_in: Math.floor((expiresAt - Date.now()) / 1000),
  };
}
