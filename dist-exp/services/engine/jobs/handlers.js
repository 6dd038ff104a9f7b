"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.visibilityScope = visibilityScope;
exports.adminJobs = adminJobs;
exports.listJobs = listJobs;
exports.getJob = getJob;
const contracts_1 = require("../../../shared/contracts");
const envelope_1 = require("../../../shared/envelope");
const errors_1 = require("../../../shared/errors");
const job_visibility_1 = require("../../../shared/job-visibility");
const query_builder_1 = require("./query-builder");
const collections_1 = require("../collections");
/** The filter a caller's visibility adds; undefined when it sees every job. */
function visibilityScope(caller) {
    const filter = (0, job_visibility_1.jobAccessFilter)(caller);
    return Object.keys(filter).length === 0 ? undefined : filter;
}
async function jobPage(service, ctx, params, scope) {
    const query = (0, query_builder_1.jobStoreQuery)(params, scope);
    const jobs = service.store.collection(collections_1.JOBS);
    const [items, total] = await Promise.all([
        jobs.find(query.filter, {
            sort: query.sort,
            skip: query.skip,
            limit: query.limit,
            ...(query.projection && { projection: query.projection }),
        }),
        jobs.count(query.filter),
    ]);
    const hints = [...query.hints, ...(await expand(service, ctx, items, query.dereference))];
    const { skip, limit } = query;
    return {
        items: items,
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
async function expand(service, ctx, items, fields) {
    const hints = [];
    if (fields.includes("workflow")) {
        const refs = items.map((j) => j.workflow).filter((w) => typeof w?._id === "string");
        const ids = [...new Set(refs.map((w) => w._id))];
        const found = ids.length === 0
            ? []
            : await service.store.collection(collections_1.WORKFLOWS).find({ _id: { $in: ids } });
        const byId = new Map(found.map((w) => [w._id, w]));
        for (const job of items) {
            if (typeof job.workflow?._id !== "string")
                continue;
            const workflow = byId.get(job.workflow._id);
            if (workflow)
                job.workflow = workflow;
            else
                hints.push(`job ${job._id}: workflow '${job.workflow.name}' no longer exists; its reference is kept`);
        }
    }
    if (fields.includes("groups") && items.some((j) => Array.isArray(j.groups) && j.groups.length > 0)) {
        const groups = await (0, contracts_1.call)(ctx, "accounts.listGroups", {});
        const byId = new Map(groups.map((g) => [g._id, g]));
        for (const job of items) {
            if (!Array.isArray(job.groups))
                continue;
            job.groups = job.groups.map((id) => {
                const group = typeof id === "string" ? byId.get(id) : undefined;
                if (!group)
                    hints.push(`job ${job._id}: group '${String(id)}' does not exist`);
                return group ?? { _id: id };
            });
        }
    }
    return hints;
}
async function adminJobs(ctx) {
    return jobPage(this, ctx, ctx.params.queryParameters, undefined);
}
/** The real product's envelope (docs/compatibility.md#jobs); `/admin/jobs` keeps the spec's page. */
async function listJobs(ctx) {
    const page = await jobPage(this, ctx, ctx.params.queryParameters, visibilityScope(ctx.meta.caller));
    const envelope = (0, envelope_1.pageEnvelope)("Successfully retrieved items", page.items, page);
    return { ...envelope, metadata: { ...envelope.metadata, hints: page.hints } };
}
/** One job in the envelope, with the list's `include`, `exclude` and `dereference`. */
async function getJob(ctx) {
    const { id, include, exclude, dereference } = ctx.params;
    const scope = visibilityScope(ctx.meta.caller);
    const page = await jobPage(this, ctx, {
        limit: 1,
        ...(include && { include }),
        ...(exclude && { exclude }),
        ...(dereference && { dereference }),
    }, { ...scope, _id: id });
    // Not visible and not there read the same: a caller outside the job's groups learns nothing.
    if (page.items.length === 0)
        throw new errors_1.NotFoundError("Job", id);
    return (0, envelope_1.itemEnvelope)("Successfully retrieved item", page.items[0]);
}
//# sourceMappingURL=handlers.js.map