/**
 * The automation actions: create, read, list, update, delete, operation 10's schedule update and the
 * run history. An automation names a workflow that must exist (asked of the engine) and groups that
 * must exist (asked of accounts); its interval must be at least the scheduler's floor.
 */
import type { Context } from "moleculer";
import type { Automation, Caller } from "../../shared/contracts/resources";
import { checkGroupsExist } from "../../shared/groups";
import { assertOwnGroups } from "../../shared/job-visibility";
import { intervalMs, scheduler as contract } from "../../shared/contracts/scheduler";
import { ConflictError, invalidField, NotFoundError } from "../../shared/errors";
import { DuplicateKeyError } from "../../shared/store/types";
import { pageLimit } from "../../shared/paging";
import type { HandlerContext, PlatformMeta, PlatformService } from "../../shared/service";
import { nowIso } from "../../shared/text";
import type { NewAutomation } from "./new-automation";
import { onTick, type TickResult } from "./firing";
import type { AutomationRunsRepository } from "./automation-runs.repository";
import type { AutomationTriggersRepository } from "./automation-triggers.repository";
import type { AutomationsRepository } from "./automations.repository";
import { iso, preview, soonerDueTime } from "./schedule";
import type { DueTimer } from "./timers";
import { SCHEDULE_CHANGED_EVENT, type ScheduleChangedEvent } from "../../shared/contracts/events";
import { mayReadAutomation, readableFilter, writableFilter, writeRefusal } from "./gbac";
import { callAsPlatform } from "../../shared/authorization";

export interface SchedulerLimits {
  tickMs: number;
  timers: boolean;
  claimTtlMs: number;
  minIntervalMs: number;
  graceMs: number;
  batch: number;
}

/** `this` of the scheduler: what scheduler.service.ts adds to a platform service. */
export type SchedulerService = PlatformService<{
  limits: SchedulerLimits;
  /** The scheduler's time (ms); tests replace it to drive schedules without sleeping. */
  clock: () => number;
  /** The safety sweep's interval timer. */
  timer?: NodeJS.Timeout;
  /** The timer armed at the next due time (./timers.ts); none with SCHEDULER_TIMERS=false. */
  dueTimer?: DueTimer;
  /** The live scheduler replicas (node ids, sorted): each arms timers for its share. */
  replicas: string[];
  ticking?: Promise<TickResult>;
  /** The collections (each built in `started`). */
  automations: AutomationsRepository;
  runs: AutomationRunsRepository;
  triggers: AutomationTriggersRepository;
}>;

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

export type Editable = Partial<
  Pick<
    Automation,
    | "name"
    | "description"
    | "workflow"
    | "variables"
    | "groups"
    | "readGroups"
    | "nextRunAt"
    | "repeatInterval"
    | "disabled"
    | "missedRuns"
    | "catchUpWindow"
    | "overlap"
    | "componentId"
  >
>;

/**
 * An automation as reads answer it, with its preview. A stored record that cannot be rendered (a
 * schedule out of every range, written before the ranges were checked or into the store directly)
 * is answered as stored with an empty preview and `renderError` saying why: one record never
 * fails a list, or its own read (docs/scheduler.md#ranges).
 */
function answer(automation: Automation): Automation {
  try {
    return { ...automation, preview: preview(automation) };
  } catch (err) {
    return {
      ...automation,
      preview: [],
      renderError: `This automation's schedule cannot be rendered: ${(err as Error).message}`,
    };
  }
}

/** Stored times are one canonical ISO text, so the due-slot query and the slot ids compare exactly. */
const canonicalTime = (text: string | null | undefined) =>
  text === undefined ? undefined : text === null ? null : iso(Date.parse(text));

/**
 * Checks what only a running platform knows: the interval floor, the workflow, the groups. Answers
 * the workflow's `_id` when it checked one (the real product's `componentId`).
 */
export async function checkReferences(
  this: SchedulerService,
  ctx: Context,
  fields: Editable,
  prefix: string,
): Promise<string | undefined> {
  if (fields.repeatInterval) {
    const ms = intervalMs(fields.repeatInterval);
    if (ms < this.limits.minIntervalMs)
      throw invalidField(
        `${prefix}repeatInterval`,
        `'${fields.repeatInterval}' repeats every ${ms} ms; the shortest interval is ${this.limits.minIntervalMs} ms`,
        "intervalFloor",
      );
  }
  let componentId: string | undefined;
  if (fields.workflow !== undefined && fields.workflow !== null) {
    try {
      componentId = (await callAsPlatform(ctx, "engine.getWorkflow", { name: fields.workflow }))._id;
    } catch (err) {
      if (!(err instanceof NotFoundError) && (err as { code?: number }).code !== 404) throw err;
      throw invalidField(
        `${prefix}workflow`,
        `Workflow '${fields.workflow}' does not exist`,
        "unknownWorkflow",
      );
    }
  }
  const groups = [...(fields.groups ?? []), ...(fields.readGroups ?? [])];
  if (groups.length) {
    // Its jobs start into these groups: a caller names only its own (shared/job-visibility.ts).
    assertOwnGroups((ctx.meta as PlatformMeta).caller, groups, `${prefix}groups`);
    await checkGroupsExist(ctx, groups, `${prefix}groups`);
  }
  return componentId;
}

