"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.health = health;
exports.readiness = readiness;
exports.openapi = openapi;
exports.version = version;
exports.events = events;
/**
 * The gateway's own operations (docs/platform-rules.md#probes-and-extras): `/health` (the process
 * answers), `/ready` (bus, store and the services behind the routes reachable), `/openapi.json`,
 * `/version`, and the `/events` stream.
 */
const moleculer_1 = require("moleculer");
const contracts_1 = require("../shared/contracts");
const service_1 = require("../shared/service");
const version_1 = require("../shared/version");
function health() {
    return { status: "ok" };
}
/** `ready` for the routes `ops`: each service behind them must have a node, and the store answer. */
function readiness(ops) {
    return async function ready(ctx) {
        // Draining (or the broker stopping): not ready at once, so the load balancer stops sending.
        if (this.httpDrain?.draining || !this.broker.started)
            throw new moleculer_1.Errors.MoleculerError("Not ready: shutting down", 503, "SERVICE_UNAVAILABLE", {
                checks: { gateway: "draining" },
            });
        const checks = {};
        if (this.broker.transit)
            checks.bus = this.broker.transit.connected ? "ok" : "disconnected";
        for (const service of new Set(ops.map((op) => op.service))) {
            if (service === "gateway")
                continue;
            const sample = ops.find((op) => op.service === service).action;
            checks[service] = (0, service_1.isActionAvailable)(this.broker, sample) ? "ok" : "unavailable";
        }
        if (checks.accounts === "ok") {
            try {
                await (0, contracts_1.call)(ctx, "accounts.listGroups", {}, { timeout: 2000, meta: {} });
                checks.store = "ok";
            }
            catch {
                checks.store = "unreachable";
            }
        }
        const failing = Object.entries(checks).filter(([, v]) => v !== "ok");
        if (failing.length > 0) {
            throw new moleculer_1.Errors.MoleculerError(`Not ready: ${failing.map(([k, v]) => `${k} ${v}`).join(", ")}`, 503, "SERVICE_UNAVAILABLE", { checks });
        }
        return { status: "ready", checks };
    };
}
function openapi() {
    return this.openApiDocument;
}
function version() {
    return { platform: version_1.PLATFORM_VERSION, api: version_1.API_VERSION };
}
function events(ctx) {
    return this.streams.open(ctx.meta.caller);
}
//# sourceMappingURL=probes.js.map