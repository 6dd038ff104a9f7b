/**
 * The executor's timings and limits, in one place (docs/engine.md explains each). Four come from
 * the broker's config (shared/config.ts reads ENGINE_CLAIM_TTL_MS, ENGINE_SWEEP_INTERVAL_MS,
 * ENGINE_MAX_LOCAL_TASKS, ENGINE_TASK_TIMEOUT_MS), as every other service's settings do, so two
 * brokers in one process can differ; the rest follow from them or are fixed. The failover bound
 * follows from them: a replica killed mid-task last renewed its claims at most claimTtlMs ago, and
 * a live replica's sweeper looks at least every sweepIntervalMs * 1.25.
 */
import type { PlatformConfig } from "../../../shared/config";

export interface RunnerSettings {
  /** How long a claim on a task holds without renewal; a dead owner's tasks run again after it. */
  claimTtlMs: number;
  /** A replica renews the claims of its running tasks this often (well inside the TTL). */
  claimRenewMs: number;
  /** Each replica looks for due work (expired claims, due wake-ups, unclaimed tasks) this often, +/- 25 %. */
  sweepIntervalMs: number;
  /** Tasks (automatic calls, child job starts) one replica runs at once. */
  maxLocalTasks: number;
  /** How long an automatic task's action call may take. */
  taskTimeoutMs: number;
  /**
   * The job writes' performance machinery (PERF_MACHINERY): drafts sharing the remembered job's
   * frozen tasks, frozen texts handed to the store. Off: each write works on a full copy.
   */
  machinery: boolean;
}

export function runnerSettings(engine: PlatformConfig["engine"], machinery = true): RunnerSettings {
  return {
    claimTtlMs: engine.claimTtlMs,
    claimRenewMs: Math.floor(engine.claimTtlMs / 3),
    sweepIntervalMs: engine.sweepIntervalMs,
    maxLocalTasks: engine.maxLocalTasks,
    taskTimeoutMs: engine.taskTimeoutMs,
    machinery,
  };
}

/** Jobs one sweep takes at most (the next sweep takes the rest). */
export const SWEEP_BATCH = 200;
/** Due jobs one replica advances at once during a sweep. */
export const SWEEP_CONCURRENCY = 8;
/**
 * A task left runnable but unclaimed (this replica was at its limit) is looked at again after
 * this long, by any replica; a balanced `engine.dispatch` event usually gets it picked up sooner.
 */
export const DISPATCH_GRACE_MS = 2_000;
/**
 * A claim's expiry is looked at on the next multiple of this after it (transitions.ts summarize):
 * the steps of a job that follow each other within it share one `sweepAt`, so a step rewrites
 * neither that field nor the job's entry in the sweeper's index. It adds at most this to a dead
 * replica's failover (resumeBoundMs).
 */
export const CLAIM_LOOK_GRANULE_MS = 250;
/** A task waiting on a child job checks the child this often (the child also tells it when it ends). */
export const CHILD_CHECK_MS = 10_000;
/** In-engine steps (evaluation, query, merge, forEach) one write may take: stops a revert cycle of operations from spinning. */
export const MAX_INLINE_STEPS = 500;
/** Attempts of one compare-and-set write before giving up (each re-reads the job). */
export const MAX_WRITE_ATTEMPTS = 50;
/** Job documents a replica keeps in memory to skip a read before its next write (a cache: the store decides). */
export const JOB_CACHE_SIZE = 5_000;
/** Error records a job keeps (its most recent): a cycle of failing tasks must not grow a job without bound. */
export const MAX_ERROR_RECORDS = 1_000;
/** Run ids a task keeps in `iterations` (its most recent runs). */
export const MAX_ITERATIONS = 100;
/** On a graceful stop, how long to let running tasks finish before handing their claims back. */
export const STOP_GRACE_MS = 5_000;

/**
 * The documented bound: a job whose replica was killed resumes on another replica within this
 * long of the kill (claim expiry, looked at on its granule + one sweep with jitter + margin for
 * the store round trips).
 */
export function resumeBoundMs(settings: Pick<RunnerSettings, "claimTtlMs" | "sweepIntervalMs">): number {
  return settings.claimTtlMs + CLAIM_LOOK_GRANULE_MS + 2 * settings.sweepIntervalMs + 1_000;
}
