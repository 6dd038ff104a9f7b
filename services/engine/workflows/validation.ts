/**
 * A workflow's tasks and transitions, checked as a graph before anything is stored. Every problem
 * found is reported (not only the first), each as `{field, message, type}` whose field names the
 * offending task (`workflow.tasks.<id>`) or transition (`workflow.transitions.<from>.<to>`).
 *
 * Rules: `workflow_start` and `workflow_end` exist; task ids are plain names (no `.` or `$`, which
 * would turn into store paths and operators); every task has a known type and what that type needs
 * (automatic: `app` and `name`; operation: a built-in name; manual: a `name` label); every
 * transition joins two existing tasks with a known state and type; nothing leaves `workflow_end`;
 * every task is reachable from `workflow_start`.
 */
import { BadRequestError, type FieldError } from "../../../shared/errors";
import { OPERATION_TASKS, isOperationTask } from "../operations/names";
import {
  END,
  START,
  TASK_ID_PATTERN,
  type TransitionTarget,
  type Transitions,
  type WorkflowTask,
} from "../../../shared/contracts/engine-documents";
import { isPlainObject as isObject } from "../../../shared/objects";

export const TASK_TYPES = ["automatic", "manual", "operation"] as const;
export const TRANSITION_STATES = ["success", "failure", "error", "loop"] as const;
export const TRANSITION_TYPES = ["standard", "revert", "loop"] as const;
const RETRY_STATES = ["success", "failure", "error"];

/** Task ids become keys of a job's `tasks` object and parts of store paths (`tasks.<id>.status`). */
const TASK_ID = TASK_ID_PATTERN;

/** What a task keeps of its definition; run-state fields (status, claim, ...) belong to jobs only. */
const TEXT_FIELDS = [
  "name",
  "summary",
  "description",
  "displayName",
  "canvasName",
  "app",
  "location",
  "actor",
];
const NUMBER_FIELDS = ["x", "y"];
const BOOLEAN_FIELDS = ["deprecated", "scheduled"];

type Raw = Record<string, unknown>;

const isText = (v: unknown): v is string => typeof v === "string" && v.trim() !== "";

export interface ValidGraph {
  tasks: Record<string, WorkflowTask>;
  transitions: Transitions;
}

/** The checked and normalized tasks and transitions, or a 400 naming every offending task. */
export function validateGraph(tasksInput: unknown, transitionsInput: unknown): ValidGraph {
  const errors: FieldError[] = [];
  const fail = (field: string, message: string, type: string) => errors.push({ field, message, type });

  const tasks: Record<string, WorkflowTask> = {};
  const rawTasks = isObject(tasksInput) ? tasksInput : {};
  for (const [id, raw] of Object.entries(rawTasks)) {
    const field = `workflow.tasks.${id}`;
    if (!TASK_ID.test(id)) {
      fail(field, `Task id '${id}' must be 1-128 letters, digits, '_' or '-'`, "taskId");
      continue;
    }
    const task = checkTask(id, raw, field, fail);
    if (task) tasks[id] = task;
  }
  for (const marker of [START, END])
    if (!Object.hasOwn(rawTasks, marker))
      fail(`workflow.tasks.${marker}`, `The workflow needs a '${marker}' task`, "required");

  const transitions: Transitions = {};
  const rawTransitions = isObject(transitionsInput) ? transitionsInput : {};
  for (const [from, targets] of Object.entries(rawTransitions)) {
    const field = `workflow.transitions.${from}`;
    if (!Object.hasOwn(rawTasks, from)) {
      fail(field, `Transition from unknown task '${from}'`, "unknownTask");
      continue;
    }
    if (!isObject(targets)) {
      fail(field, `Transitions from '${from}' must be an object keyed by target task id`, "object");
      continue;
    }
    if (from === END && Object.keys(targets).length > 0) {
      fail(field, `'${END}' ends the job: no transition may leave it`, "transitionFromEnd");
      continue;
    }
    transitions[from] = {};
    for (const [to, target] of Object.entries(targets)) {
      const checked = checkTransition(from, to, target, rawTasks, fail);
      if (checked) transitions[from][to] = checked;
    }
  }

  // Reachability is only meaningful once the ends exist and the edges are sound.
  if (errors.length === 0) {
    for (const id of unreachable(Object.keys(tasks), transitions))
      fail(`workflow.tasks.${id}`, `Task '${id}' cannot be reached from '${START}'`, "unreachable");
  }
  if (errors.length > 0) {
    const first = errors[0];
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
    throw new BadRequestError(`Invalid workflow: ${first.field}: ${first.message}${more}`, errors);
  }
  return { tasks, transitions };
}

