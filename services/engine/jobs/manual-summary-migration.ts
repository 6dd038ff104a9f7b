/**
 * Data migration `jobs.manualTasks` (shared/store/data-migrations.ts): every job's manual-task
 * summary (../run/manual-summary.ts) made from its tasks where it is missing or differs, so the
 * manual-task list, which reads only the summaries, lists the tasks of jobs stored before the
 * summary existed, and, run again (its record deleted), of jobs an engine of an older release
 * changed during a rolling update. Run by the engine's start, once per store.
 *
 * Every job's id is read first (on the embedded store from the cold jobs' skeletons, no job
 * parsed), then the jobs a batch at a time; a summary is written only if the job is still at the
 * version read (an engine's write since made a current one).
 */
import type { JobRepository } from "../jobs.repository";
import { manualTasksOf } from "../run/manual-summary";

export const MANUAL_SUMMARY_MIGRATION = "jobs.manualTasks";

/** Jobs read at a time. */
const BATCH = 100;

/** Brings the summaries up to date; answers how many jobs it changed. */
export async function addManualSummaries(jobs: JobRepository): Promise<number> {
  const ids = await jobs.allIds();
  let changed = 0;
  for (let at = 0; at < ids.length; at += BATCH) {
    for (const job of await jobs.summariesOf(ids.slice(at, at + BATCH))) {
      const summary = manualTasksOf(job.tasks ?? {});
      if (JSON.stringify(summary) === JSON.stringify(job.manualTasks)) continue;
      if (await jobs.setManualSummary(job._id, job.version, summary)) changed++;
    }
  }
  return changed;
}
