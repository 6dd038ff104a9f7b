"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.omView = omView;
exports.omCreateAutomation = omCreateAutomation;
exports.omListAutomations = omListAutomations;
exports.omGetAutomation = omGetAutomation;
exports.omUpdateAutomation = omUpdateAutomation;
exports.omDeleteAutomation = omDeleteAutomation;
const contracts_1 = require("../../shared/contracts");
const envelope_1 = require("../../shared/envelope");
const errors_1 = require("../../shared/errors");
const text_1 = require("../../shared/text");
const automations_1 = require("./automations");
const firing_1 = require("./firing");
const list_query_1 = require("./list-query");
/** The real product's field -> where this platform stores it. */
const STORED = { componentName: "workflow" };
function omView(a) {
    return {
        _id: a._id,
        name: a.name,
        description: a.description,
        componentType: "workflows",
        componentId: a.componentId ?? null,
        componentName: a.workflow,
        gbac: { read: [], write: a.groups },
        created: a.created,
        createdBy: a.created_by,
        lastUpdated: a.last_updated,
        lastUpdatedBy: a.last_updated_by,
    };
}
/** The workflow a componentId names: by `_id` when it is one, else by name. 400 when none. */
async function resolveComponent(ctx, componentId) {
    const notFound = (err) => err.code === 404;
    try {
        if (/^[0-9a-f]{24}$/i.test(componentId))
            return await (0, contracts_1.call)(ctx, "engine.getWorkflowById", { id: componentId }).catch(async (err) => {
                if (!notFound(err))
                    throw err;
                return (0, contracts_1.call)(ctx, "engine.getWorkflow", { name: componentId });
            });
        return await (0, contracts_1.call)(ctx, "engine.getWorkflow", { name: componentId });
    }
    catch (err) {
        if (!notFound(err))
            throw err;
        throw (0, errors_1.invalidField)("componentId", `No workflow has the _id or name '${componentId}'`, "unknownWorkflow");
    }
}
async function members(ctx, p) {
    const fields = {};
    if (p.name !== undefined)
        fields.name = p.name;
    if (p.description !== undefined)
        fields.description = p.description;
    if (p.componentId === null)
        Object.assign(fields, { workflow: null, componentId: null });
    else if (p.componentId !== undefined) {
        const workflow = await resolveComponent(ctx, p.componentId);
        Object.assign(fields, { workflow: workflow.name, componentId: workflow._id });
    }
    if (p.gbac)
        fields.groups = [...new Set([...(p.gbac.write ?? []), ...(p.gbac.read ?? [])])];
    await automations_1.checkReferences.call(this, ctx, { groups: fields.groups }, "gbac.");
    return fields;
}
async function omCreateAutomation(ctx) {
    const fields = await members.call(this, ctx, ctx.params);
    const by = ctx.meta.caller?.accountId ?? "system";
    const now = (0, text_1.nowIso)();
    const automation = {
        name: ctx.params.name,
        description: fields.description ?? "",
        workflow: fields.workflow ?? null,
        componentId: fields.componentId ?? null,
        variables: {},
        groups: fields.groups ?? [...new Set(ctx.meta.caller?.groupIds ?? [])],
        nextRunAt: null,
        repeatInterval: null,
        disabled: false,
        missedRuns: "once",
        catchUpWindow: null,
        overlap: "allow",
        lastRunAt: null,
        lastJobId: null,
        lastError: null,
        created: now,
        created_by: by,
        last_updated: now,
        last_updated_by: by,
    };
    const created = await (0, automations_1.uniqueName)(ctx.params.name, () => this.store.collection(firing_1.AUTOMATIONS).insertOne(automation));
    return (0, envelope_1.itemEnvelope)("Successfully created automation", omView(created));
}
async function omListAutomations(ctx) {
    const { filter, sort, skip, limit } = (0, list_query_1.readListQuery)(ctx.params, (f) => STORED[f] ?? f);
    // Every automation here runs a workflow: componentType matches "workflows" or nothing.
    const where = { ...filter };
    if ("componentType" in where) {
        const wanted = where.componentType;
        delete where.componentType;
        if (wanted !== "workflows")
            where._id = { $in: [] };
    }
    const automations = this.store.collection(firing_1.AUTOMATIONS);
    const [found, total] = await Promise.all([
        automations.find(where, { sort, skip, limit }),
        automations.count(where),
    ]);
    return (0, envelope_1.pageEnvelope)("Successfully retrieved automations", found.map(omView), { skip, limit, total });
}
async function omGetAutomation(ctx) {
    return (0, envelope_1.itemEnvelope)("Successfully retrieved automation", omView(await automations_1.load.call(this, ctx.params.id)));
}
async function omUpdateAutomation(ctx) {
    const { id, ...body } = ctx.params;
    if (Object.values(body).every((v) => v === undefined))
        throw (0, errors_1.invalidField)("name", "Give at least one of name, description, componentType, componentId, gbac", "required");
    const fields = await members.call(this, ctx, ctx.params);
    if (Object.keys(fields).length === 0)
        return omGetAutomation.call(this, ctx);
    return (0, envelope_1.itemEnvelope)("Successfully updated automation", omView(await automations_1.edit.call(this, ctx, id, fields)));
}
async function omDeleteAutomation(ctx) {
    await automations_1.removeAutomation.call(this, ctx.params.id);
    return (0, envelope_1.itemEnvelope)("Successfully deleted automation", null);
}
//# sourceMappingURL=operations-manager.js.map