type Fail = (field: string, message: string, type: string) => void;

function checkTask(id: string, raw: unknown, field: string, fail: Fail): WorkflowTask | undefined {
  if (!isObject(raw)) {
    fail(field, `Task '${id}' must be an object`, "object");
    return undefined;
  }
  const marker = id === START || id === END;
  const task: Record<string, unknown> = {};
  let ok = true;
  const bad = (sub: string, message: string, type: string) => {
    fail(sub ? `${field}.${sub}` : field, message, type);
    ok = false;
  };

  for (const key of TEXT_FIELDS) {
    if (raw[key] === undefined) continue;
    if (typeof raw[key] !== "string") bad(key, `Task '${id}': '${key}' must be a string`, "string");
    else task[key] = raw[key];
  }
  for (const key of NUMBER_FIELDS) {
    if (raw[key] === undefined) continue;
    if (typeof raw[key] !== "number" || !Number.isFinite(raw[key]))
      bad(key, `Task '${id}': '${key}' must be a number`, "number");
    else task[key] = raw[key];
  }
  for (const key of BOOLEAN_FIELDS) {
    if (raw[key] === undefined) continue;
    if (typeof raw[key] !== "boolean") bad(key, `Task '${id}': '${key}' must be a boolean`, "boolean");
    else task[key] = raw[key];
  }
  if (raw.groups !== undefined) {
    if (!Array.isArray(raw.groups) || !raw.groups.every(isText))
      bad("groups", `Task '${id}': 'groups' must be an array of group ids`, "array");
    else task.groups = raw.groups;
  }
  if (raw.variables !== undefined) {
    const variables = checkVariables(id, raw.variables, bad);
    if (variables) task.variables = variables;
  }
  if (raw.retrySettings !== undefined) {
    const retry = checkRetry(id, raw.retrySettings, bad);
    if (retry) task.retrySettings = retry;
  }

  if (marker) {
    // The two ends run nothing: they are markers, whatever type a client's editor wrote on them.
    task.name = typeof task.name === "string" && task.name !== "" ? task.name : id;
    delete task.app;
    // A client's task, checked member by member into `task` (not a stored document): when every
    // check passed it holds a WorkflowTask, which the checks, not the type system, established.
    return ok ? (task as unknown as WorkflowTask) : undefined;
  }

  const type = raw.type;
  if (!(TASK_TYPES as readonly unknown[]).includes(type)) {
    bad("type", `Task '${id}': type must be one of ${TASK_TYPES.join(", ")}`, "taskType");
    return undefined;
  }
  task.type = type;
  if (!isText(raw.name)) bad("name", `Task '${id}': a ${type} task needs a name`, "required");
  if (type === "automatic" && !isText(raw.app))
    bad("app", `Task '${id}': an automatic task needs the 'app' (service) whose action it calls`, "required");
  if (type === "operation" && isText(raw.name) && !isOperationTask(raw.name)) {
    bad(
      "name",
      `Task '${id}': '${raw.name}' is not an engine operation (${OPERATION_TASKS.join(", ")})`,
      "unknownOperation",
    );
  }
  if (type !== "automatic") delete task.app;
  // As above: what the checks established.
  return ok ? (task as unknown as WorkflowTask) : undefined;
}

