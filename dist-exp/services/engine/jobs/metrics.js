"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.DAY_MS = void 0;
exports.metricsPipeline = metricsPipeline;
exports.taskMetrics = taskMetrics;
/**
 * Engine: task metrics (operation 8; docs/platform-rules.md#workflows-and-jobs). Daily buckets per workflow, computed
 * by one aggregation pipeline over `jobs` that both store backends run the same way (only $match,
 * $project, $group, $sort, $facet, $skip, $limit, $count and plain arithmetic/conditional/date
 * expressions, all in the store contract test's repertoire).
 *
 * A bucket is a UTC day of completions: a job counts on the day its `metrics.end_time` falls in.
 *   jobsComplete     jobs of the workflow with status `complete` that ended that day
 *   totalRunTime     sum of their run times, end_time - start_time (ms)
 *   totalManualTime  sum of their `metrics.manual_time` (ms spent waiting on manual tasks)
 *   slaTargetsMissed those whose run time exceeded `sla` seconds (copied from the workflow at start;
 *                    absent or 0 means no target)
 *   startDate        the day, as an ISO string at 00:00Z
 * One result entry per workflow (`_id` and `workflow._id` are the workflow's id; `workflow.name` its
 * name on its latest completed job), its buckets oldest first.
 *
 * queryOptions: `greaterThanEquals` (epoch ms) keeps buckets whose startDate >= it
 * (`greaterThanEqualsField` may only be `metrics.startDate`, and is that when omitted); `equals`
 * keeps one workflow by name (`equalsField` may only be `workflow.name`, and is that when omitted).
 * A field without its value is a 400. `sort` (`workflow.name` default, or `metrics.startDate`: the
 * entry's earliest bucket ascending, its latest descending, as MongoDB sorts arrays), `order`,
 * `skip` and `limit` (default 25, at most 1000) page the result entries.
 */
const errors_1 = require("../../../shared/errors");
const collections_1 = require("../collections");
const paging_1 = require("../../../shared/paging");
exports.DAY_MS = 86_400_000;
const runTime = { $subtract: ["$metrics.end_time", "$metrics.start_time"] };
const slaMs = { $multiply: [{ $ifNull: ["$sla", 0] }, 1000] };
/** The one pipeline: filter completed jobs, bucket by (workflow, day), gather per workflow, page. */
function metricsPipeline(options = {}) {
    if (options.greaterThanEqualsField !== undefined && options.greaterThanEquals === undefined)
        throw (0, errors_1.invalidField)("queryOptions.greaterThanEquals", "greaterThanEqualsField needs greaterThanEquals", "required");
    if (options.equalsField !== undefined && options.equals === undefined)
        throw (0, errors_1.invalidField)("queryOptions.equals", "equalsField needs equals", "required");
    // A bucket starts at or after T exactly when its jobs ended at or after T rounded up to a day.
    const since = options.greaterThanEquals !== undefined ? Math.ceil(options.greaterThanEquals / exports.DAY_MS) * exports.DAY_MS : 0;
    const match = {
        status: "complete",
        "metrics.end_time": { $gte: since },
        "metrics.start_time": { $gte: 0 },
    };
    if (options.equals !== undefined)
        match["workflow.name"] = options.equals;
    const skip = options.skip ?? 0;
    const limit = (0, paging_1.pageLimit)(options.limit);
    const order = options.order ?? 1;
    const sort = options.sort === "metrics.startDate"
        ? { [order === 1 ? "first" : "last"]: order, _id: order }
        : { "workflow.name": order, _id: order };
    const pipeline = [
        { $match: match },
        {
            $project: {
                workflowId: "$workflow._id",
                workflowName: "$workflow.name",
                end: "$metrics.end_time",
                day: { $subtract: ["$metrics.end_time", { $mod: ["$metrics.end_time", exports.DAY_MS] }] },
                run: runTime,
                manual: { $ifNull: ["$metrics.manual_time", 0] },
                pre: { $ifNull: ["$preAutomationTime", 0] },
                missed: {
                    $cond: [{ $and: [{ $gt: [slaMs, 0] }, { $gt: [runTime, slaMs] }] }, 1, 0],
                },
            },
        },
        { $sort: { end: 1, _id: 1 } },
        {
            $group: {
                _id: { workflow: "$workflowId", day: "$day" },
                name: { $last: "$workflowName" },
                pre: { $last: "$pre" },
                lastEnd: { $max: "$end" },
                jobsComplete: { $sum: 1 },
                totalRunTime: { $sum: "$run" },
                totalManualTime: { $sum: "$manual" },
                slaTargetsMissed: { $sum: "$missed" },
            },
        },
        { $sort: { "_id.day": 1, lastEnd: 1 } },
        {
            $group: {
                _id: "$_id.workflow",
                name: { $last: "$name" },
                preAutomationTime: { $last: "$pre" },
                first: { $min: "$_id.day" },
                last: { $max: "$_id.day" },
                metrics: {
                    $push: {
                        jobsComplete: "$jobsComplete",
                        totalRunTime: "$totalRunTime",
                        totalManualTime: "$totalManualTime",
                        slaTargetsMissed: "$slaTargetsMissed",
                        day: "$_id.day",
                    },
                },
            },
        },
        {
            $project: {
                _id: 1,
                workflow: { name: "$name", _id: "$_id" },
                metrics: 1,
                preAutomationTime: 1,
                first: 1,
                last: 1,
            },
        },
        {
            $facet: {
                total: [{ $count: "n" }],
                page: [{ $sort: sort }, { $skip: skip }, { $limit: limit }],
            },
        },
    ];
    return { pipeline, skip, limit };
}
async function taskMetrics(ctx) {
    const { pipeline, skip, limit } = metricsPipeline(ctx.params.queryOptions);
    const [out] = await this.store
        .collection(collections_1.JOBS)
        .aggregate(pipeline);
    const results = (out?.page ?? []).map((entry) => ({
        _id: entry._id,
        workflow: { name: entry.workflow.name, _id: entry.workflow._id },
        // $push keeps the sorted order on both backends; sorting again costs nothing and guarantees it.
        metrics: [...entry.metrics]
            .sort((a, b) => a.day - b.day)
            .map(({ day, ...sums }) => ({ ...sums, startDate: new Date(day).toISOString() })),
        preAutomationTime: entry.preAutomationTime,
    }));
    return { results, skip, limit, total: out?.total[0]?.n ?? 0 };
}
//# sourceMappingURL=metrics.js.map