/**
 * Roles as the real product manages them (/authorization/roles, /authorization/methods;
 * docs/security.md#authorization). The spec's role names are the built-in roles: each allows the
 * operations whose contract lists it, and cannot change. A custom role allows the methods it names
 * (`{name, provenance}`: an action and its service, as GET /authorization/methods lists them).
 * Groups and accounts are assigned roles by name (`assignedRoles`); a caller's custom roles become the `methods`
 * the authorization check reads. Custom roles live in `roles`, unique by name.
 */
import { contracts } from "../../shared/contracts";
import type { accounts as contract } from "../../shared/contracts/accounts";
import { ROLES, type ActionAccess } from "../../shared/contracts/define";
import type { CustomRole, Method } from "../../shared/contracts/resources";
import { BadRequestError, ConflictError, NotFoundError, invalidField } from "../../shared/errors";
import { pageLimit } from "../../shared/paging";
import type { HandlerContext } from "../../shared/service";
import { DuplicateKeyError } from "../../shared/store/types";
import { nowIso } from "../../shared/text";
import type { AccountsService } from "./accounts.service";
import type { RoleChanges } from "./roles.repository";

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

const BUILT_IN: ReadonlySet<string> = new Set(ROLES);

/** Every contract action a role may allow: routed or a workflow task, not public, not internal-only. */
function methodTable(): Map<string, Method> {
  const table = new Map<string, Method>();
  for (const def of Object.values(contracts) as { name: string; actions: Record<string, any> }[])
    for (const [name, c] of Object.entries(def.actions)) {
      const access: ActionAccess = c.http?.access ?? c.access;
      if (access === "public" || access === "internal") continue;
      table.set(`${def.name}.${name}`, {
        name,
        provenance: def.name,
        route: c.http ? { path: c.http.path, verb: c.http.method } : null,
        roles: typeof access === "string" ? [...ROLES] : ["admin", ...access.filter((r) => r !== "admin")],
      });
    }
  return table;
}

let methods: Map<string, Method> | undefined;
const allMethods = () => (methods ??= methodTable());

const key = (m: { name: string; provenance: string }) => `${m.provenance}.${m.name}`;

/** A built-in role as a role document: the methods whose contract lists it. */
function builtIn(name: string): CustomRole {
  const allowed = [...allMethods().values()].filter((m) => name === "admin" || m.roles.includes(name));
  return {
    _id: name,
    provenance: "Builtin",
    name,
    description: `Built-in role '${name}'`,
    allowedMethods: allowed.map(({ name: n, provenance }) => ({ name: n, provenance })),
    allowedViews: [],
  };
}

/** The methods a body names, each one that exists, once; an unknown one is a 400 naming it. */
function checkedMethods(list: { name: string; provenance: string }[] | undefined, field: string) {
  const out = new Map<string, { name: string; provenance: string }>();
  (list ?? []).forEach((m, i) => {
    if (!allMethods().has(key(m)))
      throw invalidField(
        `${field}[${i}]`,
        `No method '${m.name}' of '${m.provenance}' (GET /authorization/methods lists them)`,
        "unknownMethod",
      );
    out.set(key(m), { name: m.name, provenance: m.provenance });
  });
  return [...out.values()];
}

const views = (list: { path: string; provenance?: string }[] | undefined) =>
  (list ?? []).map((v) => ({ path: v.path, provenance: v.provenance ?? "" }));

async function findRole(service: AccountsService, roleId: string): Promise<CustomRole> {
  if (BUILT_IN.has(roleId)) return builtIn(roleId);
  const role = await service.roles.byId(roleId);
  if (!role) throw new NotFoundError("Role", roleId);
  return role;
}

function refuseBuiltIn(roleId: string): void {
  if (BUILT_IN.has(roleId))
    throw invalidField("roleId", `'${roleId}' is a built-in role; it cannot change`, "builtInRole");
}

export async function listRoles(this: AccountsService, ctx: Ctx<"listRoles">) {
  const skip = ctx.params.skip ?? 0;
  const limit = pageLimit(ctx.params.limit);
  const builtIns = ROLES.map(builtIn);
  const customSkip = Math.max(0, skip - builtIns.length);
  const shown = builtIns.slice(skip, skip + limit);
  const [page, count] = await Promise.all([
    shown.length < limit ? this.roles.page(customSkip, limit - shown.length) : Promise.resolve([]),
    this.roles.count(),
  ]);
  return { results: [...shown, ...page], total: builtIns.length + count };
}

