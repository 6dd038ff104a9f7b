/**
 * app/main.ts plus what only a bench adds to a platform process:
 *   BENCH_DISABLE_BALANCER  bus options the config cannot set yet, so the tuning study can try them
 *                           on the real services before app/broker-options.ts adopts them;
 *   BENCH_LOCAL_TASK=1      the engine workload's no-op task service (bench/engine/workload.ts) on
 *                           this broker beside the platform's services, so an engine replica here
 *                           calls it in its own process, as a BullMQ or graphile-worker worker runs
 *                           its processor (docs/performance.md, "Peers").
 * Everything else comes from the same env the runner reads.
 */
import { ServiceBroker } from "moleculer";
import { brokerOptions } from "../../app/broker-options";
import { loadConfig } from "../../shared/config";
import { createBroker } from "../../app/broker";
import { nodeSchemas } from "../../app/platform-node";
import { stopOnSignals } from "../../app/shutdown";
import { taskService } from "../engine/workload";

async function main(): Promise<void> {
  const config = loadConfig();
  const flag = process.env.BENCH_DISABLE_BALANCER;
  // As ./platform.ts's startPlatform: the tuning study's broker is a bare one with the option set.
  const broker = flag
    ? new ServiceBroker({ ...brokerOptions(config), disableBalancer: flag === "true" })
    : createBroker(config);
  for (const schema of nodeSchemas(config)) broker.createService(schema);
  if (process.env.BENCH_LOCAL_TASK === "1") broker.createService(taskService());
  stopOnSignals(broker, config.shutdownTimeout);
  await broker.start();
}

main().catch((err) => {
  console.error(`platform-node failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
