/**
 * Listeners of the engine's job changes for tests of their delivery (shared/job-changes-batch.ts):
 * one that takes each change alone, one that takes a turn's changes as a batch itself (as the
 * gateway does), and a job to emit changes of.
 */
import type { Context, ServiceBroker } from "moleculer";
import {
  ENGINE_EVENTS,
  type JobChangesBatchEvent,
  type JobChangesEvent,
} from "../../shared/contracts/events";
import type { RunJob } from "../../services/engine/run/types";

/** A listener service keeping what it heard, in order. */
export function listen(broker: ServiceBroker, name: string): JobChangesEvent[] {
  const heard: JobChangesEvent[] = [];
  broker.createService({
    name,
    events: {
      [ENGINE_EVENTS.changes](ctx: Context<JobChangesEvent>) {
        heard.push(ctx.params);
      },
    },
  });
  return heard;
}

/**
 * A listener service that takes batches itself: what it heard, in order, and the size of each
 * call it took (a batch's length; 1 for a change that came alone to its `changes` handler).
 */
export function listenToBatches(
  broker: ServiceBroker,
  name: string,
): { heard: JobChangesEvent[]; calls: number[] } {
  const heard: JobChangesEvent[] = [];
  const calls: number[] = [];
  broker.createService({
    name,
    events: {
      [ENGINE_EVENTS.changes](ctx: Context<JobChangesEvent>) {
        heard.push(ctx.params);
        calls.push(1);
      },
      [ENGINE_EVENTS.changesBatch](ctx: Context<JobChangesBatchEvent>) {
        heard.push(...ctx.params.changes);
        calls.push(ctx.params.changes.length);
      },
    },
  });
  return { heard, calls };
}

/** A running job `i` (no tasks): a new one's changes are a job event. */
export function job(i: number): RunJob {
  return {
    _id: `job-${i}`,
    name: `job ${i}`,
    workflow: { name: "wf" },
    status: "running",
    groups: [`g${i}`],
    last_updated: new Date(1_000_000 + i).toISOString(),
    metrics: { progress: i },
    tasks: {},
  } as unknown as RunJob;
}

export const ids = (events: JobChangesEvent[]) => events.map((e) => e.jobId);

export async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}
