"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Starts the platform: `node dist/app/main.js`.
 * Embedded default: every service and the gateway in one process, in-process transporter, embedded
 * store in DATA_DIR. SERVICES=gateway,accounts,... and TRANSPORTER=nats://... give one process per
 * service (docs/deployment.md). SIGTERM/SIGINT drain, then stop the broker (./shutdown.ts).
 */
const config_1 = require("../shared/config");
const broker_1 = require("./broker");
const telemetry_1 = require("../shared/telemetry");
const platform_node_1 = require("./platform-node");
const shutdown_1 = require("./shutdown");
async function main() {
    const config = (0, config_1.loadConfig)();
    // Before the broker: the SDK must be in place when the first span finishes.
    const telemetry = config.telemetry
        ? (0, telemetry_1.startTelemetry)(`automation-platform:${config.services?.join("+") ?? "all"}`)
        : undefined;
    const broker = (0, broker_1.createBroker)(config);
    // Flush the last spans when the broker stops (SIGTERM included).
    if (telemetry)
        broker.localBus.once("$broker.stopped", () => void telemetry.shutdown());
    for (const schema of (0, platform_node_1.nodeSchemas)(config))
        broker.createService(schema);
    (0, shutdown_1.stopOnSignals)(broker, config.shutdownTimeout);
    await broker.start();
    const where = config.transporter
        ? `over ${config.transporter.replace(/\/\/[^@/]*@/, "//***@")}`
        : "in one process";
    broker.logger.info(`Automation platform up ${where}: ${broker.services.map((s) => s.name).join(", ")}`);
}
main().catch((err) => {
    console.error(`Start failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
});
//# sourceMappingURL=main.js.map