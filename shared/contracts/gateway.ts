/**
 * gateway: probes, the OpenAPI document, the version (docs/platform-rules.md#probes-and-extras),
 * and the real product's health and applications reads (docs/compatibility.md#health-and-applications).
 */
import { healthQuerySchema } from "../health-query";
import { resultsPage } from "./resources";
import { defineService } from "./define";
import {
  anyObj,
  arrayOf,
  constant,
  integer,
  named,
  num,
  oneOf,
  openShape,
  recordOf,
  returns,
  returnsAs,
  shape,
  str,
  type InferRule,
} from "./schema";

/** A platform service as the real product's health reads show an application. */
export const applicationHealthSchema = named(
  "ApplicationHealth",
  shape({
    id: str,
    package_id: str,
    version: str,
    type: constant("Application"),
    state: oneOf("RUNNING", "STOPPED"),
    replicas: integer,
    nodes: arrayOf(str),
  }),
);
export type ApplicationHealth = InferRule<typeof applicationHealthSchema>;
const applicationPage = resultsPage(applicationHealthSchema);

const appName = { type: "string", min: 1, max: 64, pattern: /^[A-Za-z0-9._-]+$/ } as const;

export const gateway = defineService("gateway", {
  health: {
    params: {},
    result: returns(shape({ status: constant("ok") })),
    http: { method: "GET", path: "/health", access: "public", summary: "Liveness: the process is up" },
  },
  ready: {
    params: {},
    result: returns(shape({ status: constant("ready"), checks: recordOf(str) })),
    http: {
      method: "GET",
      path: "/ready",
      access: "public",
      summary: "Readiness: store and bus reachable, the services behind the routes registered",
    },
  },
  openapi: {
    params: {},
    result: returnsAs<Record<string, unknown>>(
      openShape({ openapi: str, info: anyObj, paths: anyObj, components: anyObj }),
    ),
    http: {
      method: "GET",
      path: "/openapi.json",
      access: "public",
      summary: "OpenAPI 3.1 document of every route",
    },
  },
  events: {
    params: {},
    result: returnsAs<NodeJS.ReadableStream>({ type: "string", description: "A text/event-stream" }),
    http: {
      method: "GET",
      path: "/events",
      access: "authenticated",
      produces: "sse",
      summary: "Server-Sent Events: job and task changes the caller may see",
    },
  },
  version: {
    params: {},
    result: returns(shape({ platform: str, api: str })),
    http: { method: "GET", path: "/version", access: "public", summary: "Platform and API version" },
  },
  healthStatus: {
    params: {},
    result: returns(
      shape({
        /** running, or degraded when the bus, the store or a service is missing. */
        status: str,
        timestamp: str,
        version: str,
        /** connected, disconnected or in-process. */
        bus: str,
        store: str,
        services: recordOf(shape({ state: oneOf("RUNNING", "STOPPED"), replicas: integer })),
      }),
    ),
    http: {
      method: "GET",
      path: "/health/status",
      access: "authenticated",
      summary: "The platform's state: store, bus and every service",
    },
  },
  healthSystem: {
    params: {},
    result: returns(
      shape({
        arch: str,
        platform: str,
        release: str,
        cpus: integer,
        loadavg: arrayOf(num),
        totalmem: num,
        freemem: num,
        uptime: num,
      }),
    ),
    http: {
      method: "GET",
      path: "/health/system",
      access: "authenticated",
      summary: "The host of this gateway: CPUs, memory, load, uptime",
    },
  },
  healthServer: {
    params: {},
    result: returns(
      shape({
        version: str,
        api: str,
        node: str,
        moleculer: str,
        nodeID: str,
        uptime: num,
        memory: shape({ rss: num, heapTotal: num, heapUsed: num, external: num, arrayBuffers: num }),
      }),
    ),
    http: {
      method: "GET",
      path: "/health/server",
      access: "authenticated",
      summary: "This gateway's process: versions, memory, uptime",
    },
  },
  healthApplications: {
    params: healthQuerySchema,
    result: returns(applicationPage),
    http: {
      method: "GET",
      path: "/health/applications",
      access: "authenticated",
      summary: "Every platform service, its state and replicas",
    },
  },
  healthApplication: {
    params: { name: appName },
    result: returns(applicationPage),
    http: {
      method: "GET",
      path: "/health/applications/:name",
      access: "authenticated",
      summary: "One platform service, its state and replicas",
    },
  },
  applications: {
    params: healthQuerySchema,
    result: returns(applicationPage),
    http: {
      method: "GET",
      path: "/applications",
      access: "authenticated",
      summary: "The platform's services, their version and replicas",
    },
  },
  application: {
    params: { name: appName },
    result: returns(applicationHealthSchema),
    http: {
      method: "GET",
      path: "/applications/:name",
      access: "authenticated",
      summary: "One platform service, its version and replicas",
    },
  },
  restartApplication: {
    params: { name: appName },
    result: returns(
      shape({ status: constant("OK"), message: str, data: shape({ id: str, nodes: arrayOf(str) }) }),
    ),
    http: {
      method: "PUT",
      path: "/applications/:name/restart",
      access: ["admin"],
      summary:
        "Reload a platform service on every node that runs it, one node at a time; calls in flight finish first",
    },
  },
});

/** The node-local control service every broker runs (app/platform-node.ts): `$` keeps it off application lists. */
export const PLATFORM_NODE_SERVICE = "$platform";
/** Services a restart may not reload: the gateway answering the request, and the store everyone holds. */
export const NOT_RESTARTABLE = ["gateway", "store"] as const;
