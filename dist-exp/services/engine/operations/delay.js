"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.MAX_DELAY_SECONDS = void 0;
exports.delayMs = delayMs;
/**
 * `delay`: waits, durably. Incoming: `time` in seconds (a number or numeric text, 0 to 30 days).
 * The wake-up time is written into the job (`tasks.<id>.wakeAt`), so the wait survives the replica
 * that started it: any replica's sweeper finishes the task once the time has come.
 */
const types_1 = require("./types");
exports.MAX_DELAY_SECONDS = 30 * 24 * 3600;
/** Milliseconds to wait. */
function delayMs(incoming) {
    const raw = incoming.time;
    const seconds = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : raw;
    if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds < 0 || seconds > exports.MAX_DELAY_SECONDS)
        throw new types_1.OperationError(`'time' must be a number of seconds between 0 and ${exports.MAX_DELAY_SECONDS}`);
    return Math.round(seconds * 1000);
}
//# sourceMappingURL=delay.js.map