/**
 * The ranges of schedule times and intervals (docs/scheduler.md#ranges), checked when they are
 * written so no stored schedule can break a read or the firing pass: a due time (an automation's
 * `nextRunAt`, a schedule trigger's `firstRunAt`) lies within 100 years of now, and an interval
 * (`repeatInterval`, `catchUpWindow`) is more than 0 and at most 10 years. Every due time a schedule
 * can reach then stays far inside what a JavaScript Date holds (±8.64e15 ms).
 */

const DAY_MS = 86_400_000;
/** A year as human-interval counts it ("1 year" = 365 days). */
export const YEAR_MS = 365 * DAY_MS;
/** How far from now a due time may lie, either way. */
export const MAX_DUE_DISTANCE_MS = 100 * YEAR_MS;
/** The longest interval: "10 years". */
export const MAX_INTERVAL_MS = 10 * YEAR_MS;

/** Why a due time (epoch ms) is out of range, or undefined. */
export function dueTimeProblem(ms: number, now = Date.now()): string | undefined {
  if (!Number.isFinite(ms)) return "is not a time";
  if (Math.abs(ms - now) > MAX_DUE_DISTANCE_MS) return "must lie within 100 years of now";
  return undefined;
}

/** Why an interval (ms) is out of range, or undefined. */
export function intervalProblem(ms: number): string | undefined {
  if (!(ms > 0)) return "must be a positive interval";
  if (ms > MAX_INTERVAL_MS) return "must be at most 10 years";
  return undefined;
}

export const rangeMessages = {
  dueTimeRange: "The '{field}' field must lie within 100 years of now.",
  intervalRange: "The '{field}' field must be more than 0 and at most 10 years.",
};

/** A fastest-validator `custom` check of an epoch-ms due time (a schedule trigger's `firstRunAt`). */
export function dueTimeCheck(value: unknown, errors: { type: string; actual?: unknown }[]) {
  if (typeof value === "number" && dueTimeProblem(value))
    errors.push({ type: "dueTimeRange", actual: value });
  return value;
}

/** A fastest-validator `custom` check of an interval in ms (a schedule trigger's `repeatInterval`). */
export function intervalCheck(value: unknown, errors: { type: string; actual?: unknown }[]) {
  if (typeof value === "number" && intervalProblem(value))
    errors.push({ type: "intervalRange", actual: value });
  return value;
}