export async function createAutomation(this: SchedulerService, ctx: Ctx<"createAutomation">) {
  const p = ctx.params;
  const componentId = await checkReferences.call(this, ctx, p, "");
  const by = ctx.meta.caller?.accountId ?? "system";
  const now = nowIso();
  const automation: NewAutomation = {
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
  const created = await uniqueName(p.name, () => this.automations.insert(automation));
  announceSchedule.call(this, created);
  return answer(created);
}

/** The project's list shape, `{results, total, skip, limit}` (docs/compatibility.md#list-shapes), by name. */
export async function listAutomations(this: SchedulerService, ctx: Ctx<"listAutomations">) {
  const skip = ctx.params.skip ?? 0;
  const limit = pageLimit(ctx.params.limit);
  const { found, total } = await this.automations.page(
    {},
    readableFilter(ctx.meta.caller),
    { name: 1 },
    skip,
    limit,
  );
  return { results: found.map(answer), total, skip, limit };
}

export async function getAutomation(this: SchedulerService, ctx: Ctx<"getAutomation">) {
  return answer(await loadReadable.call(this, ctx.params.id, ctx.meta.caller));
}

/** Operation 10: only the schedule members change. */
export async function updateSchedule(this: SchedulerService, ctx: Ctx<"updateSchedule">) {
  const { id, options } = ctx.params;
  await checkReferences.call(this, ctx, options, "options.");
  await edit.call(this, ctx, id, options);
  return { status: "OK", response: { message: `Schedule of automation ${id} updated` } };
}

export async function updateAutomation(this: SchedulerService, ctx: Ctx<"updateAutomation">) {
  const { id, changes } = ctx.params;
  const componentId = await checkReferences.call(this, ctx, changes, "changes.");
  return answer(await edit.call(this, ctx, id, componentId ? { ...changes, componentId } : changes));
}

export async function deleteAutomation(this: SchedulerService, ctx: Ctx<"deleteAutomation">) {
  // Deleted, it is no longer due: its schedule stops. A claim in flight finds it gone and is skipped.
  await removeAutomation.call(this, ctx.params.id, ctx.meta.caller);
  return { status: "OK", message: `Automation ${ctx.params.id} deleted` };
}

export async function listRuns(this: SchedulerService, ctx: Ctx<"listRuns">) {
  await loadReadable.call(this, ctx.params.id, ctx.meta.caller);
  const skip = ctx.params.skip ?? 0;
  const limit = pageLimit(ctx.params.limit);
  const { results, total } = await this.runs.pageOfAutomation(ctx.params.id, skip, limit);
  return { results, total, skip, limit };
}

/** The `scheduler.tick` action: a full pass, as the sweep runs it (tests run it with an injected clock). */
export async function tick(this: SchedulerService) {
  if (!this.ticking) this.ticking = onTick.call(this, this.clock()).finally(() => (this.ticking = undefined));
  return this.ticking;
}

/** The sweep's full pass (expired claims included), after any pass running on this replica. */
export async function sweepPass(this: SchedulerService): Promise<void> {
  while (this.ticking) await this.ticking.catch(() => undefined);
  this.ticking = onTick.call(this, this.clock()).finally(() => (this.ticking = undefined));
  await this.ticking;
}

/**
 * Tells every scheduler replica (this one included) that an automation's schedule was written, so
 * each re-arms its timer if it is now due sooner (docs/scheduler.md#firing-at-the-due-time).
 */
export function announceSchedule(this: SchedulerService, automation: Automation): void {
  if (automation.disabled || !automation.nextRunAt) return;
  const event: ScheduleChangedEvent = {
    automationId: automation._id,
    nextRunAt: automation.nextRunAt,
    disabled: automation.disabled,
  };
  void Promise.resolve(this.broker.broadcast(SCHEDULE_CHANGED_EVENT, event)).catch((err: Error) =>
    this.logger.warn(`${SCHEDULE_CHANGED_EVENT}: ${err.message}`),
  );
}

/**
 * Deletes an automation, if `caller` may write it (./gbac.ts, in the delete's filter), and then its
 * triggers (a trigger without its automation starts nothing).
 */
export async function removeAutomation(
  this: SchedulerService,
  id: string,
  caller: Caller | undefined,
): Promise<Automation> {
  const gone = await this.automations.removeIfAllowed(id, writableFilter(caller));
  if (!gone) throw await refusedWrite.call(this, id, caller);
  await this.triggers.removeOfAutomation(id);
  return gone;
}

export async function load(this: SchedulerService, id: string): Promise<Automation> {
  const automation = await this.automations.byId(id);
  if (!automation) throw new NotFoundError("Automation", id);
  return automation;
}

/** The automation, if `caller` may read it; 404 as if it did not exist otherwise (./gbac.ts). */
export async function loadReadable(
  this: SchedulerService,
  id: string,
  caller: Caller | undefined,
): Promise<Automation> {
  const automation = await load.call(this, id);
  if (!mayReadAutomation(caller, automation)) throw new NotFoundError("Automation", id);
  return automation;
}

/** The automation, if `caller` may write (change, run, delete) it: else 404 or 403 (./gbac.ts). */
export async function loadWritable(
  this: SchedulerService,
  id: string,
  caller: Caller | undefined,
): Promise<Automation> {
  const automation = await this.automations.byId(id);
  const refused = writeRefusal(caller, automation, id);
  if (refused) throw refused;
  return automation!;
}

/** Why a guarded write matched nothing: the automation is gone or hidden (404), or read-only (403). */
async function refusedWrite(this: SchedulerService, id: string, caller: Caller | undefined): Promise<Error> {
  const automation = await this.automations.byId(id);
  return writeRefusal(caller, automation, id) ?? new NotFoundError("Automation", id);
}

/**
 * One write: the changed members, stamped with who changed them (whose rights the schedule then
 * runs with: firing.ts runsAs), if the caller may write the automation (./gbac.ts, in the write's
 * filter). A schedule trigger shows whether its schedule is on.
 */
export async function edit(
  this: SchedulerService,
  ctx: Context,
  id: string,
  fields: Editable,
): Promise<Automation> {
  const caller = (ctx.meta as PlatformMeta).caller;
  const set: Record<string, unknown> = {
    ...fields,
    last_updated: nowIso(),
    last_updated_by: caller?.accountId ?? "system",
  };
  if (fields.nextRunAt !== undefined) set.nextRunAt = canonicalTime(fields.nextRunAt);
  // A new interval without a due time: the next run comes no later than one new interval from now
  // (docs/scheduler.md#due-times). Read, then a compare-and-set on the due time read.
  const newInterval = fields.repeatInterval !== undefined && fields.nextRunAt === undefined;
  let updated: Automation | null = null;
  for (let attempt = 1; !updated; attempt++) {
    // undefined: no compare-and-set on the due time.
    let dueTimeRead: string | null | undefined;
    if (newInterval) {
      const current = await this.automations.byId(id);
      const sooner = current && soonerDueTime(current, fields.repeatInterval!, this.clock());
      if (sooner) {
        set.nextRunAt = sooner;
        dueTimeRead = current.nextRunAt;
      } else delete set.nextRunAt;
    }
    updated = await uniqueName(fields.name, () =>
      this.automations.setIfAllowed(id, writableFilter(caller), set, dueTimeRead),
    );
    if (updated) break;
    const refused = writeRefusal(caller, await this.automations.byId(id), id);
    if (refused || !newInterval) throw refused ?? new NotFoundError("Automation", id);
    // Allowed, but the due time moved under this edit (a pass advanced it): read it again.
    if (attempt >= 5) throw new ConflictError(`Automation ${id} kept changing during this update; try again`);
  }
  if (fields.nextRunAt !== undefined || fields.repeatInterval !== undefined || fields.disabled !== undefined)
    announceSchedule.call(this, updated);
  if (fields.disabled !== undefined) await this.triggers.showScheduleEnabled(id, !fields.disabled);
  return updated;
}

/** Automation names are unique (a unique index): a taken one is 409. */
export async function uniqueName<T>(name: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof DuplicateKeyError) throw new ConflictError(`Automation '${name}' already exists`);
    throw err;
  }
}

/**
 * The automations that run a workflow (by its name, or its `_id` as the real product's
 * `componentId`): the engine asks before it deletes one (docs/engine-queries.md#deleting-a-workflow).
 * Every automation counts, whatever its groups: a delete must not strand one the caller cannot see.
 */
export async function workflowUsers(this: SchedulerService, ctx: Ctx<"workflowUsers">) {
  const { name, id } = ctx.params;
  const { total, first } = await this.automations.runningWorkflow(name, id, ctx.params.limit ?? 10);
  return { total, automations: first.map((a) => ({ _id: a._id, name: a.name })) };
}
