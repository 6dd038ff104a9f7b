/**
 * Job metrics per workflow (`GET /workflow_engine/jobs/metrics`, beside operation 8's task metrics):
 * how many of a workflow's jobs are in each status, and the run time of its complete ones. One
 * aggregation over `jobs`, in the operators both store backends run the same way ($match, $group,
 * $sort, $facet, $skip, $limit, $count, $cond, $eq, $sum, $subtract).
 *
 * queryOptions: `equals` keeps one workflow by name (`equalsField` may only be `workflow.name`);
 * `order` sorts by workflow name; `skip` and `limit` page the entries (default 25, at most 1000).
 */
import type { JobMetricsResult } from "../../../shared/contracts/resources";
import { JOB_STATUSES } from "../../../shared/contracts/engine-documents";
import { invalidField } from "../../../shared/errors";
import { pageLimit } from "../../../shared/paging";
import type { EngineCtx, EngineService } from "../types";
import { JOBS } from "../collections";

const countOf = (status: string) => ({ $sum: { $cond: [{ $eq: ["$status", status] }, 1, 0] } });
const runTime = {
  $cond: [{ $eq: ["$status", "complete"] }, { $subtract: ["$metrics.end_time", "$metrics.start_time"] }, 0],
};

export async function jobMetrics(this: EngineService, ctx: EngineCtx<"jobMetrics">) {
  const options = ctx.params.queryOptions ?? {};
  if (options.equalsField !== undefined && options.equals === undefined)
    throw invalidField("queryOptions.equals", "equalsField needs equals", "required");
  const skip = options.skip ?? 0;
  const limit = pageLimit(options.limit);
  const order = options.order ?? 1;
  const [facet] = await this.store.collection(JOBS).aggregate([
    { $match: options.equals !== undefined ? { "workflow.name": options.equals } : {} },
    {
      $group: {
        _id: "$workflow._id",
        name: { $last: "$workflow.name" },
        total: { $sum: 1 },
        ...Object.fromEntries(JOB_STATUSES.map((s) => [s, countOf(s)])),
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
  const results: JobMetricsResult["results"] = (facet?.page ?? []).map((g: Record<string, any>) => ({
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
