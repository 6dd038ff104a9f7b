/**
 * Firing: every due slot of every automation starts exactly one job, across any number of
 * scheduler replicas (docs/scheduler.md#exactly-once).
 *
 * A slot is (automation, due time). Its run record, `_id` `<automation id>@<due time>`, is inserted
 * once: the insert is the claim, and a replica that loses it leaves the slot alone. The claim holds a
 * lease and the id of the job to start, chosen before the start: a replica that dies after claiming
 * leaves a claim whose lease runs out, and whichever replica takes it over starts the job under the
 * same id, which the engine starts at most once. Only then does the automation's `nextRunAt` move on,
 * by compare-and-set on the due time it had, so no slot is advanced twice or skipped.
 */
import { count, observe } from "../../shared/observability/metrics";
import type { Automation, AutomationRun } from "../../shared/contracts/resources";
import { intervalMs } from "../../shared/contracts/scheduler";
import { dueTimeProblem } from "../../shared/contracts/schedule-bounds";
import { iso, nextDueAfter, everyMs, slotDecision } from "./schedule";
import type { SchedulerService } from "./automations";
import { asCaller, callAsPlatform, PLATFORM_META } from "../../shared/authorization";
import type { CallingOptions } from "moleculer";
import type { DueWindow } from "./timers";
import { slotId } from "./automation-runs.repository";
import type { RunFields } from "./automations.repository";

export interface TickResult {
  started: number;
  skipped: number;
  failed: number;
}

type Outcome = keyof TickResult | "none";

/**
 * Every automation due at `now`, a page at a time, oldest due time first (ties by `_id`): the pass
 * reaches each one however many are due, and one that stays due cannot hide those behind it.
 */
async function* duePages(this: SchedulerService, now: number): AsyncGenerator<Automation[]> {
  let after: Automation | undefined;
  for (;;) {
    const page = await this.automations.duePage(now, after, this.limits.batch);
    if (page.length > 0) yield page;
    if (page.length < this.limits.batch) return;
    after = page[page.length - 1];
  }
}

/**
 * One pass at `now`: claimed slots whose lease ran out first (when `orphans`: the sweep, and a
 * timer armed for a lease's end), then every automation that is due.
 */
export async function onTick(this: SchedulerService, now: number, orphans = true): Promise<TickResult> {
  const result: TickResult = { started: 0, skipped: 0, failed: 0 };
  const tally = (o: Outcome) => {
    if (o !== "none") result[o]++;
  };
  if (orphans) (await resumeOrphans.call(this, now)).forEach(tally);
  for await (const due of duePages.call(this, now)) (await firePage.call(this, due, now)).forEach(tally);
  return result;
}

/** Claimed slots whose lease ran out before `now`, taken over (a page of them). */
async function resumeOrphans(this: SchedulerService, now: number): Promise<Outcome[]> {
  const expired = await this.runs.expiredClaims(now, this.limits.batch);
  const outcomes: Outcome[] = [];
  for (const run of expired) outcomes.push(await resumeClaim.call(this, run, now));
  return outcomes;
}

/** Fires each automation of a due page; one automation's failure never stops the others. */
async function firePage(this: SchedulerService, due: Automation[], now: number): Promise<Outcome[]> {
  // Replicas see the same due page: each starts at its own random place in it, so they mostly
  // claim different slots instead of racing for the same ones in the same order.
  const start = Math.floor(Math.random() * due.length);
  const mine = [...due.slice(start), ...due.slice(0, start)];
  return Promise.all(
    mine.map((automation) =>
      fireSlot.call(this, automation, now).catch((err: Error) => {
        this.logger.warn(`automation ${automation._id}: ${err.message}`);
        return "failed" as const;
      }),
    ),
  );
}

/**
 * A timer's firing (./timers.ts): the automations `ids` (at most a batch) that are still due at
 * `now`, read fresh from the store by `_id` (no scan of the collection), fired as a pass fires them;
 * with `orphans`, expired claims are taken over first.
 */
export async function fireDue(this: SchedulerService, ids: string[], now: number, orphans: boolean) {
  const result: TickResult = { started: 0, skipped: 0, failed: 0 };
  const tally = (o: Outcome) => {
    if (o !== "none") result[o]++;
  };
  if (orphans) (await resumeOrphans.call(this, now)).forEach(tally);
  if (ids.length === 0) return result;
  const due = await this.automations.dueAmong(ids.slice(0, this.limits.batch), now);
  (await firePage.call(this, due, now)).forEach(tally);
  return result;
}

/**
 * An automation whose schedule cannot go on (a due time out of range, a next due time past what a
 * date holds: a record stored before the ranges were checked, or written around them) is disabled
 * with the reason in `lastError`, once: the write is a compare-and-set on the due time it had while
 * enabled, so only one replica's pass makes it, and only that one logs it. Its schedule trigger
 * shows it off.
 */
