/**
 * Groups (spec operation 4): create and list. `groupsByNameOrId` is the one check that named groups
 * exist; other services reach it through `accounts.listGroups`, never the `groups` collection.
 */
import { randomUUID } from "node:crypto";
import type { accounts as contract } from "../../shared/contracts/accounts";
import type { Group } from "../../shared/contracts/resources";
import { BadRequestError, ConflictError } from "../../shared/errors";
import type { HandlerContext } from "../../shared/service";
import { DuplicateKeyError } from "../../shared/store/types";
import { nowIso } from "../../shared/text";
import type { AccountsService } from "./accounts.service";
import { fieldQuery } from "./query";
import { checkAssignedRoles } from "./custom-roles";

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

/** The hidden revision of a group (./group-lifecycle.ts) never leaves the service. */
const HIDDEN = Object.freeze({ _rev: 0 as const });

export async function createGroup(this: AccountsService, ctx: Ctx<"createGroup">) {
  const { name, description = "", memberOf = [], assignedRoles = [], inactive = false } = ctx.params;
  const parents = await groupsByNameOrId(this, memberOf, "memberOf");
  await checkAssignedRoles(this, assignedRoles, "assignedRoles");
  const now = nowIso();
  const group: Group = {
    _id: randomUUID(),
    provenance: "local",
    name,
    description,
    memberOf: parents.map((g: Group) => g.name),
    assignedRoles: [...new Set(assignedRoles)],
    inactive,
    _meta: { created: now, updated: now },
  };
  try {
    return (await this.store.collection("groups").insertOne(group)) as Group;
  } catch (err) {
    if (err instanceof DuplicateKeyError) throw new ConflictError(`Group '${name}' already exists`);
    throw err;
  }
}

export async function listGroups(this: AccountsService) {
  return (await this.store
    .collection("groups")
    .find({}, { sort: { name: 1 }, projection: HIDDEN })) as Group[];
}

/** GET /authorization/groups: the accounts list's query over groups, answering `{results, total}`. */
export async function groupsPage(this: AccountsService, ctx: Ctx<"groupsPage">) {
  const { filter, sort, skip, limit } = fieldQuery(ctx.params.queryOptions ?? {}, "name");
  const groups = this.store.collection("groups");
  const [results, total] = await Promise.all([
    groups.find(filter, { sort, skip, limit, projection: HIDDEN }),
    groups.count(filter),
  ]);
  return { results: results as Group[], total, skip, limit };
}

/**
 * The `memberOf` of an account or a service account from its create body: `groups` (names or ids)
 * and the resource's own `memberOf: [{groupId}]`, both honoured, never dropped; unknown is a 400.
 */
export async function memberOfFromBody(
  service: AccountsService,
  body: { groups?: string[]; memberOf?: { groupId: string }[] },
): Promise<{ groupId: string; aaaManaged: true }[]> {
  const refs = [...new Set([...(body.groups ?? []), ...(body.memberOf ?? []).map((m) => m.groupId)])];
  return (await groupsByNameOrId(service, refs, "groups")).map((g: Group) => ({
    groupId: g._id,
    aaaManaged: true as const,
  }));
}

/** Groups named by name or id; an unknown one is a 400 on `field`. */
export async function groupsByNameOrId(
  service: AccountsService,
  refs: string[],
  field: string,
): Promise<Group[]> {
  if (refs.length === 0) return [];
  const found = (await service.store
    .collection("groups")
    .find({ $or: [{ name: { $in: refs } }, { _id: { $in: refs } }] })) as Group[];
  const missing = refs.filter((r) => !found.some((g: Group) => g.name === r || g._id === r));
  if (missing.length > 0) {
    throw new BadRequestError(
      `Unknown group(s): ${missing.join(", ")}`,
      missing.map((m) => ({ field, message: `Unknown group '${m}'`, type: "unknownGroup" })),
    );
  }
  return found;
}
