/**
 * Bounded job documents (docs/engine.md#where-outputs-live). A job document holds every task's
 * outputs, the job's variables and its error records, and an upstream answer may be megabytes:
 * MongoDB refuses a document past 16 MiB, and a job that can no longer be written is stuck. So a
 * value too big for its job lives in the `job_outputs` collection, and the job keeps a small
 * reference to it instead (`spilled`, one entry per value, the value's own place left null).
 *
 * The values that may leave their job ("slots"): each task's `outgoing` and forEach `loop` state,
 * each job variable, and the job's `error` records as a whole. A slot leaves when its JSON exceeds
 * the job's threshold: SPILL_BYTES (256 KiB), lowered for a job with so many slots that all of them
 * just under it would pass INLINE_BUDGET_BYTES; the `error` records also leave once there are more
 * than ERROR_RECORDS_INLINE of them. So the slots of a job never hold more than INLINE_BUDGET_BYTES
 * inline, whatever its tasks return; the rest of a job is its workflow's definition and bounded
 * bookkeeping. Small values stay inline: a job whose values are all small costs no extra write or read.
 *
 * This module decides what leaves a job and where it is put back; the `job_outputs` collection, its
 * chunks, queries and index are ../job-outputs.repository.ts, and the jobs' repository
 * (../jobs.repository.ts `hydrate`) puts a reader's values back.
 */
import { randomUUID } from "node:crypto";
import type { RunJob, SpillRef } from "./types";

/** A slot whose JSON is larger than this (in UTF-16 code units, about bytes) leaves its job. */
export const SPILL_BYTES = 256 * 1024;
/** What all the slots of one job may hold inline together: the threshold shrinks to keep it. */
export const INLINE_BUDGET_BYTES = 8 * 1024 * 1024;
/** The threshold never goes below this (a workflow would need thousands of tasks to reach it). */
export const MIN_SPILL_BYTES = 1024;
/** Error records a job document holds itself; beyond them, its records leave it (as one value). */
export const ERROR_RECORDS_INLINE = 100;
/**
 * Characters of JSON per chunk document. At most 3 bytes each in UTF-8 (2 once escaped again in a
 * bus message), so a chunk is under 768 KiB: far below 16 MiB, and small enough to cross NATS
 * (nats-server refuses a message over 1 MiB by default) when the store is another process.
 */
export const CHUNK_CHARS = 256 * 1024;

/** A value to store: its place, its reference and its text. */
export interface SpillWrite {
  entry: SpillRef;
  text: string;
}

const JOB_TARGET = /^\$var\.job\.([^.]+)$/;

/**
 * How many slots a job has: two per task, one per variable it has or its tasks may write, one for
 * its error records. Constant over a job's life (its variables only ever come from its start and
 * from its tasks' outgoing targets), so kept by job id.
 */
function slotCount(job: RunJob): number {
  const names = new Set(Object.keys(job.variables ?? {}));
  for (const task of Object.values(job.tasks)) {
    for (const target of Object.values(task?.variables?.outgoing ?? {})) {
      const match = typeof target === "string" ? JOB_TARGET.exec(target) : null;
      if (match) names.add(match[1]);
    }
  }
  return 2 * Object.keys(job.tasks).length + names.size + 1;
}

const thresholds = new Map<string, number>();

/** The size above which a slot of `job` leaves it (see the module comment). */
export function spillThreshold(job: RunJob): number {
  let threshold = thresholds.get(job._id);
  if (threshold === undefined) {
    threshold = Math.max(
      MIN_SPILL_BYTES,
      Math.min(SPILL_BYTES, Math.floor(INLINE_BUDGET_BYTES / slotCount(job))),
    );
    if (thresholds.size >= 10_000) thresholds.clear();
    thresholds.set(job._id, threshold);
  }
  return threshold;
}

/** A new reference for a value of job `jobId` at `path`, with its text. */
export function spillWrite(jobId: string, path: string[], text: string): SpillWrite {
  return {
    entry: {
      path,
      ref: `${jobId}/${randomUUID()}`,
      chunks: Math.max(1, Math.ceil(text.length / CHUNK_CHARS)),
      bytes: text.length,
    },
    text,
  };
}

/** A chunk of a value was not there: the job was read before a write replaced the value. */
export class OutputGoneError extends Error {}
