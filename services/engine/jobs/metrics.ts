/**
 * Engine: task metrics (operation 8; docs/platform-rules.md#workflows-and-jobs). Daily buckets per workflow, computed
 * by one aggregation pipeline over `jobs` (../jobs.repository.ts `dailyMetrics`) that both store
 * backends run the same way (only $match, $project, $group, $sort, $facet, $skip, $limit, $count and
 * plain arithmetic/conditional/date expressions, all in the store contract test's repertoire).
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
import { invalidField } from "../../../shared/errors";
import type { TaskMetricsResult } from "../../../shared/contracts/resources";
import type { engine } from "../../../shared/contracts/engine";
import type { Infer } from "../../../shared/contracts/schema";
import type { EngineCtx, EngineService } from "../types";
import { pageLimit } from "../../../shared/paging";
import { DAY_MS } from "../jobs.repository";

type MetricsOptions = NonNullable<Infer<typeof engine.actions.taskMetrics.params>["queryOptions"]>;

/** The repository's question from the client's options (400 for a field without its value). */
export function metricsQuery(options: MetricsOptions = {}) {
  if (options.greaterThanEqualsField !== undefined && options.greaterThanEquals === undefined)
    throw invalidField(
      "queryOptions.greaterThanEquals",
      "greaterThanEqualsField needs greaterThanEquals",
      "required",
    );
  if (options.equalsField !== undefined && options.equals === undefined)
    throw invalidField("queryOptions.equals", "equalsField needs equals", "required");
  return {
    // A bucket starts at or after T exactly when its jobs ended at or after T rounded up to a day.
    since:
      options.greaterThanEquals !== undefined ? Math.ceil(options.greaterThanEquals / DAY_MS) * DAY_MS : 0,
    workflowName: options.equals,
    sortBy:
      options.sort === "metrics.startDate" ? ("metrics.startDate" as const) : ("workflow.name" as const),
    order: options.order ?? 1,
    skip: options.skip ?? 0,
    limit: pageLimit(options.limit),
  };
}

export async function taskMetrics(this: EngineService, ctx: EngineCtx<"taskMetrics">) {
  const query = metricsQuery(ctx.params.queryOptions);
  const { skip, limit } = query;
  const out = await this.jobs.dailyMetrics(query);
  const results: TaskMetricsResult["results"] = out.page.map((entry) => ({
    _id: entry._id,
    workflow: { name: entry.workflow.name, _id: entry.workflow._id },
    // $push keeps the sorted order on both backends; sorting again costs nothing and guarantees it.
    metrics: [...entry.metrics]
      .sort((a, b) => a.day - b.day)
      .map(({ day, ...sums }) => ({ ...sums, startDate: new Date(day).toISOString() })),
    preAutomationTime: entry.preAutomationTime,
  }));
  return { results, skip, limit, total: out.total };
}
