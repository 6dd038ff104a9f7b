/**
 * engine.jobChanges, several at a time: what an engine replica broadcasts within a few milliseconds
 * (services/engine/run/events.ts CHANGES_WINDOW_MS) goes as one `engine.jobChangesBatch` event, to each listening node over a transporter and to the
 * node's own listeners in one process, where each change reaches every `engine.jobChanges`
 * listener once, in order, as if it had come alone. Why: one event per job write cost a context
 * per listener, a pass of the event middlewares and (over a transporter) an envelope and a parse
 * per transition (docs/performance-rounds.md).
 *
 * A listener takes batches in one of two ways. A service may listen to the batch itself (the
 * gateway and the benches' listeners do: one call per batch); it then gets no change twice. For
 * every other listener of `engine.jobChanges`, this middleware gives the node's first such service
 * the batch's handler, once per node, which hands each change of a batch to those listeners (their
 * event groups) as a local `engine.jobChanges` event. The sending side (services/engine/run/events.ts)
 * sends batches only while every node that listens to `engine.jobChanges` listens to the batch too
 * (a node of an older release does not): otherwise it sends each change alone, as before.
 */
import type { Context, Middleware, ServiceBroker, ServiceSchema } from "moleculer";
import { ENGINE_EVENTS, type JobChangesBatchEvent } from "./contracts/events";

export function jobChangesBatchMiddleware(): Middleware {
  let broker: ServiceBroker;
  let handed = false;
  /** The event groups of this node's listeners that take each change alone. */
  const singles = new Set<string>();
  return {
    name: "JobChangesBatch",
    created(b: ServiceBroker) {
      broker = b;
    },
    serviceCreating(_service: unknown, schema: ServiceSchema) {
      const events = schema.events as Record<string, unknown> | undefined;
      if (!events || !(ENGINE_EVENTS.changes in events)) return;
      if (ENGINE_EVENTS.changesBatch in events) return; // it takes the batches itself
      singles.add(groupOf(events[ENGINE_EVENTS.changes], schema.name));
      if (handed) return;
      handed = true;
      events[ENGINE_EVENTS.changesBatch] = {
        handler(ctx: Context<JobChangesBatchEvent>) {
          const changes = Array.isArray(ctx.params?.changes) ? ctx.params.changes : [];
          const groups = [...singles];
          for (const change of changes) void broker.broadcastLocal(ENGINE_EVENTS.changes, change, { groups });
        },
      };
    },
  } as Middleware;
}

/** A listener's event group: its declared `group`, else its service's name (Moleculer's rule). */
function groupOf(listener: unknown, serviceName: string): string {
  const group = (listener as { group?: unknown } | null)?.group;
  return typeof group === "string" && group !== "" ? group : serviceName;
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
