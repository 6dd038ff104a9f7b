/**
 * /operations-manager/automations: the real product's view of the scheduler's automations, so its
 * clients (itential-mcp, ipctl) work on the same documents /automation_catalog serves. A component
 * is a workflow named by `componentId` (its `_id`, or its name); `gbac` groups become the
 * automation's groups (its jobs' groups). Answers use the `{message, data, metadata}` envelope.
 */
import { newAutomation } from "./new-automation";
import type { Context } from "moleculer";
import type { Automation, OmAutomation } from "../../shared/contracts/resources";
import { scheduler as contract } from "../../shared/contracts/scheduler";
import { itemEnvelope, pageEnvelope } from "../../shared/envelope";
import { invalidField } from "../../shared/errors";
import type { HandlerContext } from "../../shared/service";
import {
  checkReferences,
  edit,
  loadReadable,
  removeAutomation,
  uniqueName,
  type Editable,
  type SchedulerService,
} from "./automations";
import { readListQuery } from "./list-query";
import { readableFilter } from "./gbac";
import type { Filter } from "../../shared/store/types";
import { callAsPlatform } from "../../shared/authorization";

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

/** The real product's field -> where this platform stores it. */
const STORED: Record<string, string> = { componentName: "workflow" };

export function omView(a: Automation): OmAutomation {
  return {
    _id: a._id,
    name: a.name,
    description: a.description,
    componentType: "workflows",
    componentId: a.componentId ?? null,
    componentName: a.workflow,
    gbac: { read: a.readGroups ?? [], write: a.groups },
    created: a.created,
    createdBy: a.created_by,
    lastUpdated: a.last_updated,
    lastUpdatedBy: a.last_updated_by,
  };
}

/** The workflow a componentId names: by `_id` when it is one, else by name. 400 when none. */
async function resolveComponent(ctx: Context, componentId: string) {
  const notFound = (err: unknown) => (err as { code?: number }).code === 404;
  try {
    if (/^[0-9a-f]{24}$/i.test(componentId))
      return await callAsPlatform(ctx, "engine.getWorkflowById", { id: componentId }).catch(async (err) => {
        if (!notFound(err)) throw err;
        return callAsPlatform(ctx, "engine.getWorkflow", { name: componentId });
      });
    return await callAsPlatform(ctx, "engine.getWorkflow", { name: componentId });
  } catch (err) {
    if (!notFound(err)) throw err;
    throw invalidField("componentId", `No workflow has the _id or name '${componentId}'`, "unknownWorkflow");
  }
}

/** The automation members a create or PATCH body sets. */
interface Members {
  name?: string;
  description?: string;
  componentId?: string | null;
  gbac?: { read?: string[]; write?: string[] };
}

async function members(this: SchedulerService, ctx: Context, p: Members) {
  const fields: Editable = {};
  if (p.name !== undefined) fields.name = p.name;
  if (p.description !== undefined) fields.description = p.description;
  if (p.componentId === null) Object.assign(fields, { workflow: null, componentId: null });
  else if (p.componentId !== undefined) {
    const workflow = await resolveComponent(ctx, p.componentId);
    Object.assign(fields, { workflow: workflow.name, componentId: workflow._id });
  }
  if (p.gbac) {
    // gbac as the real product has it: write groups change and run it (and its jobs get them),
    // read groups only see it (./gbac.ts).
    fields.groups = [...new Set(p.gbac.write ?? [])];
    fields.readGroups = [...new Set(p.gbac.read ?? [])].filter((g) => !fields.groups!.includes(g));
  }
  await checkReferences.call(this, ctx, { groups: fields.groups, readGroups: fields.readGroups }, "gbac.");
  return fields;
}

export async function omCreateAutomation(this: SchedulerService, ctx: Ctx<"omCreateAutomation">) {
  const fields = await members.call(this, ctx, ctx.params);
  const by = ctx.meta.caller?.accountId ?? "system";
  const automation = newAutomation(ctx.params.name, by, {
    description: fields.description ?? "",
    workflow: fields.workflow ?? null,
    componentId: fields.componentId ?? null,
    groups: fields.groups ?? [...new Set(ctx.meta.caller?.groupIds ?? [])],
    readGroups: fields.readGroups ?? [],
  });
  const created = await uniqueName(ctx.params.name, () => this.automations.insert(automation));
  return itemEnvelope("Successfully created automation", omView(created));
}

export async function omListAutomations(this: SchedulerService, ctx: Ctx<"omListAutomations">) {
  const { filter, sort, skip, limit } = readListQuery(ctx.params, (f) => STORED[f] ?? f);
  // Every automation here runs a workflow: componentType matches "workflows" or nothing.
  const where: Filter = { ...filter };
  if ("componentType" in where) {
    const wanted = where.componentType;
    delete where.componentType;
    if (wanted !== "workflows") where._id = { $in: [] };
  }
  const { found, total } = await this.automations.page(
    where,
    readableFilter(ctx.meta.caller),
    sort,
    skip,
    limit,
  );
  return pageEnvelope("Successfully retrieved automations", found.map(omView), { skip, limit, total });
}

export async function omGetAutomation(this: SchedulerService, ctx: Ctx<"omGetAutomation">) {
  const automation = await loadReadable.call(this, ctx.params.id, ctx.meta.caller);
  return itemEnvelope("Successfully retrieved automation", omView(automation));
}

export async function omUpdateAutomation(this: SchedulerService, ctx: Ctx<"omUpdateAutomation">) {
  const { id, ...body } = ctx.params;
  if (Object.values(body).every((v) => v === undefined))
    throw invalidField(
      "name",
      "Give at least one of name, description, componentType, componentId, gbac",
      "required",
    );
  const fields = await members.call(this, ctx, ctx.params);
  if (Object.keys(fields).length === 0) return omGetAutomation.call(this, ctx);
  return itemEnvelope("Successfully updated automation", omView(await edit.call(this, ctx, id, fields)));
}

export async function omDeleteAutomation(this: SchedulerService, ctx: Ctx<"omDeleteAutomation">) {
  await removeAutomation.call(this, ctx.params.id, ctx.meta.caller);
  return itemEnvelope("Successfully deleted automation", null);
}
