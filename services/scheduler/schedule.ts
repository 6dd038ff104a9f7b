/**
 * Schedule arithmetic, pure: when an automation is next due, what a missed due time becomes, and
 * the preview a user reads. Due times move forward from the due time, never from when a run
 * actually started, so a schedule does not drift (docs/scheduler.md#due-times).
 */
import { intervalMs } from "../../shared/contracts/scheduler";

export interface ScheduleFields {
  nextRunAt: string | null;
  repeatInterval: string | null;
}

/** The first due time strictly after `now`, stepping from `due` by the interval; null without one. */
export function nextDueAfter(dueMs: number, everyMs: number | null, nowMs: number): number | null {
  if (!everyMs || everyMs <= 0) return null;
  if (dueMs > nowMs) return dueMs + everyMs;
  const steps = Math.floor((nowMs - dueMs) / everyMs) + 1;
  return dueMs + steps * everyMs;
}

/** The interval of an automation in ms, or null when it does not repeat. */
export function everyMs(repeatInterval: string | null | undefined): number | null {
  if (!repeatInterval) return null;
  const ms = intervalMs(repeatInterval);
  return Number.isFinite(ms) && ms > 0 ? ms : null;
}

/** The next `count` due times from nextRunAt (those in the past included: they are still pending). */
export function preview(fields: ScheduleFields, count = 10): string[] {
  if (!fields.nextRunAt) return [];
  const first = Date.parse(fields.nextRunAt);
  const step = everyMs(fields.repeatInterval);
  if (!step) return [new Date(first).toISOString()];
  return Array.from({ length: count }, (_, i) => new Date(first + i * step).toISOString());
}

/**
 * Operation 10's rule for a changed interval sent without a due time: the next run comes no later
 * than one new interval from now, i.e. the earliest of the current due time and now + the new
 * interval (a "1 month" schedule changed to "10 seconds" runs within 10 seconds, not in a month).
 * Answers the new due time, or undefined when nothing changes: the interval is the same, removed
 * (null), or there is no due time (an interval alone does not start a schedule).
 */
export function soonerDueTime(
  current: ScheduleFields,
  repeatInterval: string | null,
  nowMs: number,
): string | undefined {
  const step = everyMs(repeatInterval);
  if (!current.nextRunAt || step === null || step === everyMs(current.repeatInterval)) return undefined;
  const sooner = nowMs + step;
  return sooner < Date.parse(current.nextRunAt) ? iso(sooner) : undefined;
}

export type MissedRuns = "once" | "skip";

/**
 * What to do with a slot due at `dueMs`, seen at `nowMs`: fire it, or record it as skipped. A slot
 * later than `graceMs` is missed; `skip` drops missed slots, `once` fires one unless it is older
 * than the catch-up window.
 */
export function slotDecision(
  dueMs: number,
  nowMs: number,
  policy: { missedRuns: MissedRuns; catchUpMs: number | null; graceMs: number },
): { fire: true } | { fire: false; reason: string } {
  const late = nowMs - dueMs;
  if (late <= policy.graceMs) return { fire: true };
  if (policy.missedRuns === "skip")
    return { fire: false, reason: `missed by ${late} ms; missed-run policy 'skip'` };
  if (policy.catchUpMs !== null && late > policy.catchUpMs)
    return { fire: false, reason: `missed by ${late} ms, beyond the catch-up window` };
  return { fire: true };
}

/** The ISO text of a time, as stored and answered. */
export const iso = (ms: number) => new Date(ms).toISOString();
