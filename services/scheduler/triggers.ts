/**
 * /operations-manager/triggers: what starts an automation's jobs, as the real product's clients
 * create and read them. A `schedule` trigger is not a second scheduler: it writes its automation's
 * schedule (nextRunAt from firstRunAt, repeatInterval, disabled, missed-run policy), which the one
 * firing loop (firing.ts) fires exactly once per due time, with the one run history; its answers
 * read that schedule back. Uniqueness is in the store, never read-then-write: a name per automation,
 * a route name, and one schedule trigger per automation are unique index keys
 * (./automation-triggers.repository.ts, docs/scheduler.md#triggers).
 */
import { intervalProblem } from "../../shared/contracts/schedule-bounds";
import type { Automation, Caller, Trigger } from "../../shared/contracts/resources";
import { scheduler as contract } from "../../shared/contracts/scheduler";
import { itemEnvelope, pageEnvelope } from "../../shared/envelope";
import { ConflictError, invalidField, NotFoundError } from "../../shared/errors";
import type { HandlerContext } from "../../shared/service";
import { DuplicateKeyError } from "../../shared/store/types";
import { nowIso } from "../../shared/text";
import { edit, type Editable, type SchedulerService } from "./automations";
import { routeKeyOf, type TriggerDoc } from "./automation-triggers.repository";
import { readListQuery } from "./list-query";
import { mayReadAutomation, readableFilter, within, writeRefusal } from "./gbac";
import { everyMs, iso } from "./schedule";

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

type Body = Partial<Omit<Trigger, "_id">>;

const UNIT_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 604_800_000 } as const;
const MEMBERS_OF = {
  endpoint: ["verb", "routeName", "schema"],
  manual: ["formId", "formData", "legacyWrapper"],
  schedule: ["firstRunAt", "repeatUnit", "repeatFrequency", "repeatInterval", "processMissedRuns"],
} as const;

/** An interval in ms as text human-interval reads back exactly ("2 days", "90 seconds"). */
export function intervalText(ms: number): string {
  const units = [
    ["week", 604_800_000],
    ["day", 86_400_000],
    ["hour", 3_600_000],
    ["minute", 60_000],
  ] as const;
  for (const [unit, size] of units)
    if (ms % size === 0) return `${ms / size} ${unit}${ms === size ? "" : "s"}`;
  return `${ms / 1000} seconds`;
}

/** The members of `type` in a body (others are dropped), with a schedule's interval worked out and bounded. */
function typeMembers(this: SchedulerService, type: Trigger["type"], body: Body, creating: boolean): Body {
  const out: Record<string, unknown> = {};
  for (const key of MEMBERS_OF[type]) if (body[key] !== undefined) out[key] = body[key];
  if (type === "endpoint" && creating) {
    if (!body.routeName)
      throw invalidField("routeName", "An endpoint trigger needs a 'routeName'", "required");
    out.verb ??= "POST";
    out.schema ??= { type: "object", properties: {}, additionalProperties: true };
  }
  if (type === "manual" && creating)
    Object.assign(out, { formId: null, formData: {}, legacyWrapper: false }, out);
  if (type !== "schedule") return out as Body;
  if (creating && body.firstRunAt === undefined)
    throw invalidField(
      "firstRunAt",
      "A schedule trigger needs 'firstRunAt' (epoch milliseconds)",
      "required",
    );
  if (creating) out.processMissedRuns ??= "none";
  if (body.repeatInterval === undefined && body.repeatUnit && body.repeatFrequency)
    out.repeatInterval = UNIT_MS[body.repeatUnit as keyof typeof UNIT_MS] * body.repeatFrequency;
  const every = out.repeatInterval as number | null | undefined;
  // repeatUnit x repeatFrequency is bounded here; a repeatInterval given as such, by the contract.
  const tooLong = typeof every === "number" ? intervalProblem(every) : undefined;
  if (tooLong)
    throw invalidField(
      body.repeatInterval === undefined ? "repeatFrequency" : "repeatInterval",
      `${every} ms ${tooLong}`,
      "intervalRange",
    );
  if (typeof every === "number" && every < this.limits.minIntervalMs)
    throw invalidField(
      "repeatInterval",
      `${every} ms is shorter than the shortest interval, ${this.limits.minIntervalMs} ms`,
      "intervalFloor",
    );
  return out as Body;
}

