/**
 * The real product's other job reads (docs/compatibility.md#jobs): `POST /workflow_engine/jobs/search`
 * with `{options: {query, limit, skip, sort, fields}}` answering `{results, total, limit, skip}`,
 * `GET /workflow_engine/getJob/:id` answering the job document itself, and the job output. All
 * under the same group-based access as the job list: a job one may not see is a 404, like one that
 * does not exist. The client's query is checked by shared/client-filter.ts first.
 */
import type { JobOutput } from "../../../shared/contracts/resources";
import { NotFoundError } from "../../../shared/errors";
import type { EngineCtx, EngineService } from "../types";
import { visibilityScope } from "./handlers";

async function visibleJob(service: EngineService, caller: Parameters<typeof visibilityScope>[0], id: string) {
  // Outputs too big for the job document come back with it (run/outputs.ts).
  const job = await service.jobs.findVisible(id, visibilityScope(caller));
  if (!job) throw new NotFoundError("Job", id);
  return job;
}

export async function searchJobs(this: EngineService, ctx: EngineCtx<"searchJobs">) {
  return this.jobs.search(ctx.params.options ?? {}, visibilityScope(ctx.meta.caller));
}

export async function getJobDocument(this: EngineService, ctx: EngineCtx<"getJobDocument">) {
  return visibleJob(this, ctx.meta.caller, ctx.params.id);
}

/** The job's variables, and each task's outgoing values (null for a task that has not finished). */
export async function jobOutput(this: EngineService, ctx: EngineCtx<"jobOutput">) {
  const job = await visibleJob(this, ctx.meta.caller, ctx.params.id);
  const tasks: JobOutput["tasks"] = {};
  for (const [id, task] of Object.entries(job.tasks)) {
    if (!task) continue;
    tasks[id] = {
      name: task.name,
      ...(task.summary !== undefined && { summary: task.summary }),
      status: task.status,
      ...(task.finish_state !== undefined && { finish_state: task.finish_state }),
      outgoing: task.outgoing ?? null,
    };
  }
  return { _id: job._id, name: job.name, status: job.status, variables: job.variables ?? {}, tasks };
}
