/**
 * The run-state fields the executor adds to model.ts's job documents (additive: every one is
 * optional for readers, and none changes the meaning of a model field).
 */
import type { Caller } from "../../../shared/contracts/resources";
import type { FinishState, JobDoc, JobTask } from "../../../shared/contracts/engine-documents";

export interface Claim {
  /** The replica (`<nodeID>/<start id>`) running the task. */
  owner: string;
  /** Epoch ms; after it, any replica may run the task again. */
  until: number;
  /** This run's id: a completion from an older run of the same task is dropped. */
  run: string;
}

export interface LoopState {
  items: unknown[];
  index: number;
  results: unknown[];
}

export interface RunTask extends JobTask {
  claim?: Claim | null;
  /** A childJob task: the child job's id, chosen when the task is claimed (so a re-run never starts a second child). */
  child?: { jobId: string } | null;
  /** A forEach task in the middle of its loop. */
  loop?: LoopState | null;
  /** A manual task: since when it waits (epoch ms), for `metrics.manual_time`. */
  waitingSince?: number | null;
}

export interface RunJob extends Omit<JobDoc, "tasks"> {
  tasks: Record<string, RunTask | null>;
  /** When a sweeper should next look at this job (epoch ms); null when nothing can become due. */
  sweepAt: number | null;
  /**
   * Each manual task's id, status and start, in the job's task order (the manual-task list reads
   * it, not the tasks); absent in a job without manual tasks (transitions.ts manualTasksOf).
   */
  manualTasks?: ManualTaskSummary[];
  /** A child job: the job and task that wait for it. */
  parent?: { jobId: string; taskId: string } | null;
  /** The automation slot that started this job (scheduler), if any. */
  automation?: { _id: string; name: string; dueAt: string };
  /** While paused: transitions of runs that finished meanwhile, taken on resume (transitions.ts). */
  deferred?: { from: string; state: FinishState }[];
  /** Who started the job: automatic tasks run as this caller. */
  runAs?: Pick<Caller, "accountId" | "username" | "roles" | "groupIds"> | null;
  /** The values kept in `job_outputs` rather than here (run/outputs.ts); absent when none. */
  spilled?: SpillRef[];
}

/** A manual task as the job's summary holds it. */
export interface ManualTaskSummary {
  /** The task's id in `tasks`. */
  k: string;
  status: RunTask["status"];
  /** When it started (ISO text), once it has. */
  start_time?: string;
}

/**
 * A value of the job stored in `job_outputs` instead of the job (run/outputs.ts): its place in the
 * job (left null there), its reference, and how many chunks of JSON text hold it.
 */
export interface SpillRef {
  path: string[];
  ref: string;
  chunks: number;
  /** The length of its JSON text. */
  bytes: number;
}

/** What a child job's parent needs to know of it. */
export interface ChildState {
  status: string;
  variables?: Record<string, unknown>;
  missing?: boolean;
}
