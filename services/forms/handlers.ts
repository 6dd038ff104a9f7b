/**
 * The forms actions (spec operations 3 and 7): forms are named documents; their groups are checked
 * through `accounts.listGroups`, never read from the accounts service's collection.
 */
import type { forms as contract } from "../../shared/contracts/forms";
import type { FormDocument, Group } from "../../shared/contracts/resources";
import { BadRequestError } from "../../shared/errors";
import type { HandlerContext, PlatformService } from "../../shared/service";
import { nowIso } from "../../shared/text";
import { resolveGroupRefs, toListItem } from "./documents";
import type { FormsRepository } from "./forms.repository";
import { depthOf, MAX_FORM_DEPTH, referenceOf, restoreContainers } from "./preserve";
import { callAsPlatform } from "../../shared/authorization";

/** `this` of the forms service: what forms.service.ts adds to a platform service. */
export type FormsService = PlatformService<{ forms: FormsRepository }>;

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

export async function list(this: FormsService, ctx: Ctx<"list">) {
  const [forms, groups] = await Promise.all([
    this.forms.list(),
    callAsPlatform(ctx, "accounts.listGroups", {}),
  ]);
  const byId = new Map(groups.map((g: Group) => [g._id, g]));
  return forms.map((form) => toListItem(form, byId));
}

export async function preserveFormData(this: FormsService, ctx: Ctx<"preserveFormData">) {
  const form = await this.forms.get(ctx.params.form_name);
  return restoreContainers(referenceOf(form), ctx.params.data) as FormDocument;
}

export async function create(this: FormsService, ctx: Ctx<"create">) {
  const { name, children = [], elements = [], description = "", tags = [] } = ctx.params;
  // A Group object (a form read from GetForms, whose groups are expanded) stands for its `_id`.
  const groups = (ctx.params.groups ?? []).map((g) => (typeof g === "string" ? g : g._id));
  if (depthOf(children) > MAX_FORM_DEPTH || depthOf(elements) > MAX_FORM_DEPTH) {
    throw new BadRequestError(`A form nests at most ${MAX_FORM_DEPTH} levels`, [
      { field: "children", message: `Nested deeper than ${MAX_FORM_DEPTH} levels`, type: "depth" },
    ]);
  }
  const resolved = resolveGroupRefs(
    groups,
    groups.length > 0 ? await callAsPlatform(ctx, "accounts.listGroups", {}) : [],
  );
  if (resolved.errors.length > 0)
    throw new BadRequestError(`Unknown group(s): ${groups.join(", ")}`, resolved.errors);

  const by = ctx.meta.caller?.accountId ?? "system";
  const now = nowIso();
  const form: FormDocument = {
    _id: this.forms.newId(),
    name,
    description,
    tags: [...new Set(tags)],
    children,
    elements,
    groups: resolved.ids,
    created: now,
    created_by: by,
    last_updated: now,
    last_updated_by: by,
  };
  return this.forms.insert(form);
}

export async function get(this: FormsService, ctx: Ctx<"get">) {
  return this.forms.get(ctx.params.name);
}

export async function remove(this: FormsService, ctx: Ctx<"delete">) {
  await this.forms.remove(ctx.params.name);
  return { status: "OK", message: `Form '${ctx.params.name}' deleted` };
}
