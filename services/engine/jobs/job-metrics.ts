/**
 * Job metrics per workflow (`GET /workflow_engine/jobs/metrics`, beside operation 8's task metrics):
 * how many of a workflow's jobs are in each status, and the run time of its complete ones. One
 * aggregation over `jobs` (../jobs.repository.ts `countsByWorkflow`), in the operators both store backends run the same way ($match, $group,
 * $sort, $facet, $skip, $limit, $count, $cond, $eq, $sum, $subtract).
 *
 * queryOptions: `equals` keeps one workflow by name (`equalsField` may only be `workflow.name`);
 * `order` sorts by workflow name; `skip` and `limit` page the entries (default 25, at most 1000).
 */
import type { JobMetricsResult } from "../../../shared/contracts/resources";
import { invalidField } from "../../../shared/errors";
import { pageLimit } from "../../../shared/paging";
import type { EngineCtx, EngineService } from "../types";

export async function jobMetrics(this: EngineService, ctx: EngineCtx<"jobMetrics">) {
  const options = ctx.params.queryOptions ?? {};
  if (options.equalsField !== undefined && options.equals === undefined)
    throw invalidField("queryOptions.equals", "equalsField needs equals", "required");
  const skip = options.skip ?? 0;
  const limit = pageLimit(options.limit);
  const order = options.order ?? 1;
  const counts = await this.jobs.countsByWorkflow({ workflowName: options.equals, order, skip, limit });
  const results: JobMetricsResult["results"] = counts.page.map((g) => ({
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
  return { results, skip, limit, total: counts.total };
}
