"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.searchJobs = searchJobs;
exports.getJobDocument = getJobDocument;
exports.jobOutput = jobOutput;
const client_filter_1 = require("../../../shared/client-filter");
const errors_1 = require("../../../shared/errors");
const collections_1 = require("../collections");
const handlers_1 = require("./handlers");
async function visibleJob(service, caller, id) {
    const job = await service.store.collection(collections_1.JOBS).findOne({ ...(0, handlers_1.visibilityScope)(caller), _id: id });
    if (!job)
        throw new errors_1.NotFoundError("Job", id);
    return job;
}
async function searchJobs(ctx) {
    const jobs = this.store.collection(collections_1.JOBS);
    return (0, client_filter_1.searchPage)(jobs, ctx.params.options ?? {}, { _id: 1 }, (0, handlers_1.visibilityScope)(ctx.meta.caller));
}
async function getJobDocument(ctx) {
    return visibleJob(this, ctx.meta.caller, ctx.params.id);
}
/** The job's variables, and each task's outgoing values (null for a task that has not finished). */
async function jobOutput(ctx) {
    const job = await visibleJob(this, ctx.meta.caller, ctx.params.id);
    const tasks = {};
    for (const [id, task] of Object.entries((job.tasks ?? {}))) {
        if (!task)
            continue;
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
//# sourceMappingURL=search.js.map