/** The engine's collections, named once, and the jobs' indexes (docs/architecture.md#indexes). */
import type { Store } from "../../shared/store/types";

export const WORKFLOWS = "workflows";
export const JOBS = "jobs";
/** Task outputs, job variables and error records too big to stay in their job (run/outputs.ts). */
export const JOB_OUTPUTS = "job_outputs";

/**
 * What the engine asks of its jobs, each served by an index: the sweeper's running jobs whose
 * sweepAt has passed; job lists newest first (every caller's), a caller's own or their groups' jobs
 * newest first; a workflow's jobs (metrics, a workflow's delete); an automation's jobs; a type's.
 */
export async function ensureJobIndexes(store: Store): Promise<void> {
  const jobs = store.collection(JOBS);
  await jobs.createIndex({ keys: { status: 1, sweepAt: 1 } });
  await jobs.createIndex({ keys: { "metrics.start_time": -1, _id: -1 } });
  await jobs.createIndex({ keys: { groups: 1, "metrics.start_time": -1 } });
  await jobs.createIndex({ keys: { created_by: 1, "metrics.start_time": -1 } });
  await jobs.createIndex({ keys: { "workflow.name": 1, "metrics.start_time": -1 } });
  await jobs.createIndex({ keys: { "workflow._id": 1 } });
  await jobs.createIndex({ keys: { "automation._id": 1 } });
  await jobs.createIndex({ keys: { type: 1 } });
}
