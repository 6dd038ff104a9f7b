/**
 * How a task's run ended (an Outcome) and what a failure leaves in the job: the error record the
 * spec's Job document carries, kept to the most recent MAX_ERROR_RECORDS.
 */
import type { FinishState, JobErrorRecord } from "../../../shared/contracts/engine-documents";
import { API_VERSION } from "../../../shared/version";
import { OperationError } from "../operations";
import { MAX_ERROR_RECORDS } from "./settings";
import type { RunJob, RunTask } from "./types";
import { writablePart } from "./jobs";

/** Why a task failed, as the spec's error record carries it. */
export interface TaskFailure {
  code: number;
  message: string;
  errors: unknown[];
}

export interface Outcome {
  state: FinishState;
  outgoing?: Record<string, unknown>;
  error?: TaskFailure;
}

export function errorRecord(
  taskId: string,
  method: string,
  failure: TaskFailure,
  now: number,
): JobErrorRecord {
  return {
    task: taskId,
    message: {
      code: failure.code,
      message: {
        apiVersion: API_VERSION,
        method,
        error: { code: failure.code, message: failure.message, errors: failure.errors },
      },
    },
    timestamp: now,
  };
}

export function pushError(job: RunJob, record: JobErrorRecord): void {
  // The draft's own list (./jobs.ts writablePart): the remembered job's is shared, frozen.
  const errors = writablePart(job, "error");
  errors.push(record);
  if (errors.length > MAX_ERROR_RECORDS) errors.splice(0, errors.length - MAX_ERROR_RECORDS);
}

/** What a task's runs are called in error records: the action for automatic tasks, else the task's name. */
export function methodOf(task: RunTask): string {
  return task.type === "automatic" && task.app ? `${task.app}.${task.name}` : task.name;
}

/** An Outcome for a thrown error: finish state `error` with its code, message and details. */
export function failed(err: unknown): Outcome {
  const e = err as { code?: unknown; message?: unknown; data?: unknown; errors?: unknown };
  const code = typeof e?.code === "number" && e.code >= 100 && e.code < 600 ? e.code : 500;
  const details = err instanceof OperationError ? err.errors : e?.data;
  return {
    state: "error",
    outgoing: {},
    error: {
      code,
      message: typeof e?.message === "string" && e.message !== "" ? e.message : String(err),
      errors: Array.isArray(details) ? details : details == null ? [] : [details],
    },
  };
}
