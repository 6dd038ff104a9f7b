/**
 * Events broadcast on the bus, with their payloads. Broadcast (not balanced emit): every replica of
 * every listening service must see them (each gateway replica streams and caches on its own).
 */
import type { FinishState, JobStatus, TaskStatus } from "./engine-documents";

/** accounts -> gateways: these sessions ended (logout, password change); forget them now. */
export const SESSIONS_REVOKED_EVENT = "accounts.sessionsRevoked";
export interface SessionsRevokedEvent {
  sessionIds: string[];
}

/**
 * accounts -> every node: an account or a group changed or went (PATCH, DELETE, forced logout).
 * Gateways drop the cached callers of `accountIds` (every cached caller when `all`: a group change
 * reaches its members and its child groups' members), so the next request is resolved anew.
 */
export const ACCOUNTS_CHANGED_EVENT = "accounts.changed";
export interface AccountsChangedEvent {
  kind: "account" | "group";
  action: "updated" | "deleted" | "loggedOut";
  id: string;
  /** The fields the change set (never a secret). */
  fields?: string[];
  accountIds: string[];
  all?: boolean;
  by?: string;
}

/** profiles -> gateways, accounts: another profile is active. */
export const PROFILE_ACTIVATED_EVENT = "profiles.activated";
export interface ProfileActivatedEvent {
  id: string;
  cookieName?: string;
  uniqueSession?: boolean;
}

/** engine -> gateways (GET /events): a job or one of its tasks changed. */
/**
 * engine -> gateways: one broadcast per job write, with everything that write changed. One event
 * per write, not one per task: broadcasting (and, over NATS, a packet per listening node) cost the
 * engine more than the write's own store update (docs/performance-rounds.md).
 */
export const ENGINE_EVENTS = {
  changes: "engine.jobChanges",
  /**
   * Over a transporter, the `changes` of a few milliseconds of an engine replica as one message
   * (`{changes: JobChangesEvent[]}`) to each node that listens to `changes`; that node hands each
   * to its own listeners as a local `changes` event (shared/job-changes-batch.ts).
   */
  changesBatch: "engine.jobChangesBatch",
} as const;

export interface JobChangesBatchEvent {
  changes: JobChangesEvent[];
}

export interface JobChangedEvent {
  jobId: string;
  name: string;
  workflow: string;
  status: JobStatus;
  groups: string[];
  at: string;
}

export interface TaskChangedEvent extends JobChangedEvent {
  taskId: string;
  taskStatus: TaskStatus;
  finish_state?: FinishState;
}

/** One task whose status or finish state a write changed. */
export type TaskChange = Pick<TaskChangedEvent, "taskId" | "taskStatus" | "finish_state">;

/**
 * What one job write changed: `jobChanged` when the job's status or progress did (a job event on
 * GET /events), and each task whose status or finish state did (a task event each, in task order).
 */
export interface JobChangesEvent extends JobChangedEvent {
  jobChanged: boolean;
  tasks: TaskChange[];
}

/** adapters -> devices: an adapter instance was deleted; its inventory devices go with it. */
export const ADAPTER_DELETED_EVENT = "adapters.deleted";
export interface AdapterDeletedEvent {
  name: string;
  id: string;
}

/**
 * adapters -> adapters: an adapter instance was updated, stopped, started, restarted or deleted.
 * Every replica forgets the target it keeps for it (services/adapters/orchestrator/target-cache.ts),
 * so its next proxy call reads the stored adapter. A hint, not a record: the store stays the truth,
 * and a replica that missed it reads the store again within TARGET_TTL_MS.
 */
export const ADAPTER_CHANGED_EVENT = "adapters.changed";
export interface AdapterChangedEvent {
  name: string;
}

/**
 * engine -> engines: workflows were created, replaced, imported, deleted or released from a group.
 * Every replica forgets the workflows it keeps for job starts (services/engine/workflows.repository.ts
 * toRun): those `names`, or all of them when `names` is absent. A hint, not a record: the store stays
 * the truth, and a replica that missed it reads the store again within WORKFLOW_TTL_MS.
 */
export const WORKFLOWS_CHANGED_EVENT = "engine.workflowsChanged";
export interface WorkflowsChangedEvent {
  names?: string[];
}

/**
 * scheduler -> schedulers: an automation's schedule was written (created, changed, re-enabled).
 * Every replica re-arms its timer if this due time is earlier than the one it waits for
 * (docs/scheduler.md#firing-at-the-due-time). A hint, not a record: the store stays the truth.
 */
export const SCHEDULE_CHANGED_EVENT = "scheduler.scheduleChanged";
export interface ScheduleChangedEvent {
  automationId: string;
  nextRunAt: string | null;
  disabled: boolean;
}
