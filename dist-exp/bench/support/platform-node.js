"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * app/main.ts plus bus options the config cannot set yet (BENCH_DISABLE_BALANCER), so the
 * tuning study can try them on the real services before app/broker-options.ts adopts them.
 * Everything else comes from the same env the runner reads.
 */
const moleculer_1 = require("moleculer");
const broker_options_1 = require("../../app/broker-options");
const config_1 = require("../../shared/config");
const services_1 = require("../../app/services");
async function main() {
    const config = (0, config_1.loadConfig)();
    const flag = process.env.BENCH_DISABLE_BALANCER;
    const broker = new moleculer_1.ServiceBroker({
        ...(0, broker_options_1.brokerOptions)(config),
        ...(flag ? { disableBalancer: flag === "true" } : {}),
    });
    for (const schema of (0, services_1.serviceSchemas)(config))
        broker.createService(schema);
    await broker.start();
}
main().catch((err) => {
    console.error(`platform-node failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
});
//# sourceMappingURL=platform-node.js.map