/**
 * A job's summary of its manual tasks (RunJob.manualTasks): each one's id, status and start, so
 * the manual-task list (jobs.repository.ts manualTasks) reads the summaries, which the embedded
 * store's cold jobs keep on their skeletons (an index leads into them), and parses only the jobs of
 * the page it answers. Before, listing the finished manual tasks parsed every stored job: 6,000
 * finished jobs cost about half a second of the store's thread, and their garbage a GC's pause.
 *
 * Written by the engine at every write of the job (transitions.ts summarize) and when it is built
 * (new-job.ts); jobs stored before it existed get it from a data migration at the engine's start
 * (../jobs/manual-summary-migration.ts).
 */
import type { ManualTaskSummary, RunTask } from "./types";

/** Manual task `id`'s entry in its job's summary. */
export function manualEntry(id: string, task: Readonly<RunTask>): ManualTaskSummary {
  const entry: ManualTaskSummary = { k: id, status: task.status };
  if (task.start_time !== undefined) entry.start_time = task.start_time;
  return entry;
}

/** The summary of `tasks`' manual tasks, in their order; undefined when there are none. */
export function manualTasksOf(tasks: Record<string, RunTask | null>): ManualTaskSummary[] | undefined {
  let summary: ManualTaskSummary[] | undefined;
  for (const id in tasks) {
    const task = Object.hasOwn(tasks, id) ? tasks[id] : undefined;
    if (task?.type === "manual") (summary ??= []).push(manualEntry(id, task));
  }
  return summary;
}
