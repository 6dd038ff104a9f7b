"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.NOT_RESTARTABLE = exports.PLATFORM_NODE_SERVICE = exports.gateway = exports.applicationHealthSchema = void 0;
/**
 * gateway: probes, the OpenAPI document, the version (docs/platform-rules.md#probes-and-extras),
 * and the real product's health and applications reads (docs/compatibility.md#health-and-applications).
 */
const health_query_1 = require("../health-query");
const resources_1 = require("./resources");
const define_1 = require("./define");
const schema_1 = require("./schema");
/** A platform service as the real product's health reads show an application. */
exports.applicationHealthSchema = (0, schema_1.named)("ApplicationHealth", (0, schema_1.shape)({
    id: schema_1.str,
    package_id: schema_1.str,
    version: schema_1.str,
    type: (0, schema_1.constant)("Application"),
    state: (0, schema_1.oneOf)("RUNNING", "STOPPED"),
    replicas: schema_1.integer,
    nodes: (0, schema_1.arrayOf)(schema_1.str),
}));
const applicationPage = (0, resources_1.resultsPage)(exports.applicationHealthSchema);
const appName = { type: "string", min: 1, max: 64, pattern: /^[A-Za-z0-9._-]+$/ };
exports.gateway = (0, define_1.defineService)("gateway", {
    health: {
        params: {},
        result: (0, schema_1.returns)((0, schema_1.shape)({ status: (0, schema_1.constant)("ok") })),
        http: { method: "GET", path: "/health", access: "public", summary: "Liveness: the process is up" },
    },
    ready: {
        params: {},
        result: (0, schema_1.returns)((0, schema_1.shape)({ status: (0, schema_1.constant)("ready"), checks: (0, schema_1.recordOf)(schema_1.str) })),
        http: {
            method: "GET",
            path: "/ready",
            access: "public",
            summary: "Readiness: store and bus reachable, the services behind the routes registered",
        },
    },
    openapi: {
        params: {},
        result: (0, schema_1.returnsAs)((0, schema_1.openShape)({ openapi: schema_1.str, info: schema_1.anyObj, paths: schema_1.anyObj, components: schema_1.anyObj })),
        http: {
            method: "GET",
            path: "/openapi.json",
            access: "public",
            summary: "OpenAPI 3.1 document of every route",
        },
    },
    events: {
        params: {},
        result: (0, schema_1.returnsAs)({ type: "string", description: "A text/event-stream" }),
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
        result: (0, schema_1.returns)((0, schema_1.shape)({ platform: schema_1.str, api: schema_1.str })),
        http: { method: "GET", path: "/version", access: "public", summary: "Platform and API version" },
    },
    healthStatus: {
        params: {},
        result: (0, schema_1.returns)((0, schema_1.shape)({
            /** running, or degraded when the bus, the store or a service is missing. */
            status: schema_1.str,
            timestamp: schema_1.str,
            version: schema_1.str,
            /** connected, disconnected or in-process. */
            bus: schema_1.str,
            store: schema_1.str,
            services: (0, schema_1.recordOf)((0, schema_1.shape)({ state: (0, schema_1.oneOf)("RUNNING", "STOPPED"), replicas: schema_1.integer })),
        })),
        http: {
            method: "GET",
            path: "/health/status",
            access: "authenticated",
            summary: "The platform's state: store, bus and every service",
        },
    },
    healthSystem: {
        params: {},
        result: (0, schema_1.returns)((0, schema_1.shape)({
            arch: schema_1.str,
            platform: schema_1.str,
            release: schema_1.str,
            cpus: schema_1.integer,
            loadavg: (0, schema_1.arrayOf)(schema_1.num),
            totalmem: schema_1.num,
            freemem: schema_1.num,
            uptime: schema_1.num,
        })),
        http: {
            method: "GET",
            path: "/health/system",
            access: "authenticated",
            summary: "The host of this gateway: CPUs, memory, load, uptime",
        },
    },
    healthServer: {
        params: {},
        result: (0, schema_1.returns)((0, schema_1.shape)({
            version: schema_1.str,
            api: schema_1.str,
            node: schema_1.str,
            moleculer: schema_1.str,
            nodeID: schema_1.str,
            uptime: schema_1.num,
            memory: (0, schema_1.shape)({ rss: schema_1.num, heapTotal: schema_1.num, heapUsed: schema_1.num, external: schema_1.num, arrayBuffers: schema_1.num }),
        })),
        http: {
            method: "GET",
            path: "/health/server",
            access: "authenticated",
            summary: "This gateway's process: versions, memory, uptime",
        },
    },
    healthApplications: {
        params: health_query_1.healthQuerySchema,
        result: (0, schema_1.returns)(applicationPage),
        http: {
            method: "GET",
            path: "/health/applications",
            access: "authenticated",
            summary: "Every platform service, its state and replicas",
        },
    },
    healthApplication: {
        params: { name: appName },
        result: (0, schema_1.returns)(applicationPage),
        http: {
            method: "GET",
            path: "/health/applications/:name",
            access: "authenticated",
            summary: "One platform service, its state and replicas",
        },
    },
    applications: {
        params: health_query_1.healthQuerySchema,
        result: (0, schema_1.returns)(applicationPage),
        http: {
            method: "GET",
            path: "/applications",
            access: "authenticated",
            summary: "The platform's services, their version and replicas",
        },
    },
    application: {
        params: { name: appName },
        result: (0, schema_1.returns)(exports.applicationHealthSchema),
        http: {
            method: "GET",
            path: "/applications/:name",
            access: "authenticated",
            summary: "One platform service, its version and replicas",
        },
    },
    restartApplication: {
        params: { name: appName },
        result: (0, schema_1.returns)((0, schema_1.shape)({ status: (0, schema_1.constant)("OK"), message: schema_1.str, data: (0, schema_1.shape)({ id: schema_1.str, nodes: (0, schema_1.arrayOf)(schema_1.str) }) })),
        http: {
            method: "PUT",
            path: "/applications/:name/restart",
            access: ["admin"],
            summary: "Reload a platform service on every node that runs it, one node at a time; calls in flight finish first",
        },
    },
});
/** The node-local control service every broker runs (app/platform-node.ts): `$` keeps it off application lists. */
exports.PLATFORM_NODE_SERVICE = "$platform";
/** Services a restart may not reload: the gateway answering the request, and the store everyone holds. */
exports.NOT_RESTARTABLE = ["gateway", "store"];
//# sourceMappingURL=gateway.js.map