export async function getRole(this: AccountsService, ctx: Ctx<"getRole">) {
  return findRole(this, ctx.params.roleId);
}

export async function createRole(this: AccountsService, ctx: Ctx<"createRole">) {
  const { name, description = "", allowedMethods, allowedViews } = ctx.params.role;
  if (BUILT_IN.has(name))
    throw invalidField("role.name", `'${name}' is a built-in role's name`, "builtInRole");
  const now = nowIso();
  const fields = {
    provenance: "Custom",
    name,
    description,
    allowedMethods: checkedMethods(allowedMethods, "role.allowedMethods"),
    allowedViews: views(allowedViews),
    _meta: { created: now, updated: now },
  };
  let role: CustomRole;
  try {
    role = await this.roles.insert(fields);
  } catch (err) {
    if (err instanceof DuplicateKeyError) throw new ConflictError(`Role '${name}' already exists`);
    throw err;
  }
  return { status: "Created", message: "Role created", data: role };
}

export async function updateRole(this: AccountsService, ctx: Ctx<"updateRole">) {
  const { roleId, updates } = ctx.params;
  refuseBuiltIn(roleId);
  const changes: RoleChanges = {};
  if (updates.description !== undefined) changes.description = updates.description;
  if (updates.allowedMethods !== undefined)
    changes.allowedMethods = checkedMethods(updates.allowedMethods, "updates.allowedMethods");
  if (updates.allowedViews !== undefined) changes.allowedViews = views(updates.allowedViews);
  const updated = await this.roles.update(roleId, changes, nowIso());
  if (!updated) throw new NotFoundError("Role", roleId);
  return { status: "OK", message: "Role updated", data: updated };
}

/** Deletes a custom role, and takes it from every group and account that had it (a new role of that name starts bare). */
export async function deleteRole(this: AccountsService, ctx: Ctx<"deleteRole">) {
  const { roleId } = ctx.params;
  refuseBuiltIn(roleId);
  const gone = await this.roles.remove(roleId);
  if (!gone) throw new NotFoundError("Role", roleId);
  await this.groups.dropRole(gone.name);
  await this.accounts.dropRole(gone.name);
  return { status: "OK", message: `Role '${gone.name}' deleted` };
}

export async function listMethods(this: AccountsService) {
  const results = [...allMethods().values()].sort((a, b) => key(a).localeCompare(key(b)));
  return { results, total: results.length };
}

/** A group's assigned roles must exist: built-in names, or custom role names. Unknown is a 400. */
export async function checkAssignedRoles(service: AccountsService, names: string[], field: string) {
  const custom = names.filter((n) => !BUILT_IN.has(n));
  if (custom.length === 0) return;
  const known = await service.roles.existingNames(custom);
  const missing = custom.filter((n) => !known.has(n));
  if (missing.length > 0)
    throw new BadRequestError(
      `Unknown role(s): ${missing.join(", ")}`,
      missing.map((n) => ({ field, message: `No role named '${n}'`, type: "unknownRole" })),
    );
}

/** The actions (`service.action`) the custom roles of these names allow. */
export async function methodsOf(service: AccountsService, customNames: string[]): Promise<string[]> {
  if (customNames.length === 0) return [];
  const allowed = await service.roles.allowedMethodsOf(customNames);
  return [...new Set(allowed.map(key))].sort();
}

export const isBuiltInRole = (name: string) => BUILT_IN.has(name);

/**
 * Role names from references as the real product sends them (`[{roleId}]`: a custom role's _id, or
 * a built-in role's, which is its name) or as ours take them (names). Unknown is a 400 on `field`.
 */
export async function roleNamesOf(
  service: AccountsService,
  refs: readonly (string | { roleId: string })[],
  field: string,
): Promise<string[]> {
  const ids = refs.flatMap((r) => (typeof r === "string" || BUILT_IN.has(r.roleId) ? [] : [r.roleId]));
  const byId = ids.length > 0 ? await service.roles.namesById(ids) : new Map<string, string>();
  // A roleId that is no custom role's id may still be a role's name (ours are named).
  const names = refs.map((r) => (typeof r === "string" ? r : (byId.get(r.roleId) ?? r.roleId)));
  await checkAssignedRoles(service, names, field);
  return [...new Set(names)];
}
