/**
 * The real product's health and applications reads, served by the gateway because they read what
 * it can see: the service registry (every node on the bus), this process and its host
 * (docs/compatibility.md#health-and-applications). Nothing secret: no environment, no settings.
 *   GET /health/status                 the platform: bus, store, every service's state and replicas
 *   GET /health/system, /health/server this gateway's host and process
 *   GET /health/applications[/:name], /applications[/:name]
 *                                      one entry per platform service, from the registry
 *   PUT /applications/:name/restart    reload a service, node by node
 */
import os from "node:os";
import type { ServiceBroker } from "moleculer";
import { contracts } from "../shared/contracts";
import {
  NOT_RESTARTABLE,
  PLATFORM_NODE_SERVICE,
  type ApplicationHealth,
  type gateway as contract,
} from "../shared/contracts/gateway";
import { ConflictError, NotFoundError } from "../shared/errors";
import { healthPage } from "../shared/health-query";
import type { HandlerContext } from "../shared/service";
import { API_VERSION, PLATFORM_VERSION } from "../shared/version";
import type { GatewayService } from "./types";
import { callAsPlatform } from "../shared/authorization";

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

/** Every platform service, from the contracts, and `store` where a node serves it. */
export function applicationsOf(broker: ServiceBroker): ApplicationHealth[] {
  const hosted = broker.registry.getServiceList({ onlyAvailable: true, skipInternal: true }) as unknown as {
    name: string;
    nodeID: string;
  }[];
  const names = new Set<string>(Object.keys(contracts));
  if (hosted.some((s) => s.name === "store")) names.add("store");
  return [...names].sort().map((name) => {
    const nodes = [...new Set(hosted.filter((s) => s.name === name).map((s) => s.nodeID))].sort();
    return {
      id: name,
      package_id: `automation-platform/${name}`,
      version: PLATFORM_VERSION,
      type: "Application",
      state: nodes.length > 0 ? "RUNNING" : "STOPPED",
      replicas: nodes.length,
      nodes,
    };
  });
}

function applicationNamed(broker: ServiceBroker, name: string): ApplicationHealth {
  const app = applicationsOf(broker).find((a) => a.id === name);
  if (!app) throw new NotFoundError("Application", name);
  return app;
}

export async function healthStatus(this: GatewayService, ctx: Ctx<"healthStatus">) {
  const apps = applicationsOf(this.broker);
  const bus = this.broker.transit
    ? this.broker.transit.connected
      ? "connected"
      : "disconnected"
    : "in-process";
  let store = "unknown";
  try {
    await callAsPlatform(ctx, "accounts.listGroups", {}, { timeout: 2000 });
    store = "ok";
  } catch {
    store = "unreachable";
  }
  const running = apps.filter((a) => a.state === "RUNNING").length;
  return {
    status: bus !== "disconnected" && store === "ok" && running === apps.length ? "running" : "degraded",
    timestamp: new Date().toISOString(),
    version: PLATFORM_VERSION,
    bus,
    store,
    services: Object.fromEntries(apps.map((a) => [a.id, { state: a.state, replicas: a.replicas }])),
  };
}

export function healthSystem() {
  return {
    arch: os.arch(),
    platform: os.platform(),
    release: os.release(),
    cpus: os.cpus().length,
    loadavg: os.loadavg(),
    totalmem: os.totalmem(),
    freemem: os.freemem(),
    uptime: os.uptime(),
  };
}

export function healthServer(this: GatewayService) {
  return {
    version: PLATFORM_VERSION,
    api: API_VERSION,
    node: process.version,
    moleculer: this.broker.MOLECULER_VERSION,
    nodeID: this.broker.nodeID,
    uptime: process.uptime(),
    memory: process.memoryUsage(),
  };
}

export function healthApplications(this: GatewayService, ctx: Ctx<"healthApplications">) {
  return healthPage(applicationsOf(this.broker), ctx.params);
}

export function healthApplication(this: GatewayService, ctx: Ctx<"healthApplication">) {
  return { results: [applicationNamed(this.broker, ctx.params.name)], total: 1 };
}

export function applications(this: GatewayService, ctx: Ctx<"applications">) {
  return healthPage(applicationsOf(this.broker), ctx.params);
}

export function application(this: GatewayService, ctx: Ctx<"application">) {
  return applicationNamed(this.broker, ctx.params.name);
}

/**
 * PUT /applications/:name/restart: every node running the service reloads it (app/platform-node.ts),
 * one node at a time, so where there are two replicas or more one always serves. The gateway and
 * the store are restarted with their process (409).
 */
export async function restartApplication(this: GatewayService, ctx: Ctx<"restartApplication">) {
  const { name } = ctx.params;
  const app = applicationNamed(this.broker, name);
  if ((NOT_RESTARTABLE as readonly string[]).includes(name))
    throw new ConflictError(`'${name}' is restarted with its process, not through the API`);
  if (app.nodes.length === 0)
    throw new ConflictError(`'${name}' runs on no node; there is nothing to restart`);
  for (const nodeID of app.nodes)
    await ctx.call(`${PLATFORM_NODE_SERVICE}.restartService`, { name }, { nodeID, timeout: 0 });
  return {
    status: "OK" as const,
    message: `Application '${name}' restarted on ${app.nodes.length} node(s)`,
    data: { id: name, nodes: app.nodes },
  };
}
