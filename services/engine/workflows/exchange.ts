/**
 * Workflow export and import (the real product's `POST /workflow_builder/export` and `/import`;
 * docs/compatibility.md#workflows). An export is the stored workflow; an import takes one back,
 * re-validated as any create is (./validation.ts): its definition fields are kept, the store's
 * identity and history (`_id`, `created*`, `last_updated*`) are this platform's own. A name that
 * exists is a 409 unless `overwrite` is set; then the definition replaces the existing one. The
 * workflow comes bare or wrapped as `{workflow: {...}}` (the real product's clients send that).
 */
import type { WorkflowExport } from "../../../shared/contracts/resources";
import { ConflictError, invalidField } from "../../../shared/errors";
import { DuplicateKeyError } from "../../../shared/store/types";
import type { EngineCtx, EngineService } from "../types";
import {
  definition,
  findWorkflow,
  newWorkflowDoc,
  replaceDefinition,
  who,
  type WorkflowInput,
} from "./handlers";

/** The definition without this platform's identity and history (`_id`, `created*`, `last_updated*`). */
export async function exportWorkflow(this: EngineService, ctx: EngineCtx<"exportWorkflow">) {
  const name = ctx.params.name ?? ctx.params.options?.name;
  if (!name)
    throw invalidField("name", "Name the workflow to export: {name} or {options: {name}}", "required");
  const stored = await findWorkflow(this.workflows, name);
  const {
    _id: _ignoredId,
    created: _created,
    created_by: _createdBy,
    last_updated: _updated,
    last_updated_by: _updatedBy,
    ...definition
  } = stored;
  return definition as WorkflowExport;
}

/**
 * The workflow an import carries: bare (as an export answers it) or under `workflow` (the real
 * product's clients: Itential.py's `upload` posts `{"workflow": {...}}`). Not both: 400.
 */
function importedWorkflow(params: EngineCtx<"importWorkflow">["params"]): WorkflowInput {
  const { overwrite: _overwrite, workflow, ...bare } = params;
  const bareMembers = (["name", "tasks", "transitions"] as const).filter((k) => bare[k] !== undefined);
  if (workflow !== undefined) {
    if (bareMembers.length > 0)
      throw invalidField(
        bareMembers[0],
        `Send the workflow bare or under 'workflow', not both ('${bareMembers[0]}' is beside 'workflow')`,
        "forbidden",
      );
    return workflow;
  }
  for (const member of ["name", "tasks", "transitions"] as const)
    if (bare[member] === undefined)
      throw invalidField(
        member,
        `The '${member}' field is required (or send the workflow under 'workflow')`,
        "required",
      );
  return bare as WorkflowInput;
}

export async function importWorkflow(this: EngineService, ctx: EngineCtx<"importWorkflow">) {
  const overwrite = ctx.params.overwrite ?? false;
  const fields = definition(importedWorkflow(ctx.params));
  const by = who(ctx);
  try {
    return await this.workflows.insert(newWorkflowDoc(fields, by));
  } catch (err) {
    if (!(err instanceof DuplicateKeyError)) throw err;
    if (!overwrite)
      throw new ConflictError(
        `Workflow '${fields.name}' already exists; import with overwrite to replace it`,
      );
  }
  const replaced = await this.workflows.replace(fields.name, replaceDefinition(fields, by));
  // Deleted between the insert and the replace: the name is free again.
  if (!replaced) throw new ConflictError(`Workflow '${fields.name}' changed meanwhile; import again`);
  return replaced;
}