function checkVariables(
  id: string,
  raw: unknown,
  bad: (sub: string, message: string, type: string) => void,
): WorkflowTask["variables"] | undefined {
  if (!isObject(raw)) {
    bad("variables", `Task '${id}': 'variables' must be an object`, "object");
    return undefined;
  }
  const out: NonNullable<WorkflowTask["variables"]> = {};
  for (const key of ["incoming", "outgoing"] as const) {
    if (raw[key] === undefined) continue;
    if (!isObject(raw[key]))
      bad(`variables.${key}`, `Task '${id}': 'variables.${key}' must be an object`, "object");
    else out[key] = raw[key] as Record<string, unknown>;
  }
  if (raw.error !== undefined) {
    if (typeof raw.error !== "string")
      bad("variables.error", `Task '${id}': 'variables.error' must be a string`, "string");
    else out.error = raw.error;
  }
  return out;
}

function checkRetry(
  id: string,
  raw: unknown,
  bad: (sub: string, message: string, type: string) => void,
): WorkflowTask["retrySettings"] | undefined {
  if (!isObject(raw)) {
    bad("retrySettings", `Task '${id}': 'retrySettings' must be an object`, "object");
    return undefined;
  }
  const out: NonNullable<WorkflowTask["retrySettings"]> = {};
  if (raw.autoRetry !== undefined) {
    if (typeof raw.autoRetry !== "boolean")
      bad("retrySettings.autoRetry", `Task '${id}': 'retrySettings.autoRetry' must be a boolean`, "boolean");
    else out.autoRetry = raw.autoRetry;
  }
  for (const key of ["limit", "delay"] as const) {
    if (raw[key] === undefined) continue;
    const value = raw[key];
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0)
      bad(`retrySettings.${key}`, `Task '${id}': 'retrySettings.${key}' must be an integer >= 0`, "number");
    else out[key] = value;
  }
  if (raw.state !== undefined) {
    const state = raw.state;
    if (!Array.isArray(state) || !state.every((s) => RETRY_STATES.includes(s as string)))
      bad(
        "retrySettings.state",
        `Task '${id}': 'retrySettings.state' must list finish states (${RETRY_STATES.join(", ")})`,
        "array",
      );
    else out.state = state as string[];
  }
  return out;
}

function checkTransition(
  from: string,
  to: string,
  raw: unknown,
  tasks: Raw,
  fail: Fail,
): TransitionTarget | undefined {
  const field = `workflow.transitions.${from}.${to}`;
  if (!Object.hasOwn(tasks, to)) {
    fail(field, `Transition from '${from}' to unknown task '${to}'`, "unknownTask");
    return undefined;
  }
  if (!isObject(raw)) {
    fail(field, `Transition ${from} -> ${to} must be an object {state, type}`, "object");
    return undefined;
  }
  let ok = true;
  if (!(TRANSITION_STATES as readonly unknown[]).includes(raw.state)) {
    fail(
      `${field}.state`,
      `Transition ${from} -> ${to}: state must be one of ${TRANSITION_STATES.join(", ")}`,
      "state",
    );
    ok = false;
  }
  if (!(TRANSITION_TYPES as readonly unknown[]).includes(raw.type)) {
    fail(
      `${field}.type`,
      `Transition ${from} -> ${to}: type must be one of ${TRANSITION_TYPES.join(", ")}`,
      "type",
    );
    ok = false;
  }
  return ok
    ? { state: raw.state as TransitionTarget["state"], type: raw.type as TransitionTarget["type"] }
    : undefined;
}

/** Task ids no path of transitions (any state, any type) leads to from workflow_start. */
function unreachable(ids: string[], transitions: Transitions): string[] {
  const seen = new Set<string>([START]);
  const queue = [START];
  while (queue.length > 0) {
    const from = queue.shift()!;
    for (const to of Object.keys(transitions[from] ?? {})) {
      if (seen.has(to)) continue;
      seen.add(to);
      queue.push(to);
    }
  }
  return ids.filter((id) => !seen.has(id));
}
