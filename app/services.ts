/**
 * Every service the runner can start, by the name SERVICES uses. A module exports a ServiceSchema,
 * or a factory taking the config when its schema depends on it (the gateway's port, routes, limits).
 */
import type { ServiceSchema } from "moleculer";
import type { PlatformConfig } from "../shared/config";
import createGatewayService from "../gateway/gateway.service";
import accounts from "../services/accounts/accounts.service";
import adapters from "../services/adapters/adapters.service";
import configuration from "../services/configuration/configuration.service";
import devices from "../services/devices/devices.service";
import engine from "../services/engine/engine.service";
import forms from "../services/forms/forms.service";
import prebuilts from "../services/prebuilts/prebuilts.service";
import profiles from "../services/profiles/profiles.service";
import scheduler from "../services/scheduler/scheduler.service";
import search from "../services/search/search.service";
import store from "../services/store/store.service";

type ServiceModule = ServiceSchema | ((config: PlatformConfig) => ServiceSchema);

export const SERVICE_MODULES: Record<string, ServiceModule> = {
  gateway: createGatewayService,
  store,
  accounts,
  forms,
  engine,
  configuration,
  scheduler,
  search,
  prebuilts,
  profiles,
  adapters,
  devices,
};

export const ALL_SERVICES = Object.keys(SERVICE_MODULES);

/** The schemas of the named services (all when `names` is undefined). Unknown names are an error. */
export function serviceSchemas(
  config: PlatformConfig,
  names: string[] | undefined = config.services,
): ServiceSchema[] {
  const wanted = names ?? ALL_SERVICES;
  const unknown = wanted.filter((n) => !(n in SERVICE_MODULES));
  if (unknown.length > 0)
    throw new Error(
      `Unknown service(s) in SERVICES: ${unknown.join(", ")}. Known: ${ALL_SERVICES.join(", ")}`,
    );
  return wanted.map((name) => {
    const mod = SERVICE_MODULES[name];
    return typeof mod === "function" ? mod(config) : mod;
  });
}
