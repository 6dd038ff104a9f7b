/**
 * The accounts' lifecycle, in the real product's routes (its Authorization API): read one
 * (GET /authorization/accounts/:accountId), update (PATCH, `{updates: {inactive, email,
 * assignedRoles, memberOf}}`), and ours beside them: delete, and a forced logout.
 *
 * Sessions: deactivating, deleting or logging an account out deletes its sessions in the store and
 * broadcasts their ids (every gateway forgets them at once: the next request with one of its tokens
 * answers 401). Any change broadcasts ACCOUNTS_CHANGED_EVENT, and every gateway drops the cached
 * callers of that account: its next request is resolved with its rights as they are now. A caller
 * the platform stored (a job's `runAs`, an automation's owner) is resolved again on each node
 * within AUTH_CACHE_MS (shared/authorization.ts).
 *
 * Writes are a compare-and-set on the account's hidden revision `_rev`: an update is applied to the
 * version its checks read, or read again and checked again.
 */
import type { accounts as contract } from "../../shared/contracts/accounts";
import { ACCOUNTS_CHANGED_EVENT, type AccountsChangedEvent } from "../../shared/contracts/events";
import type { Account } from "../../shared/contracts/resources";
import { ConflictError, NotFoundError, invalidField } from "../../shared/errors";
import type { HandlerContext } from "../../shared/service";
import { nowIso } from "../../shared/text";
import type { AccountChanges, StoredAccount } from "./accounts.repository";
import type { AccountsService } from "./accounts.service";
import { roleNamesOf } from "./custom-roles";
import { groupsByNameOrId } from "./groups";
import { revokeSessions } from "./sessions";

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

/** How often an update reads again when another write changed the account meanwhile. */
const CAS_ATTEMPTS = 5;

/** Who made a change, for `last_updated_by`: the caller's account id, or the platform itself. */
export const changedBy = (ctx: { meta: { caller?: { accountId: string } } }) =>
  ctx.meta.caller?.accountId ?? "system";

/** Tells every node an account or group changed (gateways drop the callers it touches). */
export function announce(service: AccountsService, event: AccountsChangedEvent): void {
  service.broker.broadcast(ACCOUNTS_CHANGED_EVENT, event);
}

/** A `groupId` reference: a plain name or id, or the resource's own `{groupId}` entry. */
export const refOf = (r: string | { groupId: string }) => (typeof r === "string" ? r : r.groupId);

async function findAccount(service: AccountsService, accountId: string): Promise<StoredAccount> {
  const account = await service.accounts.byId(accountId);
  if (!account) throw new NotFoundError("Account", accountId);
  return account;
}

export async function getAccount(this: AccountsService, ctx: Ctx<"getAccount">) {
  const account = await this.accounts.shownById(ctx.params.accountId);
  if (!account) throw new NotFoundError("Account", ctx.params.accountId);
  return account;
}

export async function updateAccount(this: AccountsService, ctx: Ctx<"updateAccount">) {
  const { accountId, updates } = ctx.params;
  const set: AccountChanges = {};
  if (updates.inactive !== undefined) set.inactive = updates.inactive;
  if (updates.email !== undefined) set.email = updates.email;
  if (updates.firstname !== undefined) set.firstname = updates.firstname;
  if (updates.assignedRoles)
    set.assignedRoles = await roleNamesOf(this, updates.assignedRoles, "updates.assignedRoles");
  if (updates.memberOf) {
    const groups = await groupsByNameOrId(
      this,
      [...new Set(updates.memberOf.map(refOf))],
      "updates.memberOf",
    );
    set.memberOf = groups.map((g) => ({ groupId: g._id, aaaManaged: true as const }));
  }
  const fields = Object.keys(set);
  if (updates.inactive === true && ctx.meta.caller?.accountId === accountId)
    throw new ConflictError("You may not deactivate your own account", { accountId });

  let updated: Account | null = null;
  for (let attempt = 0; attempt < CAS_ATTEMPTS && !updated; attempt++) {
    const current = await findAccount(this, accountId);
    // The resource's own field, as a client sends the account back: its current value only.
    if (updates.username !== undefined && updates.username !== current.username)
      throw invalidField(
        "updates.username",
        `An account's username cannot change (it signs in with it); send '${current.username}' or leave it out`,
        "immutable",
      );
    updated = await this.accounts.updateAtRevision(accountId, current._rev, set, nowIso(), changedBy(ctx));
  }
  if (!updated) throw new ConflictError(`Account '${accountId}' kept changing; try again`, { accountId });
  if (set.memberOf) await dropVanishedGroups(this, accountId, set.memberOf);

  if (updates.inactive === true) await revokeSessions(this, { accountId });
  announce(this, {
    kind: "account",
    action: "updated",
    id: accountId,
    fields,
    accountIds: [accountId],
    by: changedBy(ctx),
  });
  return { status: "OK", message: `Account '${updated.username}' updated`, data: updated };
}

/**
 * A group deleted between an update's check and its write would stay in `memberOf`: read the
 * groups again after the write and take out the ones that went (the delete took them out of every
 * account it could see).
 */
async function dropVanishedGroups(
  service: AccountsService,
  accountId: string,
  memberOf: { groupId: string }[],
): Promise<void> {
  if (memberOf.length === 0) return;
  const ids = memberOf.map((m) => m.groupId);
  const still = await service.groups.existing(ids);
  const gone = ids.filter((id) => !still.has(id));
  if (gone.length > 0) await service.accounts.dropGroups(accountId, gone);
}

export async function deleteAccount(this: AccountsService, ctx: Ctx<"deleteAccount">) {
  const { accountId } = ctx.params;
  if (ctx.meta.caller?.accountId === accountId)
    throw new ConflictError("You may not delete your own account", { accountId });
  const account = await this.accounts.remove(accountId);
  if (!account) throw new NotFoundError("Account", accountId);
  await this.credentials.remove(accountId);
  await revokeSessions(this, { accountId });
  announce(this, {
    kind: "account",
    action: "deleted",
    id: accountId,
    accountIds: [accountId],
    by: changedBy(ctx),
  });
  this.logger.info(`account deleted: ${account.username}`);
  return { status: "OK", message: `Account '${account.username}' deleted; its sessions ended` };
}

export async function forceLogout(this: AccountsService, ctx: Ctx<"forceLogout">) {
  const { accountId } = ctx.params;
  const account = await findAccount(this, accountId);
  const ended = await this.sessions.countOfAccount(accountId);
  await revokeSessions(this, { accountId });
  announce(this, {
    kind: "account",
    action: "loggedOut",
    id: accountId,
    accountIds: [accountId],
    by: changedBy(ctx),
  });
  return { status: "OK", message: `'${account.username}' logged out: ${ended} session(s) ended` };
}
