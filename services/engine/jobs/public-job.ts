/**
 * What a job answer shows (docs/compatibility.md#jobs): the job without the engine's bookkeeping.
 * The compare-and-set `version`, the sweeper's `sweepAt`, the `manualTasks` summary (and the
 * `waitingTasks` one that jobs of earlier releases carry), the caller a job runs as (`runAs`) and a
 * paused job's `deferred` transitions stay in the store; so do each task's claim, child-job id,
 * loop state and waiting start. One home for the rule: every action answering jobs is wrapped here.
 */
import { hasOwn as sharedHasOwn, setOwn } from "../../../shared/objects";
import type { EngineHandlers } from "../types";

/** shared/objects.ts hasOwn as a const of this module, so V8 compiles its for-in checks (see there). */
const hasOwn = sharedHasOwn;

const JOB_INTERNALS = ["version", "sweepAt", "waitingTasks", "manualTasks", "runAs", "deferred", "spilled"];
const TASK_INTERNALS = ["claim", "child", "loop", "waitingSince"];

/** The same fields as paths a client's search may not filter, sort or project (shared/client-filter.ts). */
export const JOB_HIDDEN_PATHS = [...JOB_INTERNALS, ...TASK_INTERNALS.map((key) => `tasks.*.${key}`)];

const JOB_HIDDEN = new Set(JOB_INTERNALS);
const TASK_HIDDEN = new Set(TASK_INTERNALS);

type Doc = Record<string, any>;

/**
 * `value`'s own members but `hidden`, in their order, as `{ ...value }` then a `delete` of each
 * would leave them: built member by member, not deleted from a spread copy, since a `delete`
 * turns a copy into a slow dictionary object (for every job answered, and for each of its tasks)
 * that the gateway then serializes more slowly. `__proto__` stays a member (shared/objects.ts).
 */
function without(value: Doc, hidden: Set<string>, tasks: boolean): Doc {
  const out: Doc = {};
  for (const key in value) {
    if (!hasOwn.call(value, key) || hidden.has(key)) continue;
    const member = tasks && key === "tasks" ? publicTasks(value[key]) : value[key];
    if (key === "__proto__") setOwn(out, key, member);
    else out[key] = member;
  }
  return out;
}

function publicTasks(tasks: unknown): unknown {
  if (!tasks || typeof tasks !== "object") return tasks;
  const out: Doc = {};
  for (const id in tasks as Doc) {
    if (!hasOwn.call(tasks, id)) continue;
    const task = (tasks as Doc)[id];
    const copy = task && typeof task === "object" ? without(task, TASK_HIDDEN, false) : task;
    if (id === "__proto__") setOwn(out, id, copy);
    else out[id] = copy;
  }
  return out;
}

/** A copy of `job` without the engine's bookkeeping (members a projection left out stay out). */
export function publicJob<T>(job: T): T {
  if (!job || typeof job !== "object") return job;
  return without(job as Doc, JOB_HIDDEN, true) as T;
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
