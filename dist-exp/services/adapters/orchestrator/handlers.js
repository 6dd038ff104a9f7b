"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.runningTarget = runningTarget;
exports.restAction = restAction;
exports.restQuery = restQuery;
const metrics_1 = require("../../../shared/observability/metrics");
const lifecycle_1 = require("../lifecycle");
const proxy_1 = require("./proxy");
const target_1 = require("./target");
/** The target of a running orchestrator adapter: 404 unknown, 400 another type, 503 stopped. */
async function runningTarget(service, name) {
    const doc = await service.adapters().get(name);
    const target = (0, target_1.targetOf)(doc, service.secretKey);
    (0, lifecycle_1.assertRunning)(doc);
    target.onUpstream = (outcome, ms) => (0, metrics_1.observe)(service.broker, "upstreamTime", ms, { adapter: name, outcome });
    return target;
}
/** `[{result: "<upstream status>"}]`, plus `body` when the orchestrator answered one. */
async function restAction(ctx) {
    const target = await runningTarget(this, ctx.params.adapterId);
    const { path, accept, method, contentType } = ctx.params.params;
    const reply = await (0, proxy_1.send)(target, {
        method: (method ?? "POST").toUpperCase(),
        path,
        accept,
        contentType,
        body: ctx.params.body,
    });
    return [{ result: String(reply.status), ...(reply.body !== undefined && { body: reply.body }) }];
}
/** The upstream JSON body as it came (`{}` when empty); the text for XML and other media types. */
async function restQuery(ctx) {
    const target = await runningTarget(this, ctx.params.adapterId);
    const { path, accept } = ctx.params.params;
    const reply = await (0, proxy_1.send)(target, { method: "GET", path, accept });
    return (reply.body ?? {});
}
//# sourceMappingURL=handlers.js.map