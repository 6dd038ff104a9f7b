/**
 * Starts the platform: `node dist/app/main.js`.
 * Embedded default: every service and the gateway in one process, in-process transporter, embedded
 * store in DATA_DIR. SERVICES=gateway,accounts,... and TRANSPORTER=nats://... give one process per
 * service (docs/deployment.md). SIGTERM/SIGINT drain, then stop the broker (./shutdown.ts).
 */
import { loadConfig } from "../shared/config";
import { createBroker } from "./broker";
import { startTelemetry } from "../shared/telemetry";
import { nodeSchemas } from "./platform-node";
import { stopOnSignals } from "./shutdown";

async function main(): Promise<void> {
  const config = loadConfig();
  // Before the broker: the SDK must be in place when the first span finishes.
  const telemetry = config.telemetry
    ? startTelemetry(`automation-platform:${config.services?.join("+") ?? "all"}`)
    : undefined;
  const broker = createBroker(config);
  for (const schema of nodeSchemas(config)) broker.createService(schema);
  // Once the broker has stopped, the spans not yet exported are sent, and only then does the process exit.
  stopOnSignals(broker, config.shutdownTimeout, telemetry && (() => telemetry.shutdown()));
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