/** What a schedule trigger's members make of its automation's schedule. */
function scheduleOf(t: Body): Editable {
  const s: Editable = {};
  if (t.firstRunAt !== undefined) s.nextRunAt = iso(t.firstRunAt);
  if (t.repeatInterval !== undefined)
    s.repeatInterval = t.repeatInterval ? intervalText(t.repeatInterval) : null;
  if (t.enabled !== undefined) s.disabled = !t.enabled;
  if (t.processMissedRuns) s.missedRuns = t.processMissedRuns === "last" ? "once" : "skip";
  return s;
}

/** A unique key broken by a write, as the 409 a user reads. */
function conflict(err: unknown, t: Body): never {
  if (!(err instanceof DuplicateKeyError)) throw err;
  if ("routeKey" in err.key)
    throw new ConflictError(`An endpoint trigger already has the route '${t.routeName}'`);
  if ("scheduleKey" in err.key)
    throw new ConflictError(
      `Automation ${t.actionId} already has a schedule trigger (one schedule per automation)`,
    );
  throw new ConflictError(`Automation ${t.actionId} already has a trigger named '${t.name}'`);
}

/** The answer: a schedule trigger reads its automation's live schedule. */
function view(doc: TriggerDoc, automation: Automation | null | undefined): Trigger {
  const { routeKey: _r, scheduleKey: _s, ...trigger } = doc;
  if (doc.type !== "schedule" || !automation) return trigger;
  const ms = (text: string | null) => (text ? Date.parse(text) : null);
  return {
    ...trigger,
    enabled: !automation.disabled,
    repeatInterval: everyMs(automation.repeatInterval),
    processMissedRuns: automation.missedRuns === "skip" ? "none" : "last",
    nextRunAt: ms(automation.nextRunAt),
    lastExecuted: ms(automation.lastRunAt),
  };
}

async function automationsOf(this: SchedulerService, docs: TriggerDoc[]) {
  const ids = [...new Set(docs.filter((d) => d.type === "schedule").map((d) => d.actionId))];
  if (ids.length === 0) return new Map<string, Automation>();
  const found = await this.automations.byIds(ids);
  return new Map(found.map((a) => [a._id, a]));
}

export async function loadTrigger(this: SchedulerService, id: string): Promise<TriggerDoc> {
  const doc = await this.triggers.byId(id);
  if (!doc) throw new NotFoundError("Trigger", id);
  return doc;
}

/** null when the automation is gone (404); any other failure stands. */
const unlessGone = (err: unknown) => {
  if (err instanceof NotFoundError) return null;
  throw err;
};

const unknownAutomation = (id: string) =>
  invalidField("actionId", `Automation ${id} does not exist`, "unknownAutomation");

export async function createTrigger(this: SchedulerService, ctx: Ctx<"createTrigger">) {
  const p = ctx.params as Body & { type: Trigger["type"]; actionId: string; name: string };
  // A trigger starts its automation's jobs: only its write groups may add one (./gbac.ts).
  const target = await this.automations.byId(p.actionId);
  if (!target || !mayReadAutomation(ctx.meta.caller, target)) throw unknownAutomation(p.actionId);
  const refused = writeRefusal(ctx.meta.caller, target, p.actionId);
  if (refused) throw refused;
  const _id = this.triggers.newId();
  const by = ctx.meta.caller?.accountId ?? "system";
  const now = nowIso();
  const doc: TriggerDoc = {
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
    routeKey: p.type === "endpoint" ? routeKeyOf(p.routeName!) : `id:${_id}`,
    scheduleKey: p.type === "schedule" ? `schedule:${p.actionId}` : `id:${_id}`,
  };
  await this.triggers.insert(doc).catch((err) => conflict(err, doc));
  // The automation may have been deleted meanwhile: then this trigger goes too (and answers 400).
  const automation =
    doc.type === "schedule"
      ? await edit.call(this, ctx, doc.actionId, scheduleOf(doc)).catch(unlessGone)
      : await this.automations.byId(doc.actionId);
  if (!automation) {
    await this.triggers.remove(_id);
    throw unknownAutomation(doc.actionId);
  }
  return itemEnvelope("Successfully created trigger", view(doc, automation));
}

