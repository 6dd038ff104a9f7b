/**
 * While a service restarts (`PUT /applications/:name/restart`, app/platform-node.ts), a node that
 * runs its only replica has it for a moment not at all. A call in that moment would fail with "no
 * such service"; instead it waits for the service to come back (at most RESTART_WAIT_MS), then
 * runs. Only for services a restart was announced for (the `platform.restarting` event, forgotten
 * on `platform.restarted` or after RESTART_WAIT_MS): a service that is simply not deployed still
 * fails at once.
 */
import { Errors, type Middleware, type ServiceBroker } from "moleculer";

export const RESTART_EVENTS = { restarting: "platform.restarting", restarted: "platform.restarted" } as const;
export const RESTART_WAIT_MS = 30_000;

/** Per broker: service name -> until when a restart of it is expected to end (epoch ms). */
const windows = new WeakMap<ServiceBroker, Map<string, number>>();

function windowOf(broker: ServiceBroker): Map<string, number> {
  let map = windows.get(broker);
  if (!map) windows.set(broker, (map = new Map()));
  return map;
}

export function restartAnnounced(broker: ServiceBroker, service: string): void {
  windowOf(broker).set(service, Date.now() + RESTART_WAIT_MS);
}

export function restartEnded(broker: ServiceBroker, service: string): void {
  windowOf(broker).delete(service);
}

function restarting(broker: ServiceBroker, service: string): number {
  const until = windowOf(broker).get(service);
  if (until === undefined) return 0;
  if (until <= Date.now()) {
    windowOf(broker).delete(service);
    return 0;
  }
  return until - Date.now();
}

const missing = (err: unknown) =>
  err instanceof Errors.ServiceNotFoundError || err instanceof Errors.ServiceNotAvailableError;

export function restartWindowMiddleware(): Middleware {
  let broker: ServiceBroker;
  return {
    name: "RestartWindow",
    created(b: ServiceBroker) {
      broker = b;
    },
    call(next: (action: string, params?: unknown, opts?: unknown) => Promise<unknown>) {
      return function waitOutRestart(action: string, params?: unknown, opts?: unknown) {
        const called = next(action, params, opts);
        // Every call passes here: without an announced restart, nothing is added to it.
        if (windowOf(broker).size === 0) return called;
        return called.catch(async (err: unknown) => {
          const service = typeof action === "string" ? action.slice(0, action.lastIndexOf(".")) : "";
          const left = missing(err) && service ? restarting(broker, service) : 0;
          if (left <= 0) throw err;
          broker.logger.info(`'${action}' waits for '${service}' to finish restarting`);
          await broker.waitForServices([service], left).catch(() => {
            throw err;
          });
          return next(action, params, opts);
        });
      };
    },
  } as unknown as Middleware;
}
