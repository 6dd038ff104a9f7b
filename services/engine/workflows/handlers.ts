/**
 * Engine: workflow definitions (docs/platform-rules.md (#supporting-operations, #workflows-and-jobs)), collection `workflows`
 * (../workflows.repository.ts), unique by `name`. Every write is checked as a graph first (./validation.ts), so a rejected call stores nothing.
 * PUT replaces the whole definition (and may rename it); `_id`, `created` and `created_by` stay.
 * DELETE is refused (409) while an automation or a live job uses the workflow, unless forced.
 */
import type { Infer } from "../../../shared/contracts/schema";
import type { engine } from "../../../shared/contracts/engine";
import { ConflictError, NotFoundError } from "../../../shared/errors";
import { DuplicateKeyError } from "../../../shared/store/types";
import { nowIso } from "../../../shared/text";
import { validateGraph } from "./validation";
import type { EngineCtx, EngineService } from "../types";
import type { WorkflowDoc } from "../../../shared/contracts/engine-documents";
import { page, pageLimit } from "../../../shared/paging";
import { callAsPlatform } from "../../../shared/authorization";
import { checkSchemaPatterns } from "../run/input-schema";
import type { WorkflowRepository } from "../workflows.repository";

export type WorkflowInput = Infer<typeof engine.actions.createWorkflow.params>["workflow"];

/** The stored definition's fields, from a validated request (unknown top-level members are dropped). */
export function definition(
  input: WorkflowInput,
): Omit<WorkflowDoc, "_id" | "created" | "created_by" | "last_updated" | "last_updated_by"> {
  const { tasks, transitions } = validateGraph(input.tasks, input.transitions);
  if (input.inputSchema !== undefined) checkSchemaPatterns(input.inputSchema, "workflow.inputSchema");
  return {
    name: input.name,
    description: input.description ?? "",
    type: "automation",
    tasks,
    transitions,
    ...(input.inputSchema !== undefined && { inputSchema: input.inputSchema }),
    ...(input.sla !== undefined && { sla: input.sla }),
    ...(input.preAutomationTime !== undefined && { preAutomationTime: input.preAutomationTime }),
    ...(input.decorators !== undefined && { decorators: input.decorators }),
    groups: [...new Set(input.groups ?? [])],
    tags: [...new Set(input.tags ?? [])],
  };
}

const OPTIONAL_FIELDS = ["inputSchema", "sla", "preAutomationTime", "decorators"] as const;

type Definition = ReturnType<typeof definition>;

/** A new workflow's document: the definition and who made it when. */
export function newWorkflowDoc(fields: Definition, by: string, now = nowIso()) {
  return { ...fields, created: now, created_by: by, last_updated: now, last_updated_by: by };
}

/** The update that replaces a stored definition by `fields` (optional members it lacks are removed). */
export function replaceDefinition(fields: Definition, by: string, now = nowIso()) {
  const unset = Object.fromEntries(
    OPTIONAL_FIELDS.filter((f) => !(f in fields)).map((f) => [f, ""] as const),
  );
  return {
    $set: { ...fields, last_updated: now, last_updated_by: by },
    ...(Object.keys(unset).length > 0 && { $unset: unset }),
  };
}

export const who = (ctx: { meta: { caller?: { username: string } } }) =>
  ctx.meta.caller?.username ?? "system";

export async function findWorkflow(workflows: WorkflowRepository, name: string): Promise<WorkflowDoc> {
  const doc = await workflows.byName(name);
  if (!doc) throw new NotFoundError("Workflow", name);
  return doc;
}

export async function createWorkflow(this: EngineService, ctx: EngineCtx<"createWorkflow">) {
  const fields = definition(ctx.params.workflow);
  try {
    return await this.workflows.insert(newWorkflowDoc(fields, who(ctx)));
  } catch (err) {
    if (err instanceof DuplicateKeyError) throw new ConflictError(`Workflow '${fields.name}' already exists`);
    throw err;
  }
}

export async function listWorkflows(this: EngineService, ctx: EngineCtx<"listWorkflows">) {
  const skip = ctx.params.skip ?? 0;
  const limit = pageLimit(ctx.params.limit);
  const [found, total] = await Promise.all([this.workflows.page(skip, limit), this.workflows.countAll()]);
  return page(found, total, skip, limit);
}

export async function getWorkflow(this: EngineService, ctx: EngineCtx<"getWorkflow">) {
  return findWorkflow(this.workflows, ctx.params.name);
}

