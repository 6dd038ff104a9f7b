/**
 * gateway: probes, the OpenAPI document, the version (docs/platform-rules.md#probes-and-extras),
 * and the real product's health and applications reads (docs/compatibility.md#health-and-applications).
 */
import { healthQuerySchema } from "../health-query";
import { defineService } from "./define";
import { returns } from "./schema";

/** A platform service as the real product's health reads show an application. */
export interface ApplicationHealth {
  id: string;
  package_id: string;
  version: string;
  type: "Application";
  state: "RUNNING" | "STOPPED";
  replicas: number;
  nodes: string[];
}

const appName = { type: "string", min: 1, max: 64, pattern: /^[A-Za-z0-9._-]+$/ } as const;

export const gateway = defineService("gateway", {
  health: {
    params: {},
    result: returns<{ status: "ok" }>(),
    http: { method: "GET", path: "/health", access: "public", summary: "Liveness: the process is up" },
  },
  ready: {
    params: {},
    result: returns<{ status: "ready"; checks: Record<string, string> }>(),
    http: {
      method: "GET",
      path: "/ready",
      access: "public",
      summary: "Readiness: store and bus reachable, the services behind the routes registered",
    },
  },
  openapi: {
    params: {},
    result: returns<Record<string, unknown>>(),
    http: {
      method: "GET",
      path: "/openapi.json",
      access: "public",
      summary: "OpenAPI 3.1 document of every route",
    },
  },
  events: {
    params: {},
    result: returns<NodeJS.ReadableStream>(),
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
    result: returns<{ platform: string; api: string }>(),
    http: { method: "GET", path: "/version", access: "public", summary: "Platform and API version" },
  },
  healthStatus: {
    params: {},
    result: returns<Record<string, unknown>>(),
    http: {
      method: "GET",
      path: "/health/status",
      access: "authenticated",
      summary: "The platform's state: store, bus and every service",
    },
  },
  healthSystem: {
    params: {},
    result: returns<Record<string, unknown>>(),
    http: {
      method: "GET",
      path: "/health/system",
      access: "authenticated",
      summary: "The host of this gateway: CPUs, memory, load, uptime",
    },
  },
  healthServer: {
    params: {},
    result: returns<Record<string, unknown>>(),
    http: {
      method: "GET",
      path: "/health/server",
      access: "authenticated",
      summary: "This gateway's process: versions, memory, uptime",
    },
  },
  healthApplications: {
    params: healthQuerySchema,
    result: returns<{ results: ApplicationHealth[]; total: number }>(),
    http: {
      method: "GET",
      path: "/health/applications",
      access: "authenticated",
      summary: "Every platform service, its state and replicas",
    },
  },
  healthApplication: {
    params: { name: appName },
    result: returns<{ results: ApplicationHealth[]; total: number }>(),
    http: {
      method: "GET",
      path: "/health/applications/:name",
      access: "authenticated",
      summary: "One platform service, its state and replicas",
    },
  },
  applications: {
    params: healthQuerySchema,
    result: returns<{ results: ApplicationHealth[]; total: number }>(),
    http: {
      method: "GET",
      path: "/applications",
      access: "authenticated",
      summary: "The platform's services, their version and replicas",
    },
  },
  application: {
    params: { name: appName },
    result: returns<ApplicationHealth>(),
    http: {
      method: "GET",
      path: "/applications/:name",
      access: "authenticated",
      summary: "One platform service, its version and replicas",
    },
  },
  restartApplication: {
    params: { name: appName },
    result: returns<{ status: "OK"; message: string; data: { id: string; nodes: string[] } }>(),
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
