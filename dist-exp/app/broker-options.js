"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.brokerOptions = brokerOptions;
/**
 * Broker options, all from the platform config (shared/config.ts reads the environment). One image runs every service;
 * SERVICES chooses which, TRANSPORTER chooses the bus (unset: in-process).
 */
const moleculer_1 = require("moleculer");
const input_bounds_1 = require("../shared/input-bounds");
const logging_1 = require("../shared/observability/logging");
const request_scope_1 = require("../shared/observability/request-scope");
const metrics_1 = require("../shared/observability/metrics");
const retry_left_node_1 = require("../shared/retry-left-node");
const restart_window_1 = require("../shared/restart-window");
const validator_1 = require("../shared/validator");
const telemetry_1 = require("../shared/telemetry");
const nats_transporter_1 = require("./nats-transporter");
/**
 * NATS gets explicit options (reconnect forever) and packets written together per event-loop turn
 * (nats-transporter.ts); other URIs pass through.
 */
function transporterOptions(uri) {
    if (!uri)
        return null;
    if (uri.startsWith("nats://")) {
        return new nats_transporter_1.CoalescingNatsTransporter({ url: uri, maxReconnectAttempts: -1, reconnectTimeWait: 500 });
    }
    return uri;
}
function brokerOptions(config) {
    return {
        namespace: config.namespace,
        nodeID: config.nodeId,
        transporter: transporterOptions(config.transporter),
        // JSON by default: CBOR is 17% smaller on the wire but costs more CPU (docs/performance.md).
        serializer: config.serializer,
        requestTimeout: config.requestTimeout,
        // A node that stops heartbeating (killed, partitioned) is dropped between heartbeatTimeout and
        // twice that (Moleculer checks every heartbeatTimeout seconds); its calls then go elsewhere.
        heartbeatInterval: config.heartbeatIntervalSeconds,
        heartbeatTimeout: config.heartbeatTimeoutSeconds,
        registry: { strategy: "RoundRobin", preferLocal: true },
        // Retry only what is safe to retry: calls that never reached a node.
        retryPolicy: { enabled: false },
        // Until a dead node is dropped, calls routed to it time out. The breaker stops sending work to
        // an endpoint whose calls time out; application errors (4xx, 501) never trip it.
        circuitBreaker: {
            enabled: true,
            threshold: 0.5,
            minRequestCount: 3,
            windowTime: 10,
            halfOpenTime: 5000,
            check: (err) => err instanceof moleculer_1.Errors.RequestTimeoutError,
        },
        // Graceful shutdown: a stopping node tells the others its services are gone, then waits for the
        // calls in flight. Signals are handled by app/shutdown.ts, which drains HTTP first.
        tracking: { enabled: true, shutdownTimeout: config.shutdownTimeout },
        skipProcessEventRegistration: true,
        contextParamsCloning: false,
        logger: (0, logging_1.loggerOptions)(config.logLevel, config.logFormat, config.logFile),
        logLevel: config.logLevel,
        // fastest-validator, with rejected values kept out of errors (and so out of every log line).
        validator: new validator_1.RedactingValidator(),
        // Every action call, from the gateway or another service, keeps within the input bounds; log
        // lines name the request they were written for; a call refused by a leaving node goes elsewhere.
        middlewares: [
            (0, input_bounds_1.inputBoundsMiddleware)(config.inputLimits),
            (0, request_scope_1.requestScopeMiddleware)(),
            (0, retry_left_node_1.retryLeftNodeMiddleware)(),
            (0, restart_window_1.restartWindowMiddleware)(),
        ],
        tracing: (0, telemetry_1.tracingOptions)(config.telemetry, config.traceSampleRate),
        metrics: (0, metrics_1.metricsOptions)(config.metricsPort),
    };
}
//# sourceMappingURL=broker-options.js.map