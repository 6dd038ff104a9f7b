"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.publicJob = publicJob;
exports.withPublicJobs = withPublicJobs;
const JOB_INTERNALS = ["version", "sweepAt", "waitingTasks", "runAs", "deferred"];
const TASK_INTERNALS = ["claim", "child", "loop", "waitingSince"];
/** A copy of `job` without the engine's bookkeeping (members a projection left out stay out). */
function publicJob(job) {
    if (!job || typeof job !== "object")
        return job;
    const out = { ...job };
    for (const key of JOB_INTERNALS)
        delete out[key];
    if (out.tasks && typeof out.tasks === "object") {
        const tasks = {};
        for (const [id, task] of Object.entries(out.tasks)) {
            if (!task || typeof task !== "object") {
                tasks[id] = task;
                continue;
            }
            const copy = { ...task };
            for (const key of TASK_INTERNALS)
                delete copy[key];
            tasks[id] = copy;
        }
        out.tasks = tasks;
    }
    return out;
}
/** Which actions answer jobs, and where the jobs sit in their answers. */
const ANSWERS = {
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
function clean(answer, shape) {
    if (!answer || typeof answer !== "object")
        return answer;
    if (shape === "job")
        return publicJob(answer);
    if (shape === "data")
        return { ...answer, data: publicJob(answer.data) };
    if (shape === "dataList")
        return { ...answer, data: (answer.data ?? []).map(publicJob) };
    if (shape === "results")
        return { ...answer, results: (answer.results ?? []).map(publicJob) };
    return { ...answer, items: (answer.items ?? []).map(publicJob) };
}
/** The handlers, with every job answer passed through publicJob. */
function withPublicJobs(handlers) {
    const out = { ...handlers };
    for (const [name, shape] of Object.entries(ANSWERS)) {
        const handler = handlers[name];
        if (typeof handler !== "function")
            continue;
        out[name] = async function (ctx) {
            return clean(await handler.call(this, ctx), shape);
        };
    }
    return out;
}
//# sourceMappingURL=public-job.js.map