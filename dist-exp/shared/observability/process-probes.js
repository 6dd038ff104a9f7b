"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.processReadiness = processReadiness;
exports.attachProcessProbes = attachProcessProbes;
function answer(res, status, body) {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
}
/** The process's readiness: started, not stopping, and on the bus when there is one. */
function processReadiness(broker) {
    const checks = { broker: broker.started && !broker.stopping ? "ok" : "stopping" };
    if (broker.transit)
        checks.bus = broker.transit.connected ? "ok" : "disconnected";
    return { ready: Object.values(checks).every((v) => v === "ok"), checks };
}
function attachProcessProbes(broker) {
    if (!broker.isMetricsEnabled())
        return;
    const reporter = (broker.metrics.reporter ?? []).find((r) => r.server);
    if (!reporter?.server)
        return;
    reporter.server.removeAllListeners("request");
    reporter.server.on("request", (req, res) => {
        const path = (req.url ?? "").split("?")[0];
        if (path === "/health")
            return answer(res, 200, { status: "ok" });
        if (path === "/ready") {
            const { ready, checks } = processReadiness(broker);
            return answer(res, ready ? 200 : 503, { status: ready ? "ready" : "not ready", checks });
        }
        reporter.handler(req, res);
    });
}
//# sourceMappingURL=process-probes.js.map