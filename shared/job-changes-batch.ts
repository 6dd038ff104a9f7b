/**
 * engine.jobChanges, several to a message: what the engine's replicas broadcast over a transporter
 * in one event-loop turn goes as one `engine.jobChangesBatch` message to each listening node, where
 * each change is handed to the node's own `engine.jobChanges` listeners, in order, as if it had come
 * alone. Why: one message per job write (a broadcast to each listening node) cost each side an
 * envelope, a context and a parse per transition (docs/performance-rounds.md).
 *
 * The listening side is this middleware: the first service of a node that listens to
 * `engine.jobChanges` also listens to the batch, once per node, so a batch reaches each node once.
 * The sending side (services/engine/run/events.ts) sends batches only while every node that listens
 * to `engine.jobChanges` listens to the batch too (a node of an older release does not): otherwise
 * it sends each change alone, as before.
 */
import type { Context, Middleware, ServiceBroker, ServiceSchema } from "moleculer";
import { ENGINE_EVENTS, type JobChangesBatchEvent } from "./contracts/events";

export function jobChangesBatchMiddleware(): Middleware {
  let broker: ServiceBroker;
  let listening = false;
  return {
    name: "JobChangesBatch",
    created(b: ServiceBroker) {
      broker = b;
    },
    serviceCreating(_service: unknown, schema: ServiceSchema) {
      const events = schema.events as Record<string, unknown> | undefined;
      if (listening || !events || !(ENGINE_EVENTS.changes in events)) return;
      if (ENGINE_EVENTS.changesBatch in events) return;
      listening = true;
      events[ENGINE_EVENTS.changesBatch] = {
        handler(ctx: Context<JobChangesBatchEvent>) {
          const changes = Array.isArray(ctx.params?.changes) ? ctx.params.changes : [];
          for (const change of changes) void broker.broadcastLocal(ENGINE_EVENTS.changes, change);
        },
      };
    },
  } as Middleware;
}

/** Whether every node listening to engine.jobChanges takes batches. */
export function batchesTaken(broker: ServiceBroker): boolean {
  const registry = broker.registry as unknown as {
    events: { getAllEndpoints(event: string): { id: string }[] };
  };
  const batch = new Set(registry.events.getAllEndpoints(ENGINE_EVENTS.changesBatch).map((ep) => ep.id));
  for (const ep of registry.events.getAllEndpoints(ENGINE_EVENTS.changes))
    if (!batch.has(ep.id)) return false;
  return true;
}