export async function listTriggers(this: SchedulerService, ctx: Ctx<"listTriggers">) {
  const { filter, sort, skip, limit } = readListQuery(ctx.params);
  const where = { ...filter };
  if (ctx.params.enabled !== undefined) where.enabled = ctx.params.enabled;
  if (ctx.params.actionId !== undefined) where.actionId = ctx.params.actionId;
  const visible = within(where, await readableTriggers.call(this, ctx.meta.caller));
  const { found, total } = await this.triggers.page(visible, sort, skip, limit);
  const automations = await automationsOf.call(this, found);
  const data = found.map((t) => view(t, automations.get(t.actionId)));
  return pageEnvelope("Successfully retrieved triggers", data, { skip, limit, total });
}

/** The triggers a caller may read: those of the automations it may read (undefined: all). */
async function readableTriggers(this: SchedulerService, caller: Caller | undefined) {
  const scope = readableFilter(caller);
  if (!scope) return undefined;
  return { actionId: { $in: await this.automations.idsIn(scope) } };
}

/**
 * The trigger, if `caller` may read its automation (else 404, as if it did not exist) and, with
 * `write`, change, run or delete it (else 403): a trigger follows its automation's gbac.
 */
export async function guardedTrigger(
  this: SchedulerService,
  doc: TriggerDoc,
  caller: Caller | undefined,
  write: boolean,
  hidden: () => Error = () => new NotFoundError("Trigger", doc._id),
): Promise<TriggerDoc> {
  const automation = await this.automations.byId(doc.actionId);
  if (automation && !mayReadAutomation(caller, automation)) throw hidden();
  if (write && automation) {
    const refused = writeRefusal(caller, automation, automation._id);
    if (refused) throw refused;
  }
  return doc;
}

export async function getTrigger(this: SchedulerService, ctx: Ctx<"getTrigger">) {
  const doc = await guardedTrigger.call(
    this,
    await loadTrigger.call(this, ctx.params.id),
    ctx.meta.caller,
    false,
  );
  const automations = await automationsOf.call(this, [doc]);
  return itemEnvelope("Successfully retrieved trigger", view(doc, automations.get(doc.actionId)));
}

export async function updateTrigger(this: SchedulerService, ctx: Ctx<"updateTrigger">) {
  const { id, type, actionId, ...rest } = ctx.params as Body & {
    id: string;
    type?: string;
    actionId?: string;
  };
  const current = await guardedTrigger.call(this, await loadTrigger.call(this, id), ctx.meta.caller, true);
  if (type !== undefined && type !== current.type)
    throw invalidField("type", "A trigger's type cannot change; delete it and create another", "immutable");
  if (actionId !== undefined && actionId !== current.actionId)
    throw invalidField(
      "actionId",
      "A trigger's automation cannot change; delete it and create another",
      "immutable",
    );
  const set: Record<string, unknown> = {};
  for (const key of ["name", "description", "enabled"] as const)
    if (rest[key] !== undefined) set[key] = rest[key];
  Object.assign(set, typeMembers.call(this, current.type, rest, false));
  if (typeof set.routeName === "string") set.routeKey = routeKeyOf(set.routeName);
  if (Object.keys(set).length === 0)
    throw invalidField("name", "Give at least one member of the trigger to change", "required");
  set.lastUpdated = nowIso();
  set.lastUpdatedBy = ctx.meta.caller?.accountId ?? "system";
  const updated = await this.triggers
    .update(id, set)
    .catch((err) => conflict(err, { ...current, ...(set as Body) }));
  if (!updated) throw new NotFoundError("Trigger", id);
  let automation: Automation | null = null;
  if (updated.type === "schedule") {
    const schedule = scheduleOf(set as Body);
    automation = Object.keys(schedule).length
      ? await edit.call(this, ctx, updated.actionId, schedule).catch(unlessGone)
      : await this.automations.byId(updated.actionId);
  }
  return itemEnvelope("Successfully updated trigger", view(updated, automation));
}

export async function deleteTrigger(this: SchedulerService, ctx: Ctx<"deleteTrigger">) {
  await guardedTrigger.call(this, await loadTrigger.call(this, ctx.params.id), ctx.meta.caller, true);
  const gone = await this.triggers.remove(ctx.params.id);
  if (!gone) throw new NotFoundError("Trigger", ctx.params.id);
  // Its schedule stops: the automation keeps no due time (it may itself be gone: nothing to stop).
  if (gone.type === "schedule")
    await edit.call(this, ctx, gone.actionId, { nextRunAt: null, repeatInterval: null }).catch(unlessGone);
  return itemEnvelope("Successfully deleted trigger", null);
}
