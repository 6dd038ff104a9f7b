/**
 * Accounts (spec operation 4): list, create, passwords. The `accounts` collection never holds a
 * password: the scrypt hashes live in `account_credentials`, read only by this service.
 */
import type { accounts as contract } from "../../shared/contracts/accounts";
import type { Account } from "../../shared/contracts/resources";
import { BadRequestError, ConflictError, NotFoundError } from "../../shared/errors";
import type { HandlerContext } from "../../shared/service";
import { DuplicateKeyError } from "../../shared/store/types";
import { nowIso } from "../../shared/text";
import type { AccountsService } from "./accounts.service";
import { memberOfFromBody } from "./groups";
import { checkAssignedRoles } from "./custom-roles";
import { hashPassword, verifyPassword } from "./passwords";
import { accountQuery } from "./query";
import { accountProjection, requireCaller, revokeSessions } from "./sessions";

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

export async function list(this: AccountsService, ctx: Ctx<"list">) {
  const { filter, sort, skip, limit } = accountQuery(ctx.params.queryOptions);
  const collection = this.store.collection("accounts");
  const [results, total] = await Promise.all([
    // Read-only: the page goes out as it is, so the store need not copy it.
    collection.find(filter, { sort, skip, limit, projection: accountProjection, readOnly: true }),
    collection.count(filter),
  ]);
  return { results: results as Account[], skip, limit, total };
}

export async function create(this: AccountsService, ctx: Ctx<"create">) {
  const { username, password, firstname, inactive = false } = ctx.params;
  const memberOf = await memberOfFromBody(this, ctx.params);
  const { assignedRoles } = ctx.params;
  if (assignedRoles) await checkAssignedRoles(this, assignedRoles, "assignedRoles");
  const hash = await hashPassword(password);
  const now = nowIso();
  const doc = {
    provenance: "local",
    username,
    firstname: firstname ?? "",
    memberOf,
    ...(assignedRoles && { assignedRoles: [...new Set(assignedRoles)] }),
    lastLogin: null,
    inactive,
    _meta: { created: now, updated: now },
  };
  let account: Account;
  try {
    account = (await this.store.collection("accounts").insertOne(doc)) as Account;
  } catch (err) {
    if (err instanceof DuplicateKeyError) throw new ConflictError(`Account '${username}' already exists`);
    throw err;
  }
  await this.store.collection("account_credentials").insertOne({ _id: account._id, hash, updated: now });
  return account;
}

export async function setPassword(this: AccountsService, ctx: Ctx<"setPassword">) {
  const account = await this.store.collection("accounts").findOne({ username: ctx.params.username });
  if (!account) throw new NotFoundError("Account", ctx.params.username);
  await storePassword(this, account._id, ctx.params.password);
  await revokeSessions(this, { accountId: account._id });
  return { status: "OK", message: `Password of '${ctx.params.username}' set; its sessions ended` };
}

export async function changePassword(this: AccountsService, ctx: Ctx<"changePassword">) {
  const caller = requireCaller(ctx.meta);
  const credentials = await this.store.collection("account_credentials").findOne({ _id: caller.accountId });
  if (!credentials || !(await verifyPassword(ctx.params.currentPassword, credentials.hash))) {
    throw new BadRequestError("Current password is wrong", [
      { field: "currentPassword", message: "Current password is wrong", type: "password" },
    ]);
  }
  // Compare-and-set on the hash that was verified: of two changes from the same current password,
  // one wins; the other finds the hash changed and changes nothing.
  const changed = await this.store
    .collection("account_credentials")
    .updateOne(
      { _id: caller.accountId, hash: credentials.hash },
      { $set: { hash: await hashPassword(ctx.params.newPassword), updated: nowIso() } },
    );
  if (changed.matchedCount === 0)
    throw new ConflictError("The password was changed by another request meanwhile; sign in again");
  await this.store
    .collection("accounts")
    .updateOne({ _id: caller.accountId }, { $set: { "_meta.updated": nowIso() } });
  await revokeSessions(this, { accountId: caller.accountId, _id: { $ne: caller.sessionId ?? "" } });
  return { status: "OK", message: "Password changed; your other sessions ended" };
}

async function storePassword(service: AccountsService, accountId: string, password: string): Promise<void> {
  const hash = await hashPassword(password);
  await service.store
    .collection("account_credentials")
    .updateOne({ _id: accountId }, { $set: { hash, updated: nowIso() } }, { upsert: true });
  await service.store
    .collection("accounts")
    .updateOne({ _id: accountId }, { $set: { "_meta.updated": nowIso() } });
}
