/**
 * What a job needs before it exists: its workflow (by name), a check that the definition can run,
 * its variables checked against the workflow's inputSchema and sealed where its decorators say,
 * and its groups. Shared by POST /operations-manager/jobs/start and childJob tasks.
 */
import { copyPlain } from "../../../shared/objects";
import { BadRequestError, NotFoundError, invalidField, type FieldError } from "../../../shared/errors";
import { sealPointers } from "../../../shared/pointers";
import { checkInput } from "./input-schema";
import { END, START, TASK_ID_PATTERN } from "../../../shared/contracts/engine-documents";
import type { RunnableWorkflow, WorkflowRepository } from "../workflows.repository";

export async function loadWorkflow(workflows: WorkflowRepository, name: string): Promise<RunnableWorkflow> {
  const workflow = await workflows.toRun(name);
  if (!workflow) throw new NotFoundError("Workflow", name);
  checkRunnable(workflow);
  return workflow;
}

/**
 * Workflows written through the API are validated as graphs when stored (workflows/validation.ts); this guards
 * what the executor itself relies on, for documents that reached the store another way.
 */
function checkRunnable(workflow: RunnableWorkflow): void {
  const errors: FieldError[] = [];
  const tasks = workflow.tasks ?? {};
  for (const marker of [START, END])
    if (!tasks[marker])
      errors.push({ field: "workflow", message: `Workflow has no '${marker}' task`, type: "workflow" });
  for (const id of Object.keys(tasks))
    if (!TASK_ID_PATTERN.test(id))
      errors.push({
        field: "workflow",
        message: `Workflow task id '${id}' is not a plain name`,
        type: "workflow",
      });
  if (errors.length > 0)
    throw new BadRequestError(`Workflow '${workflow.name}' cannot run: ${errors[0].message}`, errors);
}

/** The job's variables: checked against the inputSchema (400 naming each field), then sealed per decorators. */
export function prepareVariables(
  workflow: RunnableWorkflow,
  variables: Record<string, unknown>,
  key: () => Buffer,
  field = "options.variables",
): Record<string, unknown> {
  if (workflow.inputSchema) {
    const errors = checkInput(workflow.inputSchema, variables, field);
    if (errors.length > 0)
      throw new BadRequestError(`Job variables do not match workflow '${workflow.name}' inputSchema`, errors);
  }
  const pointers = (workflow.decorators ?? []).filter((d) => d?.type === "encryption").map((d) => d.pointer);
  if (pointers.length === 0) return copyPlain(variables);
  try {
    return sealPointers(key(), variables, pointers);
  } catch (err) {
    throw invalidField(
      field,
      `Workflow '${workflow.name}' has a bad decorator: ${(err as Error).message}`,
      "decorator",
    );
  }
}
