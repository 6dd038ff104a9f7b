"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.checkReferences = checkReferences;
exports.createAutomation = createAutomation;
exports.listAutomations = listAutomations;
exports.getAutomation = getAutomation;
exports.updateSchedule = updateSchedule;
exports.updateAutomation = updateAutomation;
exports.deleteAutomation = deleteAutomation;
exports.listRuns = listRuns;
exports.tick = tick;
exports.removeAutomation = removeAutomation;
exports.load = load;
exports.edit = edit;
exports.uniqueName = uniqueName;
const contracts_1 = require("../../shared/contracts");
const groups_1 = require("../../shared/groups");
const job_visibility_1 = require("../../shared/job-visibility");
const scheduler_1 = require("../../shared/contracts/scheduler");
const errors_1 = require("../../shared/errors");
const types_1 = require("../../shared/store/types");
const paging_1 = require("../../shared/paging");
const text_1 = require("../../shared/text");
const firing_1 = require("./firing");
const schedule_1 = require("./schedule");
const answer = (automation) => ({ ...automation, preview: (0, schedule_1.preview)(automation) });
/** Stored times are one canonical ISO text, so the due-slot query and the slot ids compare exactly. */
const canonicalTime = (text) => text === undefined ? undefined : text === null ? null : (0, schedule_1.iso)(Date.parse(text));
/**
 * Checks what only a running platform knows: the interval floor, the workflow, the groups. Answers
 * the workflow's `_id` when it checked one (the real product's `componentId`).
 */
