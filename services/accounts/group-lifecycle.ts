/**
 * The groups' lifecycle, in the real product's routes (its Authorization API): GET, POST, PATCH and
 * DELETE /authorization/groups[/:groupId]; and ours beside them: adding and removing members.
 *
 * A group's members are the accounts (and service accounts) whose `memberOf` names it, and the
 * groups whose `memberOf` names it (they inherit its roles). A change to a group changes the rights
 * of all of them: it broadcasts ACCOUNTS_CHANGED_EVENT with `all`, and every gateway drops its
 * cached callers (their next request is resolved anew).
 *
 * Deleting a group: other services keep group ids on their objects (the engine's workflows and jobs,
 * the scheduler's automations); accounts never reads their collections, it asks each over the bus
 * (their internal `releaseGroup` action). While the group is some object's only owner group the
 * delete is refused (409 naming the objects): without it the object would be open to every caller.
 * Otherwise the group leaves every account, group and object, then goes. An object that came to name
 * only this group between the check and the delete keeps the id of a group that no longer exists:
 * only admins pass it (fail closed), and the delete's answer says so.
 */
import { callAsPlatform } from "../../shared/authorization";
import type { accounts as contract } from "../../shared/contracts/accounts";
import type { Account, Group } from "../../shared/contracts/resources";
import { ConflictError, NotFoundError, invalidField } from "../../shared/errors";
import { isActionAvailable, type HandlerContext } from "../../shared/service";
import { DuplicateKeyError } from "../../shared/store/types";
import { nowIso } from "../../shared/text";
import type { AccountsService } from "./accounts.service";
import { roleNamesOf } from "./custom-roles";
import { groupsByNameOrId } from "./groups";
import type { GroupChanges, StoredGroup } from "./groups.repository";
import { announce, changedBy, refOf } from "./lifecycle";

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

const CAS_ATTEMPTS = 5;
/** The services that keep group ids on their objects, asked through their `releaseGroup` action. */
const OWNERS = ["engine.releaseGroup", "scheduler.releaseGroup"] as const;

async function findGroup(service: AccountsService, ref: string): Promise<StoredGroup> {
  const group = await service.groups.byIdOrName(ref);
  if (!group) throw new NotFoundError("Group", ref);
  return group;
}

/** A group as answers show it: without its hidden revision. */
const strip = (g: StoredGroup): Group => {
  const { _rev, ...rest } = g;
  void _rev;
  return rest;
};

export async function getGroup(this: AccountsService, ctx: Ctx<"getGroup">) {
  return strip(await findGroup(this, ctx.params.groupId));
}

/** The names of a group's parents from references (names, ids or `{groupId}`); unknown is a 400. */
async function parentNames(
  service: AccountsService,
  refs: readonly (string | { groupId: string })[],
  field: string,
  self?: StoredGroup,
): Promise<string[]> {
  const parents = await groupsByNameOrId(service, [...new Set(refs.map(refOf))], field);
  if (self && parents.some((g) => g._id === self._id))
    throw invalidField(field, `Group '${self.name}' cannot be a member of itself`, "memberOfSelf");
  return parents.map((g) => g.name);
}

/** POST /authorization/groups: `{group: {...}}`, answered in the real product's envelope. */
export async function createAuthorizationGroup(this: AccountsService, ctx: Ctx<"createAuthorizationGroup">) {
  const { name, description = "", memberOf = [], assignedRoles = [], inactive = false } = ctx.params.group;
  const now = nowIso();
  const fields = {
    provenance: "local",
    name,
    description,
    memberOf: await parentNames(this, memberOf, "group.memberOf"),
    assignedRoles: await roleNamesOf(this, assignedRoles, "group.assignedRoles"),
    inactive,
    _meta: { created: now, updated: now },
  };
  let group: Group;
  try {
    group = await this.groups.insert(fields);
  } catch (err) {
    if (err instanceof DuplicateKeyError) throw new ConflictError(`Group '${name}' already exists`);
    throw err;
  }
  announce(this, { kind: "group", action: "updated", id: group._id, accountIds: [], by: changedBy(ctx) });
  return { status: "OK", message: `Group '${name}' created`, data: group };
}

export async function updateGroup(this: AccountsService, ctx: Ctx<"updateGroup">) {
  const { groupId, updates } = ctx.params;
  let updated: Group | null = null;
  let fields: string[] = [];
  // Compare-and-set on the hidden revision: the parents are checked against the group as written.
  for (let attempt = 0; attempt < CAS_ATTEMPTS && !updated; attempt++) {
    const current = await findGroup(this, groupId);
    // The resource's own field, as a client sends the group back: its current value only.
    if (updates.name !== undefined && updates.name !== current.name)
      throw invalidField(
        "updates.name",
        `A group's name cannot change (child groups name it in their memberOf); send '${current.name}' or leave it out`,
        "immutable",
      );
    const set: GroupChanges = {};
    if (updates.description !== undefined) set.description = updates.description;
    if (updates.inactive !== undefined) set.inactive = updates.inactive;
    if (updates.memberOf)
      set.memberOf = await parentNames(this, updates.memberOf, "updates.memberOf", current);
    if (updates.assignedRoles)
      set.assignedRoles = await roleNamesOf(this, updates.assignedRoles, "updates.assignedRoles");
    fields = Object.keys(set);
    updated = await this.groups.updateAtRevision(current._id, current._rev, set, nowIso(), changedBy(ctx));
  }
  if (!updated) throw new ConflictError(`Group '${groupId}' kept changing; try again`, { groupId });
  announce(this, {
    kind: "group",
    action: "updated",
    id: updated._id,
    fields,
    accountIds: [],
    all: true,
    by: changedBy(ctx),
  });
  return { status: "OK", message: `Group '${updated.name}' updated`, data: updated };
}

