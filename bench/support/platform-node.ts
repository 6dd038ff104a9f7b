/**
 * app/main.ts plus bus options the config cannot set yet (BENCH_DISABLE_BALANCER), so the
 * tuning study can try them on the real services before app/broker-options.ts adopts them.
 * Everything else comes from the same env the runner reads.
 */
import { ServiceBroker } from "moleculer";
import { brokerOptions } from "../../app/broker-options";
import { loadConfig } from "../../shared/config";
import { serviceSchemas } from "../../app/services";

async function main(): Promise<void> {
  const config = loadConfig();
  const flag = process.env.BENCH_DISABLE_BALANCER;
  const broker = new ServiceBroker({
    ...brokerOptions(config),
    ...(flag ? { disableBalancer: flag === "true" } : {}),
  });
  for (const schema of serviceSchemas(config)) broker.createService(schema);
  await broker.start();
}

main().catch((err) => {
  console.error(`platform-node failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
