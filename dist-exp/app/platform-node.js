"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.nodeSchemas = nodeSchemas;
exports.platformNodeService = platformNodeService;
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
 */
const moleculer_1 = require("moleculer");
const gateway_1 = require("../shared/contracts/gateway");
const restart_window_1 = require("../shared/restart-window");
const services_1 = require("./services");
/** What a node runs: the services SERVICES names, and `$platform`. */
function nodeSchemas(config) {
    return [...(0, services_1.serviceSchemas)(config), platformNodeService(config)];
}
function platformNodeService(config) {
    return {
        name: gateway_1.PLATFORM_NODE_SERVICE,
        events: {
            [restart_window_1.RESTART_EVENTS.restarting](ctx) {
                if (typeof ctx.params?.name === "string")
                    (0, restart_window_1.restartAnnounced)(this.broker, ctx.params.name);
            },
            [restart_window_1.RESTART_EVENTS.restarted](ctx) {
                if (typeof ctx.params?.name === "string")
                    (0, restart_window_1.restartEnded)(this.broker, ctx.params.name);
            },
        },
        actions: {
            restartService: {
                params: { name: { type: "string", min: 1, max: 64 } },
                async handler(ctx) {
                    const { name } = ctx.params;
                    if (gateway_1.NOT_RESTARTABLE.includes(name))
                        throw new moleculer_1.Errors.MoleculerClientError(`'${name}' is restarted with its process`, 409, "CONFLICT");
                    const running = this.broker.getLocalService(name);
                    if (!running)
                        throw new moleculer_1.Errors.MoleculerClientError(`This node runs no '${name}'`, 404, "NOT_FOUND");
                    const [schema] = (0, services_1.serviceSchemas)(config, [name]);
                    this.broker.logger.info(`restart: '${name}' stopping (calls in flight finish first)`);
                    await this.broker.broadcast(restart_window_1.RESTART_EVENTS.restarting, { name });
                    try {
                        await this.broker.destroyService(running);
                        this.broker.createService(schema);
                        await this.broker.waitForServices([name], 30_000);
                    }
                    finally {
                        await this.broker.broadcast(restart_window_1.RESTART_EVENTS.restarted, { name });
                    }
                    this.broker.logger.info(`restart: '${name}' running again`);
                    return { nodeID: this.broker.nodeID, name };
                },
            },
        },
    };
}
//# sourceMappingURL=platform-node.js.map