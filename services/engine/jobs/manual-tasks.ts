/**
 * GET /operations-manager/tasks: manual tasks (by default those waiting for a person), newest
 * first, filterable by job and status, with the group-based access of job reads, as the project's
 * page `{results, total, skip, limit}` (docs/compatibility.md#list-shapes). The jobs' manual-task
 * summaries are read, then the page's jobs (jobs.repository.ts manualTasks); the same on every
 * store backend.
 */
import type { Caller } from "../../../shared/contracts/resources";
import { jobAccessFilter } from "../../../shared/job-visibility";
import type { JobRepository } from "../jobs.repository";
import type { EngineCtx, EngineService } from "../types";
import { page, pageLimit } from "../../../shared/paging";

export interface ManualTaskQuery {
  job_id?: string;
  status?: "waiting" | "complete" | "canceled";
  skip?: number;
  limit?: number;
}

export async function manualTaskList(
  jobs: JobRepository,
  caller: Caller | undefined,
  query: ManualTaskQuery,
) {
  const skip = query.skip ?? 0;
  const limit = pageLimit(query.limit);
  const { rows, total } = await jobs.manualTasks({
    scope: jobAccessFilter(caller),
    jobId: query.job_id,
    status: query.status ?? "waiting",
    skip,
    limit,
  });
  const tasks = rows.map(({ job, task }) => ({
    id: task.k,
    job_id: job._id,
    name: task.v.name,
    summary: task.v.summary ?? "",
    description: task.v.description ?? "",
    displayName: task.v.displayName ?? "",
    type: task.v.type,
    status: task.v.status,
    groups: task.v.groups ?? [],
    variables: task.v.variables ?? {},
    start_time: task.v.start_time ?? null,
    end_time: task.v.end_time ?? null,
    finish_state: task.v.finish_state ?? null,
    outgoing: task.v.outgoing ?? {},
    job,
  }));
  return page(tasks, total, skip, limit);
}

/** GET /operations-manager/tasks. */
export async function listManualTasks(this: EngineService, ctx: EngineCtx<"listManualTasks">) {
  return manualTaskList(this.jobs, ctx.meta.caller, ctx.params);
}
