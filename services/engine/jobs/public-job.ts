/**
 * What a job answer shows (docs/compatibility.md#jobs): the job without the engine's bookkeeping.
 * The compare-and-set `version`, the sweeper's `sweepAt`, the `waitingTasks` index, the caller
 * a job runs as (`runAs`) and a paused job's `deferred` transitions stay in the store; so do each task's claim, child-job id, loop state and
 * waiting start. One home for the rule: every action answering jobs is wrapped here.
 */
import type { EngineHandlers } from "../types";

const JOB_INTERNALS = ["version", "sweepAt", "waitingTasks", "runAs", "deferred", "spilled"];
const TASK_INTERNALS = ["claim", "child", "loop", "waitingSince"];

/** The same fields as paths a client's search may not filter, sort or project (shared/client-filter.ts). */
export const JOB_HIDDEN_PATHS = [...JOB_INTERNALS, ...TASK_INTERNALS.map((key) => `tasks.*.${key}`)];

type Doc = Record<string, any>;

/** A copy of `job` without the engine's bookkeeping (members a projection left out stay out). */
export function publicJob<T>(job: T): T {
  if (!job || typeof job !== "object") return job;
  const out: Doc = { ...(job as Doc) };
  for (const key of JOB_INTERNALS) delete out[key];
  if (out.tasks && typeof out.tasks === "object") {
    const tasks: Doc = {};
    for (const [id, task] of Object.entries(out.tasks as Doc)) {
      if (!task || typeof task !== "object") {
        tasks[id] = task;
        continue;
      }
      const copy: Doc = { ...task };
      for (const key of TASK_INTERNALS) delete copy[key];
      tasks[id] = copy;
    }
    out.tasks = tasks;
  }
  return out as T;
}

type Shape = "job" | "data" | "dataList" | "items" | "results";

/** Which actions answer jobs, and where the jobs sit in their answers. */
const ANSWERS: Record<string, Shape> = {
  startJob: "job",
  startScheduledJob: "job",
  finishTask: "job",
  cancelJob: "job",
  getJob: "data",
  listJobs: "dataList",
  adminJobs: "items",
  pauseJobs: "dataList",
  resumeJobs: "dataList",
  cancelJobs: "dataList",
  searchJobs: "results",
  getJobDocument: "job",
};

function clean(answer: any, shape: Shape): any {
  if (!answer || typeof answer !== "object") return answer;
  if (shape === "job") return publicJob(answer);
  if (shape === "data") return { ...answer, data: publicJob(answer.data) };
  if (shape === "dataList") return { ...answer, data: (answer.data ?? []).map(publicJob) };
  if (shape === "results") return { ...answer, results: (answer.results ?? []).map(publicJob) };
  return { ...answer, items: (answer.items ?? []).map(publicJob) };
}

/** The handlers, with every job answer passed through publicJob. */
export function withPublicJobs(handlers: EngineHandlers): EngineHandlers {
  const out: Record<string, unknown> = { ...handlers };
  for (const [name, shape] of Object.entries(ANSWERS)) {
    const handler = (handlers as Record<string, any>)[name];
    if (typeof handler !== "function") continue;
    out[name] = async function (this: unknown, ctx: unknown) {
      return clean(await handler.call(this, ctx), shape);
    };
  }
  return out as EngineHandlers;
}
