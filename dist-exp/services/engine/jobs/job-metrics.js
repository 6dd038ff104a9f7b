"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.jobMetrics = jobMetrics;
const engine_documents_1 = require("../../../shared/contracts/engine-documents");
const errors_1 = require("../../../shared/errors");
const paging_1 = require("../../../shared/paging");
const collections_1 = require("../collections");
const countOf = (status) => ({ $sum: { $cond: [{ $eq: ["$status", status] }, 1, 0] } });
const runTime = {
    $cond: [{ $eq: ["$status", "complete"] }, { $subtract: ["$metrics.end_time", "$metrics.start_time"] }, 0],
};
async function jobMetrics(ctx) {
    const options = ctx.params.queryOptions ?? {};
    if (options.equalsField !== undefined && options.equals === undefined)
        throw (0, errors_1.invalidField)("queryOptions.equals", "equalsField needs equals", "required");
    const skip = options.skip ?? 0;
    const limit = (0, paging_1.pageLimit)(options.limit);
    const order = options.order ?? 1;
    const [facet] = await this.store.collection(collections_1.JOBS).aggregate([
        { $match: options.equals !== undefined ? { "workflow.name": options.equals } : {} },
        {
            $group: {
                _id: "$workflow._id",
                name: { $last: "$workflow.name" },
                total: { $sum: 1 },
                ...Object.fromEntries(engine_documents_1.JOB_STATUSES.map((s) => [s, countOf(s)])),
                totalRunTime: { $sum: runTime },
            },
        },
        { $sort: { name: order, _id: order } },
        {
            $facet: {
                page: [{ $skip: skip }, { $limit: limit }],
                count: [{ $count: "total" }],
            },
        },
    ]);
    const results = (facet?.page ?? []).map((g) => ({
        _id: g._id,
        workflow: { _id: g._id, name: g.name },
        metrics: {
            total: g.total,
            running: g.running,
            paused: g.paused,
            complete: g.complete,
            error: g.error,
            canceled: g.canceled,
            totalRunTime: g.totalRunTime,
            averageRunTime: g.complete > 0 ? Math.round(g.totalRunTime / g.complete) : null,
        },
    }));
    return { results, skip, limit, total: facet?.count?.[0]?.total ?? 0 };
}
//# sourceMappingURL=job-metrics.js.map