async function haltSchedule(this: SchedulerService, automation: Automation, reason: string): Promise<void> {
  const lastError = `The schedule was disabled: ${reason}`;
  if (!(await this.automations.halt(automation._id, automation.nextRunAt, lastError))) return;
  await this.triggers.showScheduleEnabled(automation._id, false);
  this.logger.warn(`automation ${automation._id}: schedule disabled: ${reason}`);
}

/** The slot of `automation` due at its nextRunAt: claim it, then fire or skip it, then advance. */
async function fireSlot(this: SchedulerService, automation: Automation, now: number): Promise<Outcome> {
  const dueAt = automation.nextRunAt!;
  const problem = dueTimeProblem(Date.parse(dueAt), now);
  if (problem) {
    await haltSchedule.call(this, automation, `its due time '${dueAt}' ${problem}`);
    return "failed";
  }
  const decision = slotDecision(Date.parse(dueAt), now, {
    missedRuns: automation.missedRuns ?? "once",
    catchUpMs: automation.catchUpWindow ? intervalMs(automation.catchUpWindow) : null,
    graceMs: this.limits.graceMs,
  });
  const claim: AutomationRun = {
    _id: slotId(automation._id, dueAt),
    automationId: automation._id,
    dueAt,
    state: decision.fire ? "claimed" : "skipped",
    jobId: decision.fire ? this.runs.newJobId() : null,
    startedAt: null,
    reason: decision.fire ? null : decision.reason,
    claimedBy: this.broker.nodeID,
    leaseUntil: now + this.limits.claimTtlMs,
  };
  if (!(await this.runs.claim(claim))) {
    // Someone else has this slot. A fresh slot is theirs to finish; an older one may be finished
    // by a claimer that did not live to advance the automation: advancing here is the same
    // compare-and-set they would have made.
    if (now - Date.parse(dueAt) < this.limits.claimTtlMs) return "none";
    const existing = await this.runs.byId(claim._id);
    if (existing && existing.state !== "claimed") await advance.call(this, automation, dueAt, now, existing);
    return "none";
  }
  if (!decision.fire) {
    await advance.call(this, automation, dueAt, now, claim);
    count(this.broker, "schedulerSkips", { reason: "missed" });
    return "skipped";
  }
  return startClaimed.call(this, automation, claim, now);
}

/** A claim whose owner stopped before finishing it: take it over (compare-and-set on the lease). */
async function resumeClaim(this: SchedulerService, run: AutomationRun, now: number): Promise<Outcome> {
  const taken = await this.runs.takeOver(run, this.broker.nodeID, now + this.limits.claimTtlMs);
  if (!taken) return "none";
  const automation = await this.automations.byId(run.automationId);
  if (!automation) {
    await finishRun.call(this, taken, { state: "skipped", reason: "the automation was deleted" });
    count(this.broker, "schedulerSkips", { reason: "deleted" });
    return "skipped";
  }
  return startClaimed.call(this, automation, taken, now);
}

/**
 * Whose rights a scheduled job runs with: the account that last changed the automation (or its
 * schedule), resolved to its current rights when the job starts and at each task. Whoever edits an
 * automation takes its runs on, so no one borrows a more privileged creator's rights by editing it.
 * An automation only the platform has written runs as the platform (docs/security.md#authorization).
 */
export function runsAs(automation: Automation): CallingOptions {
  const owner = automation.last_updated_by || automation.created_by;
  if (!owner || owner === "system") return { meta: { ...PLATFORM_META } };
  return asCaller({ accountId: owner, username: "", roles: [], groupIds: [] });
}

/** Starts the claimed slot's job (idempotent on its job id), records the outcome, advances. */
async function startClaimed(
  this: SchedulerService,
  automation: Automation,
  claim: AutomationRun,
  now: number,
): Promise<Outcome> {
  if (automation.overlap === "skip" && (await previousJobRunning.call(this, automation, claim.jobId!))) {
    await settle.call(this, automation, claim, now, {
      state: "skipped",
      reason: `the previous job ${automation.lastJobId} is still running; overlap policy 'skip'`,
    });
    count(this.broker, "schedulerSkips", { reason: "overlap" });
    return "skipped";
  }
  let outcome: Outcome;
  let change: Partial<AutomationRun>;
  try {
    // An automation made through /operations-manager may have no workflow yet: a failed run says so.
    if (!automation.workflow) throw new Error("the automation has no workflow to run (set its componentId)");
    const job = await this.broker.call(
      "engine.startScheduledJob",
      {
        workflow: automation.workflow,
        jobId: claim.jobId!,
        automation: { _id: automation._id, name: automation.name, dueAt: claim.dueAt },
        options: {
          description: automation.description || `Automation '${automation.name}' due ${claim.dueAt}`,
          variables: automation.variables ?? {},
          ...(automation.groups?.length ? { groups: automation.groups } : {}),
        },
      },
      runsAs(automation),
    );
    change = { state: "started", jobId: (job as { _id: string })._id, startedAt: iso(this.clock()) };
    outcome = "started";
    observe(this.broker, "schedulerLag", this.clock() - Date.parse(claim.dueAt));
  } catch (err) {
    change = { state: "failed", reason: (err as Error).message };
    outcome = "failed";
  }
  count(this.broker, "schedulerFires", { outcome });
  await settle.call(this, automation, claim, now, change);
  return outcome;
}

