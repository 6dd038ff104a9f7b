/** A new job: the document a workflow's run starts from, before its first step. */
import { copyPlain } from "../../../shared/objects";
import type { WorkflowDoc } from "../../../shared/contracts/engine-documents";
import { API_VERSION } from "../../../shared/version";
import type { RunJob, RunTask } from "./types";
import { manualTasksOf } from "./manual-summary";
import { isoOf } from "../../../shared/text";
import { sharedTransitions, templateTasks } from "./job-template";

/**
 * A part of the workflow for the new job: the part itself when frozen (the workflow a start reads
 * read-only, deep-frozen by the store: nobody can change it, and a write into it throws), else a
 * copy. The job is stored from its JSON text (run/jobs.ts insert), never as this object.
 */
const partOf = <T>(value: T): T =>
  typeof value === "object" && value !== null && Object.isFrozen(value) ? value : copyPlain(value);

export interface JobInput {
  description?: string;
  type?: string;
  variables: Record<string, unknown>;
  groups: string[];
  caller?: RunJob["runAs"];
  parent?: RunJob["parent"];
  ancestors?: string[];
  /** The job's id: the jobs repository's newId(), or one chosen before (a keyed start, a child job). */
  id: string;
}

type TaskDef = NonNullable<WorkflowDoc["tasks"]>[string];

/** A new job's task `def` before its first step: the definition's members, incomplete, retries counted. */
function newTask(def: NonNullable<TaskDef>): RunTask {
  const task: RunTask = { ...partOf(def), status: "incomplete" } as RunTask;
  if (def.retrySettings) {
    task.retrySettings = {
      autoRetry: def.retrySettings.autoRetry ?? false,
      limit: def.retrySettings.limit ?? 0,
      delay: def.retrySettings.delay ?? 0,
      state: def.retrySettings.state?.length ? [...def.retrySettings.state] : ["error"],
      count: 0,
    };
  }
  return task;
}

/** A new job document of `workflow`, before its first step. */
export function buildJob(
  workflow: WorkflowDoc & { decorators?: RunJob["decorators"] },
  input: JobInput,
  now: number,
): RunJob {
  const defs = workflow.tasks ?? {};
  // A frozen workflow's jobs share its tasks before the first step (./job-template.ts).
  const template = templateTasks(defs, newTask);
  const tasks: RunJob["tasks"] = template ? { ...template } : {};
  if (!template) for (const [id, def] of Object.entries(defs)) tasks[id] = def ? newTask(def) : null;
  // The account's _id, as the real product's jobs carry it (docs/compatibility.md#jobs); a job the
  // platform starts itself (a schedule) is the platform's: "system".
  const user = input.caller?.accountId ?? "system";
  const at = isoOf(now);
  const manual = manualTasksOf(tasks);
  return {
    _id: input.id,
    type: input.type ?? "automation",
    name: workflow.name,
    description: input.description ?? workflow.description ?? "",
    workflow: { _id: workflow._id, name: workflow.name },
    status: "running",
    tasks,
    transitions: sharedTransitions(partOf(workflow.transitions ?? {})),
    variables: input.variables,
    error: [],
    errorHandler: null,
    decorators: partOf(workflow.decorators ?? []),
    groups: input.groups,
    watchers: input.caller ? [input.caller.accountId] : [],
    ancestors: input.ancestors ?? [],
    ...(workflow.sla !== undefined && { sla: workflow.sla }),
    ...(workflow.preAutomationTime !== undefined && { preAutomationTime: workflow.preAutomationTime }),
    metrics: { start_time: now, end_time: null, progress: 0, user, owner: user, manual_time: 0 },
    created: at,
    created_by: user,
    last_updated: at,
    last_updated_by: user,
    lastUpdatedVersion: API_VERSION,
    canvasVersion: 3,
    font_size: 12,
    version: 0,
    sweepAt: null,
    ...(manual !== undefined && { manualTasks: manual }),
    parent: input.parent ?? null,
    runAs: input.caller ?? null,
  };
}