async function checkReferences(ctx, fields, prefix) {
    if (fields.repeatInterval) {
        const ms = (0, scheduler_1.intervalMs)(fields.repeatInterval);
        if (ms < this.limits.minIntervalMs)
            throw (0, errors_1.invalidField)(`${prefix}repeatInterval`, `'${fields.repeatInterval}' repeats every ${ms} ms; the shortest interval is ${this.limits.minIntervalMs} ms`, "intervalFloor");
    }
    let componentId;
    if (fields.workflow !== undefined && fields.workflow !== null) {
        try {
            componentId = (await (0, contracts_1.call)(ctx, "engine.getWorkflow", { name: fields.workflow }))._id;
        }
        catch (err) {
            if (!(err instanceof errors_1.NotFoundError) && err.code !== 404)
                throw err;
            throw (0, errors_1.invalidField)(`${prefix}workflow`, `Workflow '${fields.workflow}' does not exist`, "unknownWorkflow");
        }
    }
    if (fields.groups?.length) {
        // Its jobs start into these groups: a caller names only its own (shared/job-visibility.ts).
        (0, job_visibility_1.assertOwnGroups)(ctx.meta.caller, fields.groups, `${prefix}groups`);
        await (0, groups_1.checkGroupsExist)(ctx, fields.groups, `${prefix}groups`);
    }
    return componentId;
}
async function createAutomation(ctx) {
    const p = ctx.params;
    const componentId = await checkReferences.call(this, ctx, p, "");
    const by = ctx.meta.caller?.accountId ?? "system";
    const now = (0, text_1.nowIso)();
    const automation = {
        name: p.name,
        description: p.description ?? "",
        workflow: p.workflow,
        componentId: componentId ?? null,
        variables: p.variables ?? {},
        groups: [...new Set(p.groups ?? ctx.meta.caller?.groupIds ?? [])],
        nextRunAt: canonicalTime(p.nextRunAt) ?? null,
        repeatInterval: p.repeatInterval ?? null,
        disabled: p.disabled ?? false,
        missedRuns: p.missedRuns ?? "once",
        catchUpWindow: p.catchUpWindow ?? null,
        overlap: p.overlap ?? "allow",
        lastRunAt: null,
        lastJobId: null,
        lastError: null,
        created: now,
        created_by: by,
        last_updated: now,
        last_updated_by: by,
    };
    return answer(await uniqueName(p.name, () => this.store.collection(firing_1.AUTOMATIONS).insertOne(automation)));
}
async function listAutomations(ctx) {
    const skip = ctx.params.skip ?? 0;
    const limit = (0, paging_1.pageLimit)(ctx.params.limit);
    const found = await this.store
        .collection(firing_1.AUTOMATIONS)
        .find({}, { sort: { name: 1 }, skip, limit });
    return found.map(answer);
}
async function getAutomation(ctx) {
    return answer(await load.call(this, ctx.params.id));
}
/** Operation 10: only the schedule members change. */
async function updateSchedule(ctx) {
    const { id, options } = ctx.params;
    await checkReferences.call(this, ctx, options, "options.");
    await edit.call(this, ctx, id, options);
    return { status: "OK", response: { message: `Schedule of automation ${id} updated` } };
}
async function updateAutomation(ctx) {
    const { id, changes } = ctx.params;
    const componentId = await checkReferences.call(this, ctx, changes, "changes.");
    return answer(await edit.call(this, ctx, id, componentId ? { ...changes, componentId } : changes));
}
async function deleteAutomation(ctx) {
    // Deleted, it is no longer due: its schedule stops. A claim in flight finds it gone and is skipped.
    await removeAutomation.call(this, ctx.params.id);
    return { status: "OK", message: `Automation ${ctx.params.id} deleted` };
}
async function listRuns(ctx) {
    await load.call(this, ctx.params.id);
    const skip = ctx.params.skip ?? 0;
    const limit = (0, paging_1.pageLimit)(ctx.params.limit);
    const runs = this.store.collection(firing_1.RUNS);
    const filter = { automationId: ctx.params.id };
    const [results, total] = await Promise.all([
        runs.find(filter, { sort: { dueAt: -1 }, skip, limit }),
        runs.count(filter),
    ]);
    return { results, total, skip, limit };
}
/** The timer's pass, and tests' (with an injected clock). One pass at a time per replica. */
async function tick() {
    if (!this.ticking)
        this.ticking = firing_1.onTick.call(this).finally(() => (this.ticking = undefined));
    return this.ticking;
}
/** Deletes an automation and then its triggers (a trigger without its automation starts nothing). */
async function removeAutomation(id) {
    const gone = await this.store.collection(firing_1.AUTOMATIONS).findOneAndDelete({ _id: id });
    if (!gone)
        throw new errors_1.NotFoundError("Automation", id);
    await this.store.collection(firing_1.TRIGGERS).deleteMany({ actionId: id });
    return gone;
}
async function load(id) {
    const automation = await this.store.collection(firing_1.AUTOMATIONS).findOne({ _id: id });
    if (!automation)
        throw new errors_1.NotFoundError("Automation", id);
    return automation;
}
/** One write: the changed members, stamped. A schedule trigger shows whether its schedule is on. */
async function edit(ctx, id, fields) {
    const set = {
        ...fields,
        last_updated: (0, text_1.nowIso)(),
        last_updated_by: ctx.meta.caller?.accountId ?? "system",
    };
    if (fields.nextRunAt !== undefined)
        set.nextRunAt = canonicalTime(fields.nextRunAt);
    const updated = await uniqueName(fields.name, () => this.store.collection(firing_1.AUTOMATIONS).findOneAndUpdate({ _id: id }, { $set: set }));
    if (!updated)
        throw new errors_1.NotFoundError("Automation", id);
    if (fields.disabled !== undefined)
        await this.store
            .collection(firing_1.TRIGGERS)
            .updateMany({ actionId: id, type: "schedule" }, { $set: { enabled: !fields.disabled } });
    return updated;
}
/** Automation names are unique (a unique index): a taken one is 409. */
async function uniqueName(name, write) {
    try {
        return await write();
    }
    catch (err) {
        if (err instanceof types_1.DuplicateKeyError)
            throw new errors_1.ConflictError(`Automation '${name}' already exists`);
        throw err;
    }
}
//# sourceMappingURL=automations.js.map