/**
 * `$platform`: a service every broker of the platform runs beside its own services, for what only
 * the node itself can do. `restartService` reloads one of the node's services in place
 * (`PUT /applications/:name/restart`, docs/operations-guide.md#restarting-a-service):
 *   1. the old instance stops: Moleculer's context tracker first waits for the calls it is running
 *      (up to SHUTDOWN_TIMEOUT), then its `stopped` hook runs and it leaves the registry;
 *   2. a fresh instance is built from the same schema and started; the node announces it again.
 * The gateway calls this on one node at a time, so with two replicas or more some node always
 * serves; with one, calls that arrive in the moment between 1 and 2 wait for it (see the retry in
 * shared/retry-left-node.ts).
 *
 * Restarts of one service on one node are serialized: while one runs, another of the same service
 * answers 409 at once (it would otherwise find the old instance still registered, and both would
 * start a fresh one: an extra instance no restart could reach). The guard lives on the node because
 * the instances it protects do; a gateway that restarts node after node stops at the first 409.
 */
import { Errors, type ServiceBroker, type ServiceSchema } from "moleculer";
import type { PlatformConfig } from "../shared/config";
import { NOT_RESTARTABLE, PLATFORM_NODE_SERVICE } from "../shared/contracts/gateway";
import { RESTART_EVENTS, restartAnnounced, restartEnded } from "../shared/restart-window";
import { serviceSchemas } from "./services";

/** What a node runs: the services SERVICES names, and `$platform`. */
export function nodeSchemas(config: PlatformConfig): ServiceSchema[] {
  return [...serviceSchemas(config), platformNodeService(config)];
}

/** Per broker: the services a restart is under way for on this node. */
const restarting = new WeakMap<ServiceBroker, Set<string>>();

function restartsOf(broker: ServiceBroker): Set<string> {
  let names = restarting.get(broker);
  if (!names) restarting.set(broker, (names = new Set()));
  return names;
}

export function platformNodeService(config: PlatformConfig): ServiceSchema {
  return {
    name: PLATFORM_NODE_SERVICE,
    events: {
      [RESTART_EVENTS.restarting](this: { broker: ServiceBroker }, ctx: { params: { name?: unknown } }) {
        if (typeof ctx.params?.name === "string") restartAnnounced(this.broker, ctx.params.name);
      },
      [RESTART_EVENTS.restarted](this: { broker: ServiceBroker }, ctx: { params: { name?: unknown } }) {
        if (typeof ctx.params?.name === "string") restartEnded(this.broker, ctx.params.name);
      },
    },
    actions: {
      restartService: {
        params: { name: { type: "string", min: 1, max: 64 } },
        async handler(this: { broker: ServiceBroker }, ctx: { params: { name: string } }) {
          const { name } = ctx.params;
          if ((NOT_RESTARTABLE as readonly string[]).includes(name))
            throw new Errors.MoleculerClientError(`'${name}' is restarted with its process`, 409, "CONFLICT");
          const under = restartsOf(this.broker);
          // Checked and marked in one turn of the event loop: no second restart slips in between.
          if (under.has(name))
            throw new Errors.MoleculerClientError(
              `A restart of '${name}' is already under way on this node; try again when it ends`,
              409,
              "CONFLICT",
              { name },
            );
          const running = this.broker.getLocalService(name);
          if (!running)
            throw new Errors.MoleculerClientError(`This node runs no '${name}'`, 404, "NOT_FOUND");
          const [schema] = serviceSchemas(config, [name]);
          under.add(name);
          this.broker.logger.info(`restart: '${name}' stopping (calls in flight finish first)`);
          try {
            await this.broker.broadcast(RESTART_EVENTS.restarting, { name });
            await this.broker.destroyService(running);
            this.broker.createService(schema);
            await this.broker.waitForServices([name], 30_000);
          } finally {
            under.delete(name);
            await this.broker.broadcast(RESTART_EVENTS.restarted, { name });
          }
          this.broker.logger.info(`restart: '${name}' running again`);
          return { nodeID: this.broker.nodeID, name };
        },
      },
    },
  };
}
