"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.manualTaskList = manualTaskList;
exports.listManualTasks = listManualTasks;
const job_visibility_1 = require("../../../shared/job-visibility");
const collections_1 = require("../collections");
const paging_1 = require("../../../shared/paging");
async function manualTaskList(store, caller, query) {
    const status = query.status ?? "waiting";
    const match = { ...(0, job_visibility_1.jobAccessFilter)(caller) };
    if (query.job_id)
        match._id = query.job_id;
    if (status === "waiting")
        match["waitingTasks.0"] = { $exists: true };
    const rows = await store
        .collection(collections_1.JOBS)
        .aggregate([
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
                task: { $objectToArray: "$tasks" },
            },
        },
        { $unwind: "$task" },
        { $match: { "task.v.type": "manual", "task.v.status": status } },
        { $sort: { "task.v.start_time": -1, "job._id": -1, "task.k": 1 } },
        { $skip: query.skip ?? 0 },
        { $limit: (0, paging_1.pageLimit)(query.limit) },
    ]);
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
async function listManualTasks(ctx) {
    return manualTaskList(this.store, ctx.meta.caller, ctx.params);
}
//# sourceMappingURL=manual-tasks.js.map