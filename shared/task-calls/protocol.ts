/**
 * Task calls several to a request (docs/architecture.md#task-calls-over-the-bus): what the engine
 * sends a node and what the node answers. Why: over NATS each task call and its answer were a packet
 * each way, and Moleculer's handling of a packet (a context and the middleware chain on both nodes,
 * the envelope with the caller's meta) costs tens of µs: the calls one engine replica makes to one
 * node in one turn of its event loop now travel as one request, each call inside it kept whole.
 */

/** The service every platform node on a bus runs (app/broker.ts), and its one action. */
export const TASK_CALLS_SERVICE = "$taskcalls";
export const TASK_CALLS_ACTION = `${TASK_CALLS_SERVICE}.batch`;

/** The most calls in one batch (the serving node refuses more). */
export const MAX_TASK_CALLS = 64;

/** One call as the engine would have made it alone: its action, params, meta and timeout. */
export interface TaskCall {
  action: string;
  params: Record<string, unknown>;
  meta: Record<string, unknown>;
  timeout: number;
}

export interface TaskCallBatch {
  calls: TaskCall[];
}
