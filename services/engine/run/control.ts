/**
 * Job control by `{jobIds}` (the real product's `POST /operations-manager/jobs/pause`, `/resume` and
 * `/cancel`; docs/engine.md#pause-and-resume). Each job is one compare-and-set write through the
 * Runner, as `cancelJob` is; the jobs are independent, so one that cannot change (not found, not
 * visible, in the wrong status) does not stop the others: it is named in `metadata.failed` with the
 * status code its own request would have had.
 */
import { copyPlain } from "../../../shared/objects";
import type { Caller, Job, JobControlResult } from "../../../shared/contracts/resources";
import { ConflictError, NotFoundError } from "../../../shared/errors";
import { maySeeJob } from "../../../shared/job-visibility";
import type { EngineCtx, EngineService } from "../types";
import type { Runner } from "./runner";
import { cancelRun, pauseRun, resumeRun, type Step } from "./transitions";
import type { RunJob } from "./types";

interface Control {
  verb: string;
  /** Job statuses the change applies to. */
  from: readonly string[];
  apply(job: RunJob, step: Step): void;
}

const PAUSE: Control = { verb: "paused", from: ["running"], apply: pauseRun };
const RESUME: Control = { verb: "resumed", from: ["paused"], apply: resumeRun };
export const CANCEL: Control = { verb: "canceled", from: ["running", "paused"], apply: cancelRun };

/**
 * One job's change, as one compare-and-set write: 404 for a job the caller may not see (or that is
 * not there), 409 for one in another status. Answers the job as written. `cancelJob` uses it too.
 */
export async function changeJob(
  service: EngineService,
  caller: Caller | undefined,
  id: string,
  what: Control,
): Promise<RunJob> {
  const runner: Runner = service.runner;
  const written = await runner.advance(
    id,
    (draft, step) => {
      if (!maySeeJob(caller, draft)) throw new NotFoundError("Job", id);
      if (!what.from.includes(draft.status))
        throw new ConflictError(
          `Job ${id} is ${draft.status}; only a ${what.from.join(" or ")} job can be ${what.verb}`,
          { jobStatus: draft.status },
        );
      what.apply(draft, step);
    },
    { fresh: true },
  );
  if (!written) throw new NotFoundError("Job", id);
  return written.job;
}

async function control(
  service: EngineService,
  caller: Caller | undefined,
  jobIds: string[],
  what: Control,
): Promise<JobControlResult> {
  const data: Job[] = [];
  const failed: JobControlResult["metadata"]["failed"] = [];
  for (const id of jobIds) {
    try {
      data.push(copyPlain(await changeJob(service, caller, id, what)));
    } catch (err) {
      const e = err as { code?: number; message: string };
      // Anything but a client error (a store failure) is the request's failure, not this job's.
      if (typeof e.code !== "number" || e.code >= 500 || e.code < 400) throw err;
      failed.push({ jobId: id, code: e.code, message: e.message });
    }
  }
  return {
    message: `${data.length} of ${jobIds.length} jobs ${what.verb}`,
    data,
    metadata: { changed: data.length, failed },
  };
}

export async function pauseJobs(this: EngineService, ctx: EngineCtx<"pauseJobs">) {
  return control(this, ctx.meta.caller, ctx.params.jobIds, PAUSE);
}

export async function resumeJobs(this: EngineService, ctx: EngineCtx<"resumeJobs">) {
  return control(this, ctx.meta.caller, ctx.params.jobIds, RESUME);
}

export async function cancelJobs(this: EngineService, ctx: EngineCtx<"cancelJobs">) {
  return control(this, ctx.meta.caller, ctx.params.jobIds, CANCEL);
}
