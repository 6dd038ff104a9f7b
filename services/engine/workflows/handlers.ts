/**
 * Engine: workflow definitions (docs/platform-rules.md (#supporting-operations, #workflows-and-jobs)), collection `workflows`, unique by
 * `name`. Every write is checked as a graph first (./validation.ts), so a rejected call stores nothing.
 * PUT replaces the whole definition (and may rename it); `_id`, `created` and `created_by` stay.
 */
import type { Infer } from "../../../shared/contracts/schema";
import type { engine } from "../../../shared/contracts/engine";
import type { Workflow } from "../../../shared/contracts/resources";
import { ConflictError, NotFoundError } from "../../../shared/errors";
import { DuplicateKeyError, type Store } from "../../../shared/store/types";
import { nowIso } from "../../../shared/text";
import { validateGraph } from "./validation";
import type { EngineCtx, EngineService } from "../types";
import type { WorkflowDoc } from "../../../shared/contracts/engine-documents";
import { pageLimit } from "../../../shared/paging";
import { WORKFLOWS } from "../collections";
import { checkSchemaPatterns } from "../run/input-schema";

export type WorkflowInput = Infer<typeof engine.actions.createWorkflow.params>["workflow"];

/** The workflows' indexes, created once per store (at the engine's start, and before a first write). */
const indexed = new WeakMap<Store, Promise<void>>();
export function ensureWorkflowIndexes(store: Store): Promise<void> {
  let done = indexed.get(store);
  if (!done) {
    done = store
      .collection(WORKFLOWS)
      .createIndex({ keys: { name: 1 }, unique: true })
      // The workflows a group owns (group-based access, a group's delete).
      .then(() => store.collection(WORKFLOWS).createIndex({ keys: { groups: 1 } }));
    indexed.set(store, done);
    done.catch(() => indexed.delete(store));
  }
  return done;
}

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

export async function findWorkflow(store: Store, name: string): Promise<WorkflowDoc> {
  const doc = await store.collection<WorkflowDoc>(WORKFLOWS).findOne({ name });
  if (!doc) throw new NotFoundError("Workflow", name);
  return doc;
}

export async function createWorkflow(this: EngineService, ctx: EngineCtx<"createWorkflow">) {
  const fields = definition(ctx.params.workflow);
  await ensureWorkflowIndexes(this.store);
  try {
    return (await this.store.collection(WORKFLOWS).insertOne(newWorkflowDoc(fields, who(ctx)))) as Workflow;
  } catch (err) {
    if (err instanceof DuplicateKeyError) throw new ConflictError(`Workflow '${fields.name}' already exists`);
    throw err;
  }
}

export async function listWorkflows(this: EngineService, ctx: EngineCtx<"listWorkflows">) {
  const skip = ctx.params.skip ?? 0;
  const limit = pageLimit(ctx.params.limit);
  return (await this.store
    .collection(WORKFLOWS)
    .find({}, { sort: { name: 1, _id: 1 }, skip, limit, readOnly: true })) as Workflow[];
}

export async function getWorkflow(this: EngineService, ctx: EngineCtx<"getWorkflow">) {
  return (await findWorkflow(this.store, ctx.params.name)) as Workflow;
}

export async function getWorkflowById(this: EngineService, ctx: EngineCtx<"getWorkflowById">) {
  const doc = await this.store.collection(WORKFLOWS).findOne({ _id: ctx.params.id });
  if (!doc) throw new NotFoundError("Workflow", ctx.params.id);
  return doc as Workflow;
}

export async function updateWorkflow(this: EngineService, ctx: EngineCtx<"updateWorkflow">) {
  const fields = definition(ctx.params.workflow);
  await ensureWorkflowIndexes(this.store);
  let updated: WorkflowDoc | null;
  try {
    updated = await this.store
      .collection<WorkflowDoc>(WORKFLOWS)
      .findOneAndUpdate({ name: ctx.params.name }, replaceDefinition(fields, who(ctx)));
  } catch (err) {
    // Renaming onto another workflow's name.
    if (err instanceof DuplicateKeyError) throw new ConflictError(`Workflow '${fields.name}' already exists`);
    throw err;
  }
  if (!updated) throw new NotFoundError("Workflow", ctx.params.name);
  return updated as Workflow;
}

export async function deleteWorkflow(this: EngineService, ctx: EngineCtx<"deleteWorkflow">) {
  const deleted = await this.store.collection(WORKFLOWS).findOneAndDelete({ name: ctx.params.name });
  if (!deleted) throw new NotFoundError("Workflow", ctx.params.name);
  return { status: "OK", message: `Workflow '${ctx.params.name}' deleted` };
}
