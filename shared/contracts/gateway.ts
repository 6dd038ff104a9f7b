/** gateway: probes, the OpenAPI document and the version (docs/platform-rules.md#probes-and-extras). */
import { defineService } from "./define";
import { returns } from "./schema";

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
});
