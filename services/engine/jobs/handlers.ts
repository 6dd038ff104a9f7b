/**
 * Engine: job lists and reads (operation 5, and docs/platform-rules.md#supporting-operations's group-based job list and
 * read). The query itself is built in ./query-builder.ts; this module adds who may see what and the
 * `dereference` expansions, and shapes the spec's Job list page.
 *
 * Group-based access (docs/platform-rules.md#sign-in-and-roles; the one rule is shared/job-visibility.ts, shared with the
 * executor): outside /admin a caller sees a job only when it shares a group with `job.groups`, or
 * has role admin. A caller without groups sees none; a bus call without a caller is the platform
 * itself and sees every job. Reading a job one may not see answers 404, exactly as a job that does
 * not exist, so existence never leaks.
 */
import type { Context } from "moleculer";
import type { Caller, Group, Job, JobPage } from "../../../shared/contracts/resources";
import { itemEnvelope, pageEnvelope } from "../../../shared/envelope";
import { NotFoundError } from "../../../shared/errors";
import type { Filter } from "../../../shared/store/types";
import type { EngineCtx, EngineService } from "../types";
import { jobAccessFilter } from "../../../shared/job-visibility";
import { jobStoreQuery, type Dereference, type JobQueryParameters } from "./query-builder";
import { callAsPlatform } from "../../../shared/authorization";

/** The filter a caller's visibility adds; undefined when it sees every job. */
export function visibilityScope(caller: Caller | undefined): Filter | undefined {
  const filter = jobAccessFilter(caller);
  return Object.keys(filter).length === 0 ? undefined : filter;
}

async function jobPage(
  service: EngineService,
  ctx: Context,
  params: JobQueryParameters | undefined,
  scope: Filter | undefined,
): Promise<JobPage> {
  const query = jobStoreQuery(params, scope);
  // Outputs too big for their job document come back with it (run/outputs.ts).
  const { items, total } = await service.jobs.page(query);
  const hints = [...query.hints, ...(await expand(service, ctx, items, query.dereference))];
  const { skip, limit } = query;
  return {
    items: items as Job[],
    total,
    currentPageSize: items.length,
    hints,
    skip,
    limit,
    // -1: there is no such page (skip is never negative, so it cannot be mistaken for one).
    nextPageSkip: skip + limit < total ? skip + limit : -1,
    previousPageSkip: skip > 0 ? Math.max(0, skip - limit) : -1,
  };
}

/** Replaces references in `items` in place by what they name; answers hints for dangling ones. */
async function expand(
  service: EngineService,
  ctx: Context,
  items: Record<string, any>[],
  fields: Dereference[],
) {
  const hints: string[] = [];
  if (fields.includes("workflow")) {
    const refs = items.map((j) => j.workflow).filter((w) => typeof w?._id === "string");
    const ids = [...new Set(refs.map((w) => w._id as string))];
    const found = await service.workflows.byIds(ids);
    const byId = new Map(found.map((w) => [w._id, w]));
    for (const job of items) {
      if (typeof job.workflow?._id !== "string") continue;
      const workflow = byId.get(job.workflow._id);
      if (workflow) job.workflow = workflow;
      else
        hints.push(`job ${job._id}: workflow '${job.workflow.name}' no longer exists; its reference is kept`);
    }
  }
  if (fields.includes("groups") && items.some((j) => Array.isArray(j.groups) && j.groups.length > 0)) {
    const groups = await callAsPlatform(ctx, "accounts.listGroups", {});
    const byId = new Map(groups.map((g: Group) => [g._id, g]));
    for (const job of items) {
      if (!Array.isArray(job.groups)) continue;
      job.groups = job.groups.map((id: unknown) => {
        const group = typeof id === "string" ? byId.get(id) : undefined;
        if (!group) hints.push(`job ${job._id}: group '${String(id)}' does not exist`);
        return group ?? { _id: id };
      });
    }
  }
  return hints;
}

export async function adminJobs(this: EngineService, ctx: EngineCtx<"adminJobs">) {
  return jobPage(this, ctx, ctx.params.queryParameters, undefined);
}

/** The real product's envelope (docs/compatibility.md#jobs); `/admin/jobs` keeps the spec's page. */
export async function listJobs(this: EngineService, ctx: EngineCtx<"listJobs">) {
  const page = await jobPage(this, ctx, ctx.params.queryParameters, visibilityScope(ctx.meta.caller));
  const envelope = pageEnvelope("Successfully retrieved items", page.items, page);
  return { ...envelope, metadata: { ...envelope.metadata, hints: page.hints } };
}

/** One job in the envelope, with the list's `include`, `exclude` and `dereference`. */
export async function getJob(this: EngineService, ctx: EngineCtx<"getJob">) {
  const { id, include, exclude, dereference } = ctx.params;
  const scope = visibilityScope(ctx.meta.caller);
  const page = await jobPage(
    this,
    ctx,
    {
      limit: 1,
      ...(include && { include }),
      ...(exclude && { exclude }),
      ...(dereference && { dereference }),
    },
    { ...scope, _id: id },
  );
  // Not visible and not there read the same: a caller outside the job's groups learns nothing.
  if (page.items.length === 0) throw new NotFoundError("Job", id);
  return itemEnvelope("Successfully retrieved item", page.items[0] as Job);
}
