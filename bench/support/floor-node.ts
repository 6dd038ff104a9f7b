/**
 * Child process of scenario "floor over NATS": a second ServiceBroker, in another process, that
 * holds only the `floor` action. Settings come from the environment (the bench sets them):
 * BENCH_NATS_URL, BENCH_NAMESPACE, BENCH_TUNING (JSON of BusTuning), BENCH_BODY (the JSON body).
 * Tells the parent "ready" over IPC once started.
 */
import "./watchdog";
import { ServiceBroker } from "moleculer";
import { floorBrokerOptions, floorService, type BusTuning } from "./floor";

async function main(): Promise<void> {
  const broker = new ServiceBroker(
    floorBrokerOptions({
      nodeID: `floor-node-${process.pid}`,
      namespace: process.env.BENCH_NAMESPACE,
      natsUrl: process.env.BENCH_NATS_URL,
      tuning: JSON.parse(process.env.BENCH_TUNING || "{}") as BusTuning,
    }),
  );
  broker.createService(floorService(JSON.parse(process.env.BENCH_BODY || "{}")));
  await broker.start();
  process.send?.("ready");
}

main().catch((err) => {
  console.error(`floor-node failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
