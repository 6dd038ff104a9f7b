"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.bindConfig = bindConfig;
exports.configOf = configOf;
exports.acquireStore = acquireStore;
const config_1 = require("./config");
const store_1 = require("./store");
const store_timing_1 = require("./observability/store-timing");
const configs = new WeakMap();
/** Called by the composition root (app/broker.ts) when it builds a broker from `config`. */
function bindConfig(broker, config) {
    configs.set(broker, config);
}
function configOf(broker) {
    let config = configs.get(broker);
    if (!config) {
        config = (0, config_1.loadConfig)();
        configs.set(broker, config);
    }
    return config;
}
/** Does this broker's process run the `store` service (and so own the embedded store)? */
function hostsStoreService(config) {
    return config.services === undefined || config.services.includes("store");
}
/**
 * A handle on the broker's store, for one holder (a service, from `started` to `stopped`; a test).
 * The holder closes its handle when done. Counting the holders is the store module's one job
 * (shared/store/index.ts): it opens the backend for the first handle and closes it with the last.
 */
async function acquireStore(broker) {
    const config = configOf(broker);
    const store = await (0, store_1.createStore)(config, { broker, hostsStoreService: hostsStoreService(config) });
    return (0, store_timing_1.timedStore)(store, broker);
}
//# sourceMappingURL=runtime.js.map