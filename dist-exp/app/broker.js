"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.createBroker = createBroker;
/**
 * Builds a broker from the platform config: the options of app/broker-options.ts, and the config
 * bound to the broker so services read it through `configOf` (shared/runtime.ts).
 */
const moleculer_1 = require("moleculer");
const config_1 = require("../shared/config");
const metrics_1 = require("../shared/observability/metrics");
const process_probes_1 = require("../shared/observability/process-probes");
const runtime_1 = require("../shared/runtime");
const broker_options_1 = require("./broker-options");
function createBroker(config = (0, config_1.loadConfig)()) {
    const broker = new moleculer_1.ServiceBroker((0, broker_options_1.brokerOptions)(config));
    (0, runtime_1.bindConfig)(broker, config);
    (0, metrics_1.registerPlatformMetrics)(broker);
    (0, process_probes_1.attachProcessProbes)(broker);
    return broker;
}
//# sourceMappingURL=broker.js.map