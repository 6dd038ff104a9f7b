/**
 * The engine's built-in `operation` tasks (docs/platform-rules.md#workflows-and-jobs). Workflow validation
 * (workflows/validation.ts) accepts exactly these names for tasks of type `operation`; the task catalog
 * (workflows/catalog.ts) documents each one's incoming and outgoing variables; the executor runs them.
 */
export const OPERATION_TASKS = ["evaluation", "query", "merge", "delay", "childJob", "forEach"] as const;

export type OperationTask = (typeof OPERATION_TASKS)[number];

export function isOperationTask(name: string): name is OperationTask {
  return (OPERATION_TASKS as readonly string[]).includes(name);
}
