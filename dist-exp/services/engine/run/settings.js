"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.STOP_GRACE_MS = exports.MAX_ITERATIONS = exports.MAX_ERROR_RECORDS = exports.JOB_CACHE_SIZE = exports.MAX_WRITE_ATTEMPTS = exports.MAX_INLINE_STEPS = exports.CHILD_CHECK_MS = exports.DISPATCH_GRACE_MS = exports.SWEEP_CONCURRENCY = exports.SWEEP_BATCH = void 0;
exports.runnerSettings = runnerSettings;
exports.resumeBoundMs = resumeBoundMs;
function runnerSettings(engine) {
    return {
        claimTtlMs: engine.claimTtlMs,
        claimRenewMs: Math.floor(engine.claimTtlMs / 3),
        sweepIntervalMs: engine.sweepIntervalMs,
        maxLocalTasks: engine.maxLocalTasks,
        taskTimeoutMs: engine.taskTimeoutMs,
        strictDrafts: engine.strictDrafts,
    };
}
/** Jobs one sweep takes at most (the next sweep takes the rest). */
exports.SWEEP_BATCH = 200;
/** Due jobs one replica advances at once during a sweep. */
exports.SWEEP_CONCURRENCY = 8;
/**
 * A task left runnable but unclaimed (this replica was at its limit) is looked at again after
 * this long, by any replica; a balanced `engine.dispatch` event usually gets it picked up sooner.
 */
exports.DISPATCH_GRACE_MS = 2_000;
/** A task waiting on a child job checks the child this often (the child also tells it when it ends). */
exports.CHILD_CHECK_MS = 10_000;
/** In-engine steps (evaluation, query, merge, forEach) one write may take: stops a revert cycle of operations from spinning. */
exports.MAX_INLINE_STEPS = 500;
/** Attempts of one compare-and-set write before giving up (each re-reads the job). */
exports.MAX_WRITE_ATTEMPTS = 50;
/** Job documents a replica keeps in memory to skip a read before its next write (a cache: the store decides). */
exports.JOB_CACHE_SIZE = 5_000;
/** Error records a job keeps (its most recent): a cycle of failing tasks must not grow a job without bound. */
exports.MAX_ERROR_RECORDS = 1_000;
/** Run ids a task keeps in `iterations` (its most recent runs). */
exports.MAX_ITERATIONS = 100;
/** On a graceful stop, how long to let running tasks finish before handing their claims back. */
exports.STOP_GRACE_MS = 5_000;
/**
 * The documented bound: a job whose replica was killed resumes on another replica within this
 * long of the kill (claim expiry + one sweep with jitter + margin for the store round trips).
 */
function resumeBoundMs(settings) {
    return settings.claimTtlMs + 2 * settings.sweepIntervalMs + 1_000;
}
//# sourceMappingURL=settings.js.map