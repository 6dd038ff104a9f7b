"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.readActions = readActions;
exports.retryLeftNodeMiddleware = retryLeftNodeMiddleware;
/**
 * Calls that land on a node that is leaving (docs/operations-guide.md#rolling-restarts). A stopping
 * node first tells the others its services are gone, but a call already on its way gets refused
 * with ServiceNotAvailableError naming that node: it never ran, so it is sent again, to another
 * replica, whatever the action. A read is also sent again when the node left with the call
 * pending (RequestRejectedError) or never answered (RequestTimeoutError): running a read twice is
 * harmless; a write in that state may have committed, so its caller gets the error.
 *
 * Caller side (`remoteAction`), so it covers the gateway and every service calling another.
 * Bounded: RETRIES attempts, DELAY_MS apart, doubling.
 */
const moleculer_1 = require("moleculer");
const contracts_1 = require("./contracts");
const RETRIES = 3;
const DELAY_MS = 50;
/** The store service's reads (its other actions write). */
const STORE_READS = [
    "store.find",
    "store.findPage",
    "store.findOne",
    "store.count",
    "store.aggregate",
    "store.ping",
];
/** Actions safe to run twice: every GET route's action, and the store's reads. */
function readActions() {
    return new Set([
        ...(0, contracts_1.operations)()
            .filter((op) => op.method === "GET")
            .map((op) => op.action),
        ...STORE_READS,
    ]);
}
function neverRan(err, self) {
    return err instanceof moleculer_1.Errors.ServiceNotAvailableError && !!err.data?.nodeID && err.data.nodeID !== self;
}
function nodeLost(err) {
    return err instanceof moleculer_1.Errors.RequestRejectedError || err instanceof moleculer_1.Errors.RequestTimeoutError;
}
function retryLeftNodeMiddleware(reads = readActions()) {
    let broker;
    return {
        name: "RetryLeftNode",
        created(b) {
            broker = b;
        },
        remoteAction(handler, action) {
            const isRead = reads.has(action.name);
            return function retryOnLeftNode(ctx) {
                return handler(ctx).catch((err) => {
                    const tries = ctx._leftNodeRetries ?? 0;
                    const retry = neverRan(err, broker.nodeID) || (isRead && nodeLost(err));
                    if (!retry || tries >= RETRIES)
                        throw err;
                    broker.logger.info(`'${action.name}' refused by a leaving node; sending it again`);
                    // The copy carries the count, so the call's own pass through this middleware goes on counting.
                    const again = ctx.copy();
                    again._leftNodeRetries = tries + 1;
                    return new Promise((resolve) => setTimeout(resolve, DELAY_MS * 2 ** tries)).then(() => broker.call(action.name, ctx.params, { ctx: again }));
                });
            };
        },
    };
}
//# sourceMappingURL=retry-left-node.js.map