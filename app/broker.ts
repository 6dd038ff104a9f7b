/**
 * Builds a broker from the platform config: the options of app/broker-options.ts, and the config
 * bound to the broker so services read it through `configOf` (shared/runtime.ts).
 */
import { ServiceBroker } from "moleculer";
import { loadConfig, type PlatformConfig } from "../shared/config";
import { registerPlatformMetrics } from "../shared/observability/metrics";
import { attachProcessProbes } from "../shared/observability/process-probes";
import { bindConfig } from "../shared/runtime";
import { brokerOptions } from "./broker-options";

export function createBroker(config: PlatformConfig = loadConfig()): ServiceBroker {
  const broker = new ServiceBroker(brokerOptions(config));
  bindConfig(broker, config);
  registerPlatformMetrics(broker);
  attachProcessProbes(broker);
  return broker;
}
