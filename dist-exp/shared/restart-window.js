"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.RESTART_WAIT_MS = exports.RESTART_EVENTS = void 0;
exports.restartAnnounced = restartAnnounced;
exports.restartEnded = restartEnded;
exports.restartWindowMiddleware = restartWindowMiddleware;
/**
 * While a service restarts (`PUT /applications/:name/restart`, app/platform-node.ts), a node that
 * runs its only replica has it for a moment not at all. A call in that moment would fail with "no
 * such service"; instead it waits for the service to come back (at most RESTART_WAIT_MS), then
 * runs. Only for services a restart was announced for (the `platform.restarting` event, forgotten
 * on `platform.restarted` or after RESTART_WAIT_MS): a service that is simply not deployed still
 * fails at once.
 */
const moleculer_1 = require("moleculer");
exports.RESTART_EVENTS = { restarting: "platform.restarting", restarted: "platform.restarted" };
exports.RESTART_WAIT_MS = 30_000;
/** Per broker: service name -> until when a restart of it is expected to end (epoch ms). */
const windows = new WeakMap();
function windowOf(broker) {
    let map = windows.get(broker);
    if (!map)
        windows.set(broker, (map = new Map()));
    return map;
}
function restartAnnounced(broker, service) {
    windowOf(broker).set(service, Date.now() + exports.RESTART_WAIT_MS);
}
function restartEnded(broker, service) {
    windowOf(broker).delete(service);
}
function restarting(broker, service) {
    const until = windowOf(broker).get(service);
    if (until === undefined)
        return 0;
    if (until <= Date.now()) {
        windowOf(broker).delete(service);
        return 0;
    }
    return until - Date.now();
}
const missing = (err) => err instanceof moleculer_1.Errors.ServiceNotFoundError || err instanceof moleculer_1.Errors.ServiceNotAvailableError;
function restartWindowMiddleware() {
    let broker;
    return {
        name: "RestartWindow",
        created(b) {
            broker = b;
        },
        call(next) {
            return function waitOutRestart(action, params, opts) {
                const called = next(action, params, opts);
                // Every call passes here: without an announced restart, nothing is added to it.
                if (windowOf(broker).size === 0)
                    return called;
                return called.catch(async (err) => {
                    const service = typeof action === "string" ? action.slice(0, action.lastIndexOf(".")) : "";
                    const left = missing(err) && service ? restarting(broker, service) : 0;
                    if (left <= 0)
                        throw err;
                    broker.logger.info(`'${action}' waits for '${service}' to finish restarting`);
                    await broker.waitForServices([service], left).catch(() => {
                        throw err;
                    });
                    return next(action, params, opts);
                });
            };
        },
    };
}
//# sourceMappingURL=restart-window.js.map