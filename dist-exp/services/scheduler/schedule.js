"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.iso = void 0;
exports.nextDueAfter = nextDueAfter;
exports.everyMs = everyMs;
exports.preview = preview;
exports.slotDecision = slotDecision;
/**
 * Schedule arithmetic, pure: when an automation is next due, what a missed due time becomes, and
 * the preview a user reads. Due times move forward from the due time, never from when a run
 * actually started, so a schedule does not drift (docs/scheduler.md#due-times).
 */
const scheduler_1 = require("../../shared/contracts/scheduler");
/** The first due time strictly after `now`, stepping from `due` by the interval; null without one. */
function nextDueAfter(dueMs, everyMs, nowMs) {
    if (!everyMs || everyMs <= 0)
        return null;
    if (dueMs > nowMs)
        return dueMs + everyMs;
    const steps = Math.floor((nowMs - dueMs) / everyMs) + 1;
    return dueMs + steps * everyMs;
}
/** The interval of an automation in ms, or null when it does not repeat. */
function everyMs(repeatInterval) {
    if (!repeatInterval)
        return null;
    const ms = (0, scheduler_1.intervalMs)(repeatInterval);
    return Number.isFinite(ms) && ms > 0 ? ms : null;
}
/** The next `count` due times from nextRunAt (those in the past included: they are still pending). */
function preview(fields, count = 10) {
    if (!fields.nextRunAt)
        return [];
    const first = Date.parse(fields.nextRunAt);
    const step = everyMs(fields.repeatInterval);
    if (!step)
        return [new Date(first).toISOString()];
    return Array.from({ length: count }, (_, i) => new Date(first + i * step).toISOString());
}
/**
 * What to do with a slot due at `dueMs`, seen at `nowMs`: fire it, or record it as skipped. A slot
 * later than `graceMs` is missed; `skip` drops missed slots, `once` fires one unless it is older
 * than the catch-up window.
 */
function slotDecision(dueMs, nowMs, policy) {
    const late = nowMs - dueMs;
    if (late <= policy.graceMs)
        return { fire: true };
    if (policy.missedRuns === "skip")
        return { fire: false, reason: `missed by ${late} ms; missed-run policy 'skip'` };
    if (policy.catchUpMs !== null && late > policy.catchUpMs)
        return { fire: false, reason: `missed by ${late} ms, beyond the catch-up window` };
    return { fire: true };
}
/** The ISO text of a time, as stored and answered. */
const iso = (ms) => new Date(ms).toISOString();
exports.iso = iso;
//# sourceMappingURL=schedule.js.map