/**
 * Groups (spec operation 4): create and list. `groupsByNameOrId` is the one check that named groups
 * exist; other services reach it through `accounts.listGroups`, never the `groups` collection.
 */
import type { accounts as contract } from "../../shared/contracts/accounts";
import type { Group } from "../../shared/contracts/resources";
import { BadRequestError, ConflictError } from "../../shared/errors";
import { page, pageLimit } from "../../shared/paging";
import type { HandlerContext } from "../../shared/service";
import { DuplicateKeyError } from "../../shared/store/types";
import { nowIso } from "../../shared/text";
import type { AccountsService } from "./accounts.service";
import { fieldQuery } from "./query";
import { checkAssignedRoles } from "./custom-roles";

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

export async function createGroup(this: AccountsService, ctx: Ctx<"createGroup">) {
  const { name, description = "", memberOf = [], assignedRoles = [], inactive = false } = ctx.params;
  const parents = await groupsByNameOrId(this, memberOf, "memberOf");
  await checkAssignedRoles(this, assignedRoles, "assignedRoles");
  const now = nowIso();
  try {
    return await this.groups.insert({
      provenance: "local",
      name,
      description,
      memberOf: parents.map((g) => g.name),
      assignedRoles: [...new Set(assignedRoles)],
      inactive,
      _meta: { created: now, updated: now },
    });
  } catch (err) {
    if (err instanceof DuplicateKeyError) throw new ConflictError(`Group '${name}' already exists`);
    throw err;
  }
}

/** Every group, by name: the internal action other services' group checks ask (shared/groups.ts). */
export async function listGroups(this: AccountsService) {
  return this.groups.all();
}

/** GET /user-management/groups: a page of groups by name, in the project's list shape. */
export async function pageGroups(this: AccountsService, ctx: Ctx<"pageGroups">) {
  const skip = ctx.params.skip ?? 0;
  const limit = pageLimit(ctx.params.limit);
  const { results, total } = await this.groups.page({}, { name: 1 }, skip, limit);
  return page(results, total, skip, limit);
}

/** GET /authorization/groups: the accounts list's query over groups, answering `{results, total}`. */
export async function groupsPage(this: AccountsService, ctx: Ctx<"groupsPage">) {
  const { filter, sort, skip, limit } = fieldQuery(ctx.params.queryOptions ?? {}, "name");
  const { results, total } = await this.groups.page(filter, sort, skip, limit);
  return { results, total, skip, limit };
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
  return (await groupsByNameOrId(service, refs, "groups")).map((g) => ({
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
  const found = await service.groups.byNamesOrIds(refs);
  const missing = refs.filter((r) => !found.some((g) => g.name === r || g._id === r));
  if (missing.length > 0) {
    throw new BadRequestError(
      `Unknown group(s): ${missing.join(", ")}`,
      missing.map((m) => ({ field, message: `Unknown group '${m}'`, type: "unknownGroup" })),
    );
  }
  return found;
}