/** The accounts named by id or username; an unknown one is a 400 on `field`. */
async function accountsByIdOrName(
  service: AccountsService,
  refs: string[],
  field: string,
): Promise<Pick<Account, "_id" | "username">[]> {
  const found = await service.accounts.refsByIdOrUsername(refs);
  const missing = refs.filter((r) => !found.some((a) => a._id === r || a.username === r));
  if (missing.length > 0)
    throw invalidField(field, `Unknown account(s): ${missing.join(", ")}`, "unknownAccount");
  return found;
}

/**
 * POST /authorization/groups/:groupId/members (ours): each account joins the group in one atomic
 * write (a `$push` filtered on "not a member yet"), so two callers changing the same account's
 * groups at once both take effect, and a repeat adds nothing.
 */
export async function addGroupMembers(this: AccountsService, ctx: Ctx<"addGroupMembers">) {
  const group = await findGroup(this, ctx.params.groupId);
  const members = await accountsByIdOrName(this, [...new Set(ctx.params.accounts)], "accounts");
  const ids = members.map((a) => a._id);
  const joined = await this.accounts.joinGroup(ids, group._id, nowIso(), changedBy(ctx));
  // A delete of the group that ran meanwhile could not see these: take them out again.
  if (!(await this.groups.exists(group._id))) {
    await this.accounts.undoJoins(group._id);
    throw new NotFoundError("Group", ctx.params.groupId);
  }
  announce(this, {
    kind: "group",
    action: "updated",
    id: group._id,
    fields: ["members"],
    accountIds: ids,
    by: changedBy(ctx),
  });
  return { status: "OK", message: `${joined} account(s) joined '${group.name}'` };
}

/** DELETE /authorization/groups/:groupId/members/:accountId (ours): one atomic $pull. */
export async function removeGroupMember(this: AccountsService, ctx: Ctx<"removeGroupMember">) {
  const group = await findGroup(this, ctx.params.groupId);
  const [account] = await accountsByIdOrName(this, [ctx.params.accountId], "accountId").catch(() => {
    throw new NotFoundError("Account", ctx.params.accountId);
  });
  if (!(await this.accounts.leaveGroup(account!._id, group._id, nowIso(), changedBy(ctx))))
    throw new NotFoundError(`Membership of '${account!.username}' in group`, group.name);
  announce(this, {
    kind: "group",
    action: "updated",
    id: group._id,
    fields: ["members"],
    accountIds: [account!._id],
    by: changedBy(ctx),
  });
  return { status: "OK", message: `'${account!.username}' left '${group.name}'` };
}

type Release = { sole: { type: string; id: string; name: string }[]; released: number };

/** Each owning service that runs here, asked to check (apply false) or to release the group. */
async function release(ctx: Ctx<"deleteGroup">, service: AccountsService, groupId: string, apply: boolean) {
  const answers: Release[] = [];
  for (const action of OWNERS)
    if (isActionAvailable(service.broker, action))
      answers.push(await callAsPlatform(ctx, action, { groupId, apply }));
  return {
    sole: answers.flatMap((a) => a.sole),
    released: answers.reduce((n, a) => n + a.released, 0),
  };
}

export async function deleteGroup(this: AccountsService, ctx: Ctx<"deleteGroup">) {
  const group = await findGroup(this, ctx.params.groupId);
  const check = await release(ctx, this, group._id, false);
  if (check.sole.length > 0)
    throw new ConflictError(
      `Group '${group.name}' is the only owner group of ${check.sole.length} object(s); give them another group first`,
      { groupId: group._id, objects: check.sole.slice(0, 100) },
    );
  // Gone first: from here on no new reference to it passes the other services' group checks.
  if (!(await this.groups.remove(group._id))) throw new NotFoundError("Group", ctx.params.groupId);
  const now = nowIso();
  const by = changedBy(ctx);
  const accounts = await this.accounts.leaveDeletedGroup(group._id, now);
  await this.serviceAccounts.leaveDeletedGroup(group._id, now);
  const children = await this.groups.dropParent(group.name, now, by);
  const released = await release(ctx, this, group._id, true);
  if (released.sole.length > 0)
    this.logger.warn(
      `group ${group._id} deleted while ${released.sole.length} object(s) came to name only it: admins only`,
    );
  announce(this, { kind: "group", action: "deleted", id: group._id, accountIds: [], all: true, by });
  return {
    status: "OK",
    message:
      `Group '${group.name}' deleted: it left ${accounts} account(s), ${children} group(s) and ${released.released} object(s)` +
      (released.sole.length > 0
        ? `; ${released.sole.length} object(s) named only it meanwhile and are now open to admins only`
        : ""),
  };
}
