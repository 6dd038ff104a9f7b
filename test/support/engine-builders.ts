/**
 * Pure engine builders, shared by the feature suites (through ./engine-fixtures.ts) and the unit
 * suites of test/unit/: workflow definitions (`chain`, `graph`, the task and transition shapes),
 * and, for the state machine's unit suites, hand-built job documents and write steps without a
 * broker or a store.
 */
import { buildJob } from "../../services/engine/run/new-job";
import { Step, settle, type StepContext } from "../../services/engine/run/transitions";
import type { RunJob, RunTask } from "../../services/engine/run/types";
import type { Transitions, WorkflowDoc, WorkflowTask } from "../../shared/contracts/engine-documents";
import { newDocumentId } from "../../shared/store/types";

// ------------------------------------------------------------------------------------ workflows

export interface WorkflowInput {
  name: string;
  description?: string;
  tasks: Record<string, Partial<WorkflowTask> & Record<string, unknown>>;
  transitions: Transitions;
  inputSchema?: Record<string, unknown>;
  groups?: string[];
  sla?: number;
}

const marker = (id: string) => ({ name: id, summary: id === "workflow_start" ? "Start" : "End" });

export const auto = (
  app: string,
  name: string,
  incoming: Record<string, unknown> = {},
  outgoing: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
) => ({ type: "automatic" as const, app, name, summary: name, variables: { incoming, outgoing }, ...extra });

export const manual = (
  name: string,
  outgoing: Record<string, unknown> = {},
  incoming: Record<string, unknown> = {},
) => ({
  type: "manual" as const,
  name,
  summary: name,
  variables: { incoming, outgoing },
});

export const op = (
  name: string,
  incoming: Record<string, unknown>,
  outgoing: Record<string, unknown> = {},
) => ({
  type: "operation" as const,
  name,
  summary: name,
  variables: { incoming, outgoing },
});

export const success = { state: "success", type: "standard" } as const;
export const failure = { state: "failure", type: "standard" } as const;
export const onError = { state: "error", type: "standard" } as const;
export const loop = { state: "loop", type: "loop" } as const;
export const revert = (state: "success" | "failure" | "error") => ({ state, type: "revert" }) as const;

/** workflow_start -> each task in order (on success) -> workflow_end. */
export function chain(
  name: string,
  steps: [string, Record<string, unknown>][],
  extra: Partial<WorkflowInput> = {},
): WorkflowInput {
  const tasks: WorkflowInput["tasks"] = {
    workflow_start: marker("workflow_start"),
    workflow_end: marker("workflow_end"),
  };
  const ids = ["workflow_start", ...steps.map(([id]) => id), "workflow_end"];
  for (const [id, def] of steps) tasks[id] = def;
  const transitions: Transitions = {};
  for (let i = 0; i < ids.length - 1; i++) transitions[ids[i]] = { [ids[i + 1]]: { ...success } };
  transitions.workflow_end = {};
  return { name, tasks, transitions, ...extra };
}

/** A workflow from explicit tasks and transitions (the markers are added). */
export function graph(
  name: string,
  tasks: WorkflowInput["tasks"],
  transitions: Transitions,
  extra: Partial<WorkflowInput> = {},
): WorkflowInput {
  return {
    name,
    tasks: { workflow_start: marker("workflow_start"), workflow_end: marker("workflow_end"), ...tasks },
    transitions: { workflow_end: {}, ...transitions },
    ...extra,
  };
}

// ------------------------------------------------------------------- workflows the suites share

/**
 * Evaluation picks a branch by `$var.job.count` (> 10: `big`, else `small`), then query and merge
 * compute `$var.job.summary` from `$var.job.facts` and `$var.job.site`.
 */
