/**
 * GET /operations-manager/tasks: manual tasks (by default those waiting for a person), newest
 * first, filterable by job and status, with the group-based access of job reads. One aggregation
 * (runs the same on every store backend); jobs with a waiting task are found through their
 * `waitingTasks` summary, so the common question reads only those jobs.
 */
import type { Caller } from "../../../shared/contracts/resources";
import type { Filter, Store } from "../../../shared/store/types";
import { jobAccessFilter } from "../../../shared/job-visibility";
import { JOBS } from "../collections";
import { hydrateJobs } from "../run/outputs";
import type { SpillRef } from "../run/types";
import type { EngineCtx, EngineService } from "../types";
import { pageLimit } from "../../../shared/paging";

export interface ManualTaskQuery {
  job_id?: string;
  status?: "waiting" | "complete" | "canceled";
  skip?: number;
  limit?: number;
}

export async function manualTaskList(store: Store, caller: Caller | undefined, query: ManualTaskQuery) {
  const status = query.status ?? "waiting";
  const match: Filter = { ...jobAccessFilter(caller) };
  if (query.job_id) match._id = query.job_id;
  if (status === "waiting") match["waitingTasks.0"] = { $exists: true };
  const rows = await store
    .collection(JOBS)
    .aggregate<{ job: Record<string, any>; task: { k: string; v: any }; spilled?: SpillRef[] }>([
      { $match: match },
      {
        $project: {
          job: {
            _id: "$_id",
            name: "$name",
            description: "$description",
            status: "$status",
            workflow: "$workflow",
            groups: "$groups",
          },
          spilled: "$spilled",
          task: { $objectToArray: "$tasks" },
        },
      },
      { $unwind: "$task" },
      { $match: { "task.v.type": "manual", "task.v.status": status } },
      { $sort: { "task.v.start_time": -1, "job._id": -1, "task.k": 1 } },
      { $skip: query.skip ?? 0 },
      { $limit: pageLimit(query.limit) },
    ]);
  // A task's outgoing values too big for its job document are put back (run/outputs.ts).
  await hydrateJobs(
    store,
    rows
      .filter((row) => row.spilled?.length)
      .map((row) => ({ _id: row.job._id, tasks: { [row.task.k]: row.task.v }, spilled: row.spilled })),
  );
  return rows.map(({ job, task }) => ({
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
}

/** GET /operations-manager/tasks. */
export async function listManualTasks(this: EngineService, ctx: EngineCtx<"listManualTasks">) {
  return manualTaskList(this.store, ctx.meta.caller, ctx.params);
}