/**
 * Records the claim's outcome and advances the automation, both at once: the two writes are on
 * different documents and neither needs the other's answer (the run's members are known), so they
 * leave in one turn of the loop (one write to the bus) and the slot is done one round trip sooner.
 * Either may land first: a replica that dies between them leaves a claim whose lease runs out (its
 * taker starts the same job id, which the engine starts once, and the advance's compare-and-set
 * then misses) or an advanced automation whose run says `claimed` until then, as before.
 */
async function settle(
  this: SchedulerService,
  automation: Automation,
  claim: AutomationRun,
  now: number,
  change: Partial<AutomationRun>,
): Promise<void> {
  await Promise.all([
    this.runs.finish(claim, change),
    advance.call(this, automation, claim.dueAt, now, { ...claim, ...change }),
  ]);
}

async function previousJobRunning(this: SchedulerService, automation: Automation, jobId: string) {
  if (!automation.lastJobId || automation.lastJobId === jobId) return false;
  try {
    const { data: job } = await callAsPlatform(this.broker, "engine.getJob", { id: automation.lastJobId });
    return job.status === "running" || job.status === "paused";
  } catch {
    return false; // a job that is gone is not running
  }
}

async function finishRun(
  this: SchedulerService,
  run: AutomationRun,
  change: Partial<AutomationRun>,
): Promise<AutomationRun> {
  const done = await this.runs.finish(run, change);
  return done ?? { ...run, ...change };
}

/**
 * Moves the automation past `dueAt`: nextRunAt becomes the first due time after now, stepping from
 * the due time (no drift), or null. Compare-and-set on nextRunAt: a user's edit or another replica's
 * advance in between wins, and this one changes nothing.
 */
async function advance(
  this: SchedulerService,
  automation: Automation,
  dueAt: string,
  now: number,
  run: AutomationRun,
): Promise<void> {
  const next = nextDueAfter(Date.parse(dueAt), everyMs(automation.repeatInterval), now);
  if (next !== null && dueTimeProblem(next, now)) {
    // The slot's run is recorded; then the schedule stops (its reason the last word in lastError)
    // instead of staying due forever.
    await recordRun.call(this, automation, run);
    return haltSchedule.call(
      this,
      { ...automation, nextRunAt: dueAt },
      `its next due time after ${dueAt} every '${automation.repeatInterval}' is out of range`,
    );
  }
  // One write moves it on and records the run; when the compare-and-set misses (an edit or another
  // replica's advance came first), the run is recorded on its own.
  const moved = await this.automations.advance(
    automation._id,
    dueAt,
    next === null ? null : iso(next),
    runFields(run),
  );
  if (!moved) return recordRun.call(this, automation, run);
  // This replica's timer knows the next due time without reading it back.
  if (next !== null && !automation.disabled) this.dueTimer?.hint(next, automation._id);
}

/** What a run leaves on its automation. */
function runFields(run: AutomationRun): RunFields {
  if (run.state === "started") return { lastRunAt: run.startedAt, lastJobId: run.jobId, lastError: null };
  if (run.state === "failed") return { lastError: run.reason };
  return {};
}

/** What the run did, on the automation, whatever became of nextRunAt meanwhile. */
async function recordRun(this: SchedulerService, automation: Automation, run: AutomationRun): Promise<void> {
  const fields = runFields(run);
  if (Object.keys(fields).length > 0) await this.automations.recordRun(automation._id, fields);
}

/**
 * The earliest due times after `after` (ms) that a timer waits for (./timers.ts), and the earliest
 * lease of a claimed slot: only `nextRunAt` is read, on the (disabled, nextRunAt) index.
 */
export async function dueWindow(this: SchedulerService, after: number, limit: number): Promise<DueWindow> {
  const [due, leaseUntil] = await Promise.all([
    this.automations.dueTimesAfter(after, limit),
    this.runs.earliestLease(),
  ]);
  return {
    entries: due
      .map((a) => ({ at: Date.parse(a.nextRunAt!), id: a._id }))
      .filter((e) => Number.isFinite(e.at)),
    full: due.length === limit,
    leaseUntil,
  };
}
