"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.CANCEL = void 0;
exports.changeJob = changeJob;
exports.pauseJobs = pauseJobs;
exports.resumeJobs = resumeJobs;
exports.cancelJobs = cancelJobs;
/**
 * Job control by `{jobIds}` (the real product's `POST /operations-manager/jobs/pause`, `/resume` and
 * `/cancel`; docs/engine.md#pause-and-resume). Each job is one compare-and-set write through the
 * Runner, as `cancelJob` is; the jobs are independent, so one that cannot change (not found, not
 * visible, in the wrong status) does not stop the others: it is named in `metadata.failed` with the
 * status code its own request would have had.
 */
const objects_1 = require("../../../shared/objects");
const errors_1 = require("../../../shared/errors");
const job_visibility_1 = require("../../../shared/job-visibility");
const transitions_1 = require("./transitions");
const PAUSE = { verb: "paused", from: ["running"], apply: transitions_1.pauseRun };
const RESUME = { verb: "resumed", from: ["paused"], apply: transitions_1.resumeRun };
exports.CANCEL = { verb: "canceled", from: ["running", "paused"], apply: transitions_1.cancelRun };
/**
 * One job's change, as one compare-and-set write: 404 for a job the caller may not see (or that is
 * not there), 409 for one in another status. Answers the job as written. `cancelJob` uses it too.
 */
async function changeJob(service, caller, id, what) {
    const runner = service.runner;
    const written = await runner.advance(id, (draft, step) => {
        if (!(0, job_visibility_1.maySeeJob)(caller, draft.groups))
            throw new errors_1.NotFoundError("Job", id);
        if (!what.from.includes(draft.status))
            throw new errors_1.ConflictError(`Job ${id} is ${draft.status}; only a ${what.from.join(" or ")} job can be ${what.verb}`, { jobStatus: draft.status });
        what.apply(draft, step);
    }, { fresh: true });
    if (!written)
        throw new errors_1.NotFoundError("Job", id);
    return written.job;
}
async function control(service, caller, jobIds, what) {
    const data = [];
    const failed = [];
    for (const id of jobIds) {
        try {
            data.push((0, objects_1.copyPlain)(await changeJob(service, caller, id, what)));
        }
        catch (err) {
            const e = err;
            // Anything but a client error (a store failure) is the request's failure, not this job's.
            if (typeof e.code !== "number" || e.code >= 500 || e.code < 400)
                throw err;
            failed.push({ jobId: id, code: e.code, message: e.message });
        }
    }
    return {
        message: `${data.length} of ${jobIds.length} jobs ${what.verb}`,
        data,
        metadata: { changed: data.length, failed },
    };
}
async function pauseJobs(ctx) {
    return control(this, ctx.meta.caller, ctx.params.jobIds, PAUSE);
}
async function resumeJobs(ctx) {
    return control(this, ctx.meta.caller, ctx.params.jobIds, RESUME);
}
async function cancelJobs(ctx) {
    return control(this, ctx.meta.caller, ctx.params.jobIds, exports.CANCEL);
}
//# sourceMappingURL=control.js.map