export const sizeCheckWorkflow = (name: string) =>
  graph(
    name,
    {
      check: op("evaluation", { operand_1: "$var.job.count", operator: ">", operand_2: 10 }),
      big: auto("enginetest", "echo", { size: "big" }),
      small: auto("enginetest", "echo", { size: "small" }),
      pick: op("query", { obj: "$var.job.facts", query: "interfaces[1].name" }),
      combine: op(
        "merge",
        { data_to_merge: [{ key: "name", value: "$var.pick.return_data" }, { site: "$var.job.site" }] },
        { merged_object: "$var.job.summary" },
      ),
    },
    {
      workflow_start: { check: success },
      check: { big: success, small: failure },
      big: { pick: success },
      small: { pick: success },
      pick: { combine: success },
      combine: { workflow_end: success },
    },
  );

/** forEach over `$var.job.devices`, its body echoing each item and index into `$var.job.visited`. */
export const visitDevicesWorkflow = (name: string) =>
  graph(
    name,
    {
      each: op("forEach", { data_array: "$var.job.devices" }, { results: "$var.job.visited" }),
      visit: auto("enginetest", "echo", { device: "$var.each.current_item", n: "$var.each.index" }),
    },
    {
      workflow_start: { each: success },
      each: { visit: loop, workflow_end: success },
      visit: { each: success },
    },
  );

/** A task that fails (`enginetest.fail`) and its error transition to a rollback task. */
export const pushOrRollbackWorkflow = (name: string) =>
  graph(
    name,
    {
      push: auto("enginetest", "fail", { device: "$var.job.device" }),
      rollback: auto("enginetest", "echo", { undo: "$var.job.device" }),
    },
    {
      workflow_start: { push: success },
      push: { workflow_end: success, rollback: onError },
      rollback: { workflow_end: success },
    },
  );

// ------------------------------------------------------------------------------ jobs and steps

/** A fixed clock for hand-built jobs: 2026-01-01T00:00:00.000Z. */
export const T0 = Date.parse("2026-01-01T00:00:00.000Z");
/** The claim owner id of "this replica" in unit suites. */
export const ME = "node-1/replica-a";
/** The claim TTL unit suites use (the default, docs/engine.md). */
export const CLAIM_TTL_MS = 6_000;

/** A stored workflow document from a builder's input (what the workflows collection holds). */
export function workflowDoc(input: WorkflowInput): WorkflowDoc {
  return {
    _id: `wf-${input.name}`,
    description: input.description ?? "",
    type: "automation",
    groups: input.groups ?? [],
    tags: [],
    created: new Date(T0).toISOString(),
    created_by: "test",
    last_updated: new Date(T0).toISOString(),
    last_updated_by: "test",
    ...input,
    tasks: input.tasks as Record<string, WorkflowTask>,
  } as WorkflowDoc;
}

/** A new job of `workflow` (./new-job.ts), before its first step: every task `incomplete`. */
export function newJob(
  workflow: WorkflowInput,
  variables: Record<string, unknown> = {},
  now = T0,
  id = "job-1",
): RunJob {
  return buildJob(workflowDoc(workflow), { variables, groups: [], id }, now);
}

/** One write's step, as a replica makes it (runner.ts `context()`). */
export function stepAt(now = T0, context: Partial<StepContext> = {}): Step {
  return new Step({
    now,
    me: ME,
    budget: 1000,
    claimTtlMs: CLAIM_TTL_MS,
    newJobId: newDocumentId,
    ...context,
  });
}

/** One write as the runner makes it: `change`, then settle; answers the change's result and the step. */
export function write<R>(
  job: RunJob,
  change: (draft: RunJob, step: Step) => R,
  step: Step = stepAt(),
): { result: R; step: Step } {
  const result = change(job, step);
  settle(job, step);
  return { result, step };
}

/** The task `id` of `job` (throws when it is not there, so a test names a missing task). */
export function taskIn(job: RunJob, id: string): RunTask {
  const task = job.tasks[id];
  if (!task) throw new Error(`job ${job._id} has no task '${id}'`);
  return task;
}

/** Each task's status, by id. */
export const statusesOf = (job: RunJob): Record<string, string> =>
  Object.fromEntries(Object.entries(job.tasks).map(([id, t]) => [id, t?.status ?? "null"]));