export async function getWorkflowById(this: EngineService, ctx: EngineCtx<"getWorkflowById">) {
  const doc = await this.workflows.byId(ctx.params.id);
  if (!doc) throw new NotFoundError("Workflow", ctx.params.id);
  return doc;
}

export async function updateWorkflow(this: EngineService, ctx: EngineCtx<"updateWorkflow">) {
  const fields = definition(ctx.params.workflow);
  if (fields.name !== ctx.params.name) await refuseRenameInUse(this, ctx, ctx.params.name);
  let updated: WorkflowDoc | null;
  try {
    updated = await this.workflows.replace(ctx.params.name, replaceDefinition(fields, who(ctx)));
  } catch (err) {
    // Renaming onto another workflow's name.
    if (err instanceof DuplicateKeyError) throw new ConflictError(`Workflow '${fields.name}' already exists`);
    throw err;
  }
  if (!updated) throw new NotFoundError("Workflow", ctx.params.name);
  return updated;
}

/**
 * Automations run a workflow by its name: renaming one they run would leave them without it, as a
 * delete would. 409 naming them (docs/engine-queries.md#deleting-a-workflow); running jobs carry
 * their own copy and do not mind.
 */
async function refuseRenameInUse(service: EngineService, ctx: EngineCtx<"updateWorkflow">, name: string) {
  const doc = await findWorkflow(service.workflows, name);
  const users = await callAsPlatform(ctx, "scheduler.workflowUsers", {
    name: doc.name,
    id: doc._id,
    limit: USERS_NAMED,
  });
  if (users.total === 0) return;
  throw new ConflictError(
    `Workflow '${name}' cannot be renamed: ${users.total} automation(s) run it by its name (${users.automations.map((a) => `'${a.name}'`).join(", ")}${users.total > users.automations.length ? ", ..." : ""}); change them first`,
    { workflow: name, automations: users },
  );
}

/** Jobs that still run a workflow: running or paused (a paused job may be resumed). */
const LIVE_JOB_STATUSES = ["running", "paused"];
const USERS_NAMED = 10;

/**
 * What still uses a workflow: the automations that run it (asked of the scheduler, which owns
 * them) and its jobs that are running or paused. Each list names at most USERS_NAMED.
 */
async function workflowUsers(service: EngineService, ctx: EngineCtx<"deleteWorkflow">, doc: WorkflowDoc) {
  const [automations, jobs] = await Promise.all([
    callAsPlatform(ctx, "scheduler.workflowUsers", { name: doc.name, id: doc._id, limit: USERS_NAMED }),
    service.jobs.ofWorkflow(doc._id, LIVE_JOB_STATUSES, USERS_NAMED),
  ]);
  return { automations, jobs };
}

/**
 * DELETE a workflow (docs/engine-queries.md#deleting-a-workflow): refused with 409 while an automation
 * runs it or a job of it is running or paused, naming them, unless `force`. The answer carries
 * the workflow's `name` beside `status` and `message` (Itential.py's `workflow.delete` reads it).
 * The check and the delete are two steps: an automation created between them is not seen (its
 * runs then fail with the workflow missing, as after a forced delete).
 */
export async function deleteWorkflow(this: EngineService, ctx: EngineCtx<"deleteWorkflow">) {
  const { name, force = false } = ctx.params;
  const doc = await findWorkflow(this.workflows, name);
  if (!force) {
    const users = await workflowUsers(this, ctx, doc);
    if (users.automations.total > 0 || users.jobs.total > 0) {
      const parts = [
        users.automations.total > 0 &&
          `${users.automations.total} automation(s) (${users.automations.automations.map((a) => `'${a.name}'`).join(", ")}${users.automations.total > users.automations.automations.length ? ", ..." : ""})`,
        users.jobs.total > 0 && `${users.jobs.total} running or paused job(s)`,
      ].filter(Boolean);
      throw new ConflictError(
        `Workflow '${name}' is in use by ${parts.join(" and ")}; delete with ?force=true to delete it anyway`,
        {
          workflow: name,
          automations: users.automations,
          jobs: users.jobs,
        },
      );
    }
  }
  // By _id: a workflow renamed or replaced since the read is not deleted in its place.
  const deleted = await this.workflows.removeExact(doc._id, name);
  if (!deleted) throw new NotFoundError("Workflow", name);
  return { status: "OK", message: `Workflow '${name}' deleted`, name };
}
