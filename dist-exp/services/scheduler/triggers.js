"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.intervalText = intervalText;
exports.loadTrigger = loadTrigger;
exports.createTrigger = createTrigger;
exports.listTriggers = listTriggers;
exports.getTrigger = getTrigger;
exports.updateTrigger = updateTrigger;
exports.deleteTrigger = deleteTrigger;
/**
 * /operations-manager/triggers: what starts an automation's jobs, as the real product's clients
 * create and read them. A `schedule` trigger is not a second scheduler: it writes its automation's
 * schedule (nextRunAt from firstRunAt, repeatInterval, disabled, missed-run policy), which the one
 * firing loop (firing.ts) fires exactly once per due time, with the one run history; its answers
 * read that schedule back. Uniqueness is in the store, never read-then-write: a name per automation,
 * a route name, and one schedule trigger per automation are unique index keys (docs/scheduler.md#triggers).
 */
const mongodb_1 = require("mongodb");
const envelope_1 = require("../../shared/envelope");
const errors_1 = require("../../shared/errors");
const types_1 = require("../../shared/store/types");
const text_1 = require("../../shared/text");
const automations_1 = require("./automations");
const firing_1 = require("./firing");
const list_query_1 = require("./list-query");
const schedule_1 = require("./schedule");
const UNIT_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 604_800_000 };
const MEMBERS_OF = {
    endpoint: ["verb", "routeName", "schema"],
    manual: ["formId", "formData", "legacyWrapper"],
    schedule: ["firstRunAt", "repeatUnit", "repeatFrequency", "repeatInterval", "processMissedRuns"],
};
/** An interval in ms as text human-interval reads back exactly ("2 days", "90 seconds"). */
function intervalText(ms) {
    const units = [
        ["week", 604_800_000],
        ["day", 86_400_000],
        ["hour", 3_600_000],
        ["minute", 60_000],
    ];
    for (const [unit, size] of units)
        if (ms % size === 0)
            return `${ms / size} ${unit}${ms === size ? "" : "s"}`;
    return `${ms / 1000} seconds`;
}
/** The members of `type` in a body (others are dropped), with a schedule's interval worked out and bounded. */
function typeMembers(type, body, creating) {
    const out = {};
    for (const key of MEMBERS_OF[type])
        if (body[key] !== undefined)
            out[key] = body[key];
    if (type === "endpoint" && creating) {
        if (!body.routeName)
            throw (0, errors_1.invalidField)("routeName", "An endpoint trigger needs a 'routeName'", "required");
        out.verb ??= "POST";
        out.schema ??= { type: "object", properties: {}, additionalProperties: true };
    }
    if (type === "manual" && creating)
        Object.assign(out, { formId: null, formData: {}, legacyWrapper: false }, out);
    if (type !== "schedule")
        return out;
    if (creating && body.firstRunAt === undefined)
        throw (0, errors_1.invalidField)("firstRunAt", "A schedule trigger needs 'firstRunAt' (epoch milliseconds)", "required");
    if (creating)
        out.processMissedRuns ??= "none";
    if (body.repeatInterval === undefined && body.repeatUnit && body.repeatFrequency)
        out.repeatInterval = UNIT_MS[body.repeatUnit] * body.repeatFrequency;
    const every = out.repeatInterval;
    if (typeof every === "number" && every < this.limits.minIntervalMs)
        throw (0, errors_1.invalidField)("repeatInterval", `${every} ms is shorter than the shortest interval, ${this.limits.minIntervalMs} ms`, "intervalFloor");
    return out;
}
/** What a schedule trigger's members make of its automation's schedule. */
function scheduleOf(t) {
    const s = {};
    if (t.firstRunAt !== undefined)
        s.nextRunAt = (0, schedule_1.iso)(t.firstRunAt);
    if (t.repeatInterval !== undefined)
        s.repeatInterval = t.repeatInterval ? intervalText(t.repeatInterval) : null;
    if (t.enabled !== undefined)
        s.disabled = !t.enabled;
    if (t.processMissedRuns)
        s.missedRuns = t.processMissedRuns === "last" ? "once" : "skip";
    return s;
}
/** A unique key broken by a write, as the 409 a user reads. */
function conflict(err, t) {
    if (!(err instanceof types_1.DuplicateKeyError))
        throw err;
    if ("routeKey" in err.key)
        throw new errors_1.ConflictError(`An endpoint trigger already has the route '${t.routeName}'`);
    if ("scheduleKey" in err.key)
        throw new errors_1.ConflictError(`Automation ${t.actionId} already has a schedule trigger (one schedule per automation)`);
    throw new errors_1.ConflictError(`Automation ${t.actionId} already has a trigger named '${t.name}'`);
}
/** The answer: a schedule trigger reads its automation's live schedule. */
function view(doc, automation) {
    const { routeKey: _r, scheduleKey: _s, ...trigger } = doc;
    if (doc.type !== "schedule" || !automation)
        return trigger;
    const ms = (text) => (text ? Date.parse(text) : null);
    return {
        ...trigger,
        enabled: !automation.disabled,
        repeatInterval: (0, schedule_1.everyMs)(automation.repeatInterval),
        processMissedRuns: automation.missedRuns === "skip" ? "none" : "last",
        nextRunAt: ms(automation.nextRunAt),
        lastExecuted: ms(automation.lastRunAt),
    };
}
async function automationsOf(docs) {
    const ids = [...new Set(docs.filter((d) => d.type === "schedule").map((d) => d.actionId))];
    if (ids.length === 0)
        return new Map();
    const found = await this.store.collection(firing_1.AUTOMATIONS).find({ _id: { $in: ids } });
    return new Map(found.map((a) => [a._id, a]));
}
async function loadTrigger(id) {
    const doc = await this.store.collection(firing_1.TRIGGERS).findOne({ _id: id });
    if (!doc)
        throw new errors_1.NotFoundError("Trigger", id);
    return doc;
}
/** null when the automation is gone (404); any other failure stands. */
const unlessGone = (err) => {
    if (err instanceof errors_1.NotFoundError)
        return null;
    throw err;
};
const unknownAutomation = (id) => (0, errors_1.invalidField)("actionId", `Automation ${id} does not exist`, "unknownAutomation");
async function createTrigger(ctx) {
    const p = ctx.params;
    const automations = this.store.collection(firing_1.AUTOMATIONS);
    if (!(await automations.findOne({ _id: p.actionId })))
        throw unknownAutomation(p.actionId);
    const _id = new mongodb_1.ObjectId().toHexString();
    const by = ctx.meta.caller?.accountId ?? "system";
    const now = (0, text_1.nowIso)();
    const doc = {
        _id,
        name: p.name,
        description: p.description ?? "",
        type: p.type,
        enabled: p.enabled ?? true,
        actionType: "automations",
        actionId: p.actionId,
        lastExecuted: null,
        created: now,
        createdBy: by,
        lastUpdated: now,
        lastUpdatedBy: by,
        ...typeMembers.call(this, p.type, p, true),
        routeKey: p.type === "endpoint" ? `route:${p.routeName}` : `id:${_id}`,
        scheduleKey: p.type === "schedule" ? `schedule:${p.actionId}` : `id:${_id}`,
    };
    const triggers = this.store.collection(firing_1.TRIGGERS);
    await triggers.insertOne(doc).catch((err) => conflict(err, doc));
    // The automation may have been deleted meanwhile: then this trigger goes too (and answers 400).
    const automation = doc.type === "schedule"
        ? await automations_1.edit.call(this, ctx, doc.actionId, scheduleOf(doc)).catch(unlessGone)
        : await automations.findOne({ _id: doc.actionId });
    if (!automation) {
        await triggers.deleteOne({ _id });
        throw unknownAutomation(doc.actionId);
    }
    return (0, envelope_1.itemEnvelope)("Successfully created trigger", view(doc, automation));
}
async function listTriggers(ctx) {
    const { filter, sort, skip, limit } = (0, list_query_1.readListQuery)(ctx.params);
    const where = { ...filter };
    if (ctx.params.enabled !== undefined)
        where.enabled = ctx.params.enabled;
    if (ctx.params.actionId !== undefined)
        where.actionId = ctx.params.actionId;
    const triggers = this.store.collection(firing_1.TRIGGERS);
    const [found, total] = await Promise.all([
        triggers.find(where, { sort, skip, limit }),
        triggers.count(where),
    ]);
    const automations = await automationsOf.call(this, found);
    const data = found.map((t) => view(t, automations.get(t.actionId)));
    return (0, envelope_1.pageEnvelope)("Successfully retrieved triggers", data, { skip, limit, total });
}
async function getTrigger(ctx) {
    const doc = await loadTrigger.call(this, ctx.params.id);
    const automations = await automationsOf.call(this, [doc]);
    return (0, envelope_1.itemEnvelope)("Successfully retrieved trigger", view(doc, automations.get(doc.actionId)));
}
async function updateTrigger(ctx) {
    const { id, type, actionId, ...rest } = ctx.params;
    const current = await loadTrigger.call(this, id);
    if (type !== undefined && type !== current.type)
        throw (0, errors_1.invalidField)("type", "A trigger's type cannot change; delete it and create another", "immutable");
    if (actionId !== undefined && actionId !== current.actionId)
        throw (0, errors_1.invalidField)("actionId", "A trigger's automation cannot change; delete it and create another", "immutable");
    const set = {};
    for (const key of ["name", "description", "enabled"])
        if (rest[key] !== undefined)
            set[key] = rest[key];
    Object.assign(set, typeMembers.call(this, current.type, rest, false));
    if (typeof set.routeName === "string")
        set.routeKey = `route:${set.routeName}`;
    if (Object.keys(set).length === 0)
        throw (0, errors_1.invalidField)("name", "Give at least one member of the trigger to change", "required");
    set.lastUpdated = (0, text_1.nowIso)();
    set.lastUpdatedBy = ctx.meta.caller?.accountId ?? "system";
    const updated = await this.store
        .collection(firing_1.TRIGGERS)
        .findOneAndUpdate({ _id: id }, { $set: set })
        .catch((err) => conflict(err, { ...current, ...set }));
    if (!updated)
        throw new errors_1.NotFoundError("Trigger", id);
    let automation = null;
    if (updated.type === "schedule") {
        const schedule = scheduleOf(set);
        automation = Object.keys(schedule).length
            ? await automations_1.edit.call(this, ctx, updated.actionId, schedule).catch(unlessGone)
            : await this.store.collection(firing_1.AUTOMATIONS).findOne({ _id: updated.actionId });
    }
    return (0, envelope_1.itemEnvelope)("Successfully updated trigger", view(updated, automation));
}
async function deleteTrigger(ctx) {
    const gone = await this.store.collection(firing_1.TRIGGERS).findOneAndDelete({ _id: ctx.params.id });
    if (!gone)
        throw new errors_1.NotFoundError("Trigger", ctx.params.id);
    // Its schedule stops: the automation keeps no due time (it may itself be gone: nothing to stop).
    if (gone.type === "schedule")
        await automations_1.edit.call(this, ctx, gone.actionId, { nextRunAt: null, repeatInterval: null }).catch(unlessGone);
    return (0, envelope_1.itemEnvelope)("Successfully deleted trigger", null);
}
//# sourceMappingURL=triggers.js.map