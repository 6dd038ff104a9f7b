"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.applicationsOf = applicationsOf;
exports.healthStatus = healthStatus;
exports.healthSystem = healthSystem;
exports.healthServer = healthServer;
exports.healthApplications = healthApplications;
exports.healthApplication = healthApplication;
exports.applications = applications;
exports.application = application;
exports.restartApplication = restartApplication;
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
const node_os_1 = __importDefault(require("node:os"));
const contracts_1 = require("../shared/contracts");
const gateway_1 = require("../shared/contracts/gateway");
const errors_1 = require("../shared/errors");
const health_query_1 = require("../shared/health-query");
const version_1 = require("../shared/version");
/** Every platform service, from the contracts, and `store` where a node serves it. */
function applicationsOf(broker) {
    const hosted = broker.registry.getServiceList({ onlyAvailable: true, skipInternal: true });
    const names = new Set(Object.keys(contracts_1.contracts));
    if (hosted.some((s) => s.name === "store"))
        names.add("store");
    return [...names].sort().map((name) => {
        const nodes = [...new Set(hosted.filter((s) => s.name === name).map((s) => s.nodeID))].sort();
        return {
            id: name,
            package_id: `automation-platform/${name}`,
            version: version_1.PLATFORM_VERSION,
            type: "Application",
            state: nodes.length > 0 ? "RUNNING" : "STOPPED",
            replicas: nodes.length,
            nodes,
        };
    });
}
function applicationNamed(broker, name) {
    const app = applicationsOf(broker).find((a) => a.id === name);
    if (!app)
        throw new errors_1.NotFoundError("Application", name);
    return app;
}
async function healthStatus(ctx) {
    const apps = applicationsOf(this.broker);
    const bus = this.broker.transit
        ? this.broker.transit.connected
            ? "connected"
            : "disconnected"
        : "in-process";
    let store = "unknown";
    try {
        await (0, contracts_1.call)(ctx, "accounts.listGroups", {}, { timeout: 2000, meta: {} });
        store = "ok";
    }
    catch {
        store = "unreachable";
    }
    const running = apps.filter((a) => a.state === "RUNNING").length;
    return {
        status: bus !== "disconnected" && store === "ok" && running === apps.length ? "running" : "degraded",
        timestamp: new Date().toISOString(),
        version: version_1.PLATFORM_VERSION,
        bus,
        store,
        services: Object.fromEntries(apps.map((a) => [a.id, { state: a.state, replicas: a.replicas }])),
    };
}
function healthSystem() {
    return {
        arch: node_os_1.default.arch(),
        platform: node_os_1.default.platform(),
        release: node_os_1.default.release(),
        cpus: node_os_1.default.cpus().length,
        loadavg: node_os_1.default.loadavg(),
        totalmem: node_os_1.default.totalmem(),
        freemem: node_os_1.default.freemem(),
        uptime: node_os_1.default.uptime(),
    };
}
function healthServer() {
    return {
        version: version_1.PLATFORM_VERSION,
        api: version_1.API_VERSION,
        node: process.version,
        moleculer: this.broker.MOLECULER_VERSION,
        nodeID: this.broker.nodeID,
        uptime: process.uptime(),
        memory: process.memoryUsage(),
    };
}
function healthApplications(ctx) {
    return (0, health_query_1.healthPage)(applicationsOf(this.broker), ctx.params);
}
function healthApplication(ctx) {
    return { results: [applicationNamed(this.broker, ctx.params.name)], total: 1 };
}
function applications(ctx) {
    return (0, health_query_1.healthPage)(applicationsOf(this.broker), ctx.params);
}
function application(ctx) {
    return applicationNamed(this.broker, ctx.params.name);
}
/**
 * PUT /applications/:name/restart: every node running the service reloads it (app/platform-node.ts),
 * one node at a time, so where there are two replicas or more one always serves. The gateway and
 * the store are restarted with their process (409).
 */
async function restartApplication(ctx) {
    const { name } = ctx.params;
    const app = applicationNamed(this.broker, name);
    if (gateway_1.NOT_RESTARTABLE.includes(name))
        throw new errors_1.ConflictError(`'${name}' is restarted with its process, not through the API`);
    if (app.nodes.length === 0)
        throw new errors_1.ConflictError(`'${name}' runs on no node; there is nothing to restart`);
    for (const nodeID of app.nodes)
        await ctx.call(`${gateway_1.PLATFORM_NODE_SERVICE}.restartService`, { name }, { nodeID, timeout: 0 });
    return {
        status: "OK",
        message: `Application '${name}' restarted on ${app.nodes.length} node(s)`,
        data: { id: name, nodes: app.nodes },
    };
}
//# sourceMappingURL=health.js.map