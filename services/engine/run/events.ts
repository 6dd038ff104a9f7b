/**
 * Job and task changes as one broker event per write (shared/contracts/events.ts), broadcast so
 * every gateway replica can stream them to its own GET /events clients. Each carries the job's
 * groups: a gateway shows an event only to callers who may see that job.
 *
 * The changes of a few milliseconds (CHANGES_WINDOW_MS from the first) leave together as one
 * `engine.jobChangesBatch` event (shared/job-changes-batch.ts): over a transporter one message per
 * listening node, in one process one call per listener, while every listening node takes batches.
 */
import type { ServiceBroker } from "moleculer";
import { ENGINE_EVENTS, type JobChangesEvent, type TaskChange } from "../../../shared/contracts/events";
import { batchesTaken } from "../../../shared/job-changes-batch";
import { count } from "../../../shared/observability/metrics";
import type { RunJob } from "./types";

/**
 * Broadcasts what changed between two versions of a job (`before` null: the job is new), once.
 * `changedTasks`, when the write knows them (jobs.ts Written), are the only tasks that can differ,
 * in task order: the others are not looked at, so a write's events cost the same in a job of ten
 * tasks as in one of a thousand. Without them, every task is compared.
 */
export function emitChanges(
  broker: ServiceBroker,
  before: RunJob | null,
  job: RunJob,
  changedTasks?: readonly string[],
): void {
  const tasks: TaskChange[] = [];
  const look = (taskId: string) => {
    const task = Object.hasOwn(job.tasks, taskId) ? job.tasks[taskId] : undefined;
    if (!task) return;
    const old = before && Object.hasOwn(before.tasks, taskId) ? before.tasks[taskId] : undefined;
    const changed = old
      ? old.status !== task.status || old.finish_state !== task.finish_state
      : task.status !== "incomplete";
    if (!changed) return;
    tasks.push({
      taskId,
      taskStatus: task.status,
      ...(task.finish_state && { finish_state: task.finish_state }),
    });
    count(broker, "tasks", { status: task.status });
  };
  if (before && changedTasks) for (const taskId of changedTasks) look(taskId);
  // for-in, not Object.entries: no pair arrays made.
  else for (const taskId in job.tasks) look(taskId);
  if (!before || before.status !== job.status) count(broker, "jobs", { status: job.status });
  const jobChanged =
    !before || before.status !== job.status || before.metrics.progress !== job.metrics.progress;
  if (!jobChanged && tasks.length === 0) return;
  const event: JobChangesEvent = {
    jobId: job._id,
    name: job.name,
    workflow: job.workflow.name,
    status: job.status,
    groups: job.groups,
    at: job.last_updated,
    jobChanged,
    tasks,
  };
  queue(broker, event);
}

/**
 * How long the first change of a batch waits for others, in ms. The end of the event-loop turn
 * (until the forty-fourth round) made a batch of the changes of one store answer or one task's
 * macrotask: over NATS at 32 jobs in flight, 1.17 messages a job to each listening node (every
 * gateway replica), each a wake-up of that node's process and a pass through nats-server. Over
 * 3 ms, 0.65-0.85: a tenth of the two-replica shape's messages (docs/performance-rounds.md,
 * forty-fourth round; its throughput moved inside this machine's noise). A listener hears a change
 * at most this much later: the events report writes already stored, to GET /events streams;
 * nothing waits for them to go on.
 */
export const CHANGES_WINDOW_MS = 3;

/** A batch leaves at once when it holds this many changes: a burst makes several messages, none huge. */
export const CHANGES_BATCH_MAX = 256;

/** Each broker's changes waiting for their window to end, and its timer. */
const waiting = new Map<ServiceBroker, { changes: JobChangesEvent[]; timer: NodeJS.Timeout }>();

function queue(broker: ServiceBroker, event: JobChangesEvent): void {
  const batch = waiting.get(broker);
  if (batch) {
    if (batch.changes.push(event) >= CHANGES_BATCH_MAX) flushChanges(broker);
    return;
  }
  waiting.set(broker, { changes: [event], timer: setTimeout(() => flushChanges(broker), CHANGES_WINDOW_MS) });
}

/**
 * Sends `broker`'s waiting changes now: at the end of their window, and when the engine stops (its
 * last writes' changes leave before the broker leaves the bus, not after).
 */
export function flushChanges(broker: ServiceBroker): void {
  const batch = waiting.get(broker);
  if (!batch) return;
  waiting.delete(broker);
  clearTimeout(batch.timer);
  send(broker, batch.changes);
}

function send(broker: ServiceBroker, changes: JobChangesEvent[]): void {
  try {
    if (changes.length > 1 && batchesTaken(broker)) {
      void Promise.resolve(broker.broadcast(ENGINE_EVENTS.changesBatch, { changes })).catch(() => undefined);
      return;
    }
    for (const event of changes)
      void Promise.resolve(broker.broadcast(ENGINE_EVENTS.changes, event)).catch(() => undefined);
  } catch {
    // As when each was broadcast at once: a broadcast that fails is not retried (events report
    // writes already stored; they are not their record).
  }
}
