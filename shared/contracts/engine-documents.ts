/**
 * The engine's documents (docs/engine.md; the spec's Job document table). They live in the contracts
 * because events (shared/contracts/events.ts) and results carry them across services. Workflows are
 * definitions; a job is a workflow's copy being run, with every task's state inside it, so one
 * document holds a job's whole truth and every transition is one conditional write on it.
 */

/** Every workflow has these two tasks: where a job starts and where it ends. */
export const START = "workflow_start";
export const END = "workflow_end";
/** What a task id may look like (a key of `tasks` and of `transitions`). */
export const TASK_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

export const JOB_STATUSES = ["running", "paused", "complete", "error", "canceled"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const TASK_STATUSES = ["incomplete", "running", "waiting", "complete", "error", "canceled"] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export type TaskType = "automatic" | "manual" | "operation";
export type FinishState = "success" | "failure" | "error";

/** A transition's condition (`state`: the finish state that takes it, or `loop`) and kind. */
export interface TransitionTarget {
  state: "success" | "failure" | "error" | "loop";
  type: "standard" | "revert" | "loop";
}

/** `{from: {to: {state, type}}}`: keyed by task id. */
export type Transitions = Record<string, Record<string, TransitionTarget>>;

export interface RetrySettings {
  autoRetry: boolean;
  /** How many retries at most. */
  limit: number;
  /** Milliseconds between tries. */
  delay: number;
  /** Finish states that trigger a retry (default ["error"]). */
  state: string[];
  /** Retries done so far (job tasks only). */
  count: number;
}

/** A task as defined in a workflow. `workflow_start` and `workflow_end` are tasks too. */
export interface WorkflowTask {
  /** automatic: the action's name within `app` (`app.name` is the Moleculer action); operation: the built-in's name; manual: a label. */
  name: string;
  type: TaskType;
  app?: string;
  summary?: string;
  description?: string;
  displayName?: string;
  location?: string;
  /** incoming: name -> literal or `$var.job.x` / `$var.<taskId>.<name>`; outgoing: name -> null or `$var.job.<name>` to write a job variable. */
  variables?: { incoming?: Record<string, unknown>; outgoing?: Record<string, unknown>; error?: string };
  retrySettings?: Partial<RetrySettings>;
  groups?: string[];
  x?: number;
  y?: number;
}

export interface WorkflowDoc {
  _id: string;
  name: string;
  description: string;
  type: string;
  tasks: Record<string, WorkflowTask>;
  transitions: Transitions;
  inputSchema?: Record<string, unknown>;
  /** Seconds; a completed job that ran longer missed its SLA. */
  sla?: number;
  preAutomationTime?: number;
  /** Job fields stored encrypted, as JSON pointers (docs/platform-rules.md#secrets). */
  decorators?: { type: "encryption"; pointer: string }[];
  groups: string[];
  tags: string[];
  created: string;
  created_by: string;
  last_updated: string;
  last_updated_by: string;
}

/** A task inside a job: the definition plus its run state. */
export interface JobTask extends WorkflowTask {
  status: TaskStatus;
  finish_state?: FinishState;
  start_time?: string;
  end_time?: number;
  /** Outgoing values of its last run. */
  outgoing?: Record<string, unknown>;
  retrySettings?: RetrySettings;
  /** The engine replica that runs it and until when its claim holds (epoch ms). */
  claim?: { owner: string; until: number } | null;
  /** A delay task, or a retry, waits until this time (epoch ms). */
  wakeAt?: number;
  iterations?: string[];
  previous?: { incomplete: string[]; complete: string[]; error: string[] };
}

export interface JobErrorRecord {
  task: string;
  message: {
    code: number;
    message: {
      apiVersion: string;
      method: string;
      error: { code: number; message: string; errors: unknown[] };
    };
  };
  /** Epoch ms. */
  timestamp: number;
}

export interface JobDoc {
  _id: string;
  type: string;
  name: string;
  description: string;
  workflow: { _id: string; name: string };
  status: JobStatus;
  tasks: Record<string, JobTask | null>;
  transitions: Transitions;
  variables: Record<string, unknown>;
  error: JobErrorRecord[];
  errorHandler: null | unknown;
  decorators: { type: string; pointer: string }[];
  groups: string[];
  watchers: string[];
  ancestors: string[];
  sla?: number;
  preAutomationTime?: number;
  /** start_time/end_time epoch ms; manual_time: ms spent in waiting manual tasks; progress 0-100. */
  metrics: {
    start_time: number;
    end_time: number | null;
    progress: number;
    user: string;
    owner: string;
    manual_time: number;
  };
  created: string;
  created_by: string;
  last_updated: string;
  last_updated_by: string;
  lastUpdatedVersion: string;
  canvasVersion: number;
  font_size: number;
  /** Incremented on every write: writers compare-and-set on it, so concurrent writers never lose an update. */
  version: number;
}
