/**
 * Accounts (spec operation 4): list, create, passwords. The `accounts` collection never holds a
 * password: the scrypt hashes live in `account_credentials`, read only by this service.
 */
import type { accounts as contract } from "../../shared/contracts/accounts";
import { BadRequestError, ConflictError, NotFoundError } from "../../shared/errors";
import type { HandlerContext } from "../../shared/service";
import { DuplicateKeyError } from "../../shared/store/types";
import { nowIso } from "../../shared/text";
import type { AccountsService } from "./accounts.service";
import { memberOfFromBody } from "./groups";
import { checkAssignedRoles } from "./custom-roles";
import { hashPassword, verifyPassword } from "./passwords";
import { accountQuery } from "./query";
import { requireCaller, revokeSessions } from "./sessions";

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

export async function list(this: AccountsService, ctx: Ctx<"list">) {
  const { filter, sort, skip, limit } = accountQuery(ctx.params.queryOptions);
  const { results, total } = await this.accounts.page(filter, sort, skip, limit);
  return { results, skip, limit, total };
}

export async function create(this: AccountsService, ctx: Ctx<"create">) {
  const { username, password, firstname, inactive = false } = ctx.params;
  const memberOf = await memberOfFromBody(this, ctx.params);
  const { assignedRoles } = ctx.params;
  if (assignedRoles) await checkAssignedRoles(this, assignedRoles, "assignedRoles");
  const hash = await this.passwordWork.run(() => hashPassword(password));
  const now = nowIso();
  let account;
  try {
    account = await this.accounts.insert({
      provenance: "local",
      username,
      firstname: firstname ?? "",
      memberOf,
      ...(assignedRoles && { assignedRoles: [...new Set(assignedRoles)] }),
      lastLogin: null,
      inactive,
      _meta: { created: now, updated: now },
    });
  } catch (err) {
    if (err instanceof DuplicateKeyError) throw new ConflictError(`Account '${username}' already exists`);
    throw err;
  }
  await this.credentials.insert(account._id, hash, now);
  return account;
}

export async function setPassword(this: AccountsService, ctx: Ctx<"setPassword">) {
  const account = await this.accounts.byUsername(ctx.params.username);
  if (!account) throw new NotFoundError("Account", ctx.params.username);
  await storePassword(this, account._id, ctx.params.password);
  await revokeSessions(this, { accountId: account._id });
  return { status: "OK", message: `Password of '${ctx.params.username}' set; its sessions ended` };
}

export async function changePassword(this: AccountsService, ctx: Ctx<"changePassword">) {
  const caller = requireCaller(ctx.meta);
  const credentials = await this.credentials.of(caller.accountId);
  const wrongPassword = () =>
    new BadRequestError("Current password is wrong", [
      { field: "currentPassword", message: "Current password is wrong", type: "password" },
    ]);
  if (!credentials) throw wrongPassword();
  // A change that landed while this one waited its turn, or while it verified: no derivation for a
  // compare-and-set that would lose (20 parallel changes cost a few derivations, not 40).
  const changedSinceRead = async () =>
    (await this.credentials.of(caller.accountId))?.hash !== credentials.hash;
  const hash = await this.passwordWork.run(async () => {
    if (await changedSinceRead()) throw changedMeanwhile();
    if (!(await verifyPassword(ctx.params.currentPassword, credentials.hash))) throw wrongPassword();
    if (await changedSinceRead()) throw changedMeanwhile();
    return hashPassword(ctx.params.newPassword);
  });
  // Compare-and-set on the hash that was verified: of two changes from the same current password,
  // one wins; the other finds the hash changed and changes nothing.
  if (!(await this.credentials.replace(caller.accountId, credentials.hash, hash, nowIso())))
    throw changedMeanwhile();
  await this.accounts.touch(caller.accountId, nowIso());
  await revokeSessions(this, { accountId: caller.accountId, except: caller.sessionId ?? "" });
  return { status: "OK", message: "Password changed; your other sessions ended" };
}

const changedMeanwhile = () =>
  new ConflictError("The password was changed by another request meanwhile; sign in again");

async function storePassword(service: AccountsService, accountId: string, password: string): Promise<void> {
  const hash = await service.passwordWork.run(() => hashPassword(password));
  await service.credentials.set(accountId, hash, nowIso());
  await service.accounts.touch(accountId, nowIso());
}
