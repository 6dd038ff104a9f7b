/**
 * Broker options, all from the platform config (shared/config.ts reads the environment). One image runs every service;
 * SERVICES chooses which, TRANSPORTER chooses the bus (unset: in-process).
 */
import { oversizedAnswersMiddleware } from "./oversized-answers";
import { Errors, type BrokerOptions } from "moleculer";
import type { PlatformConfig } from "../shared/config";
import { inputBoundsMiddleware } from "../shared/input-bounds";
import { authorizationMiddleware } from "../shared/authorization";
import { loggerOptions } from "../shared/observability/logging";
import { requestScopeMiddleware } from "../shared/observability/request-scope";
import { metricsOptions } from "../shared/observability/metrics";
import { withInternalMiddlewares } from "../shared/observability/internal-middlewares";
import { retryLeftNodeMiddleware } from "../shared/retry-left-node";
import { idempotencyMiddleware } from "../shared/idempotency";
import { restartWindowMiddleware } from "../shared/restart-window";
import { RedactingValidator } from "../shared/validator";
import { tracingOptions } from "../shared/telemetry";
import { CoalescingNatsTransporter } from "./nats-transporter";
import { jobChangesBatchMiddleware } from "../shared/job-changes-batch";
import { contextId } from "../shared/context-ids";

/**
 * NATS gets explicit options (reconnect forever) and packets written together per event-loop turn
 * (nats-transporter.ts); other URIs pass through.
 */
function transporterOptions(uri: string | undefined): BrokerOptions["transporter"] {
  if (!uri) return null;
  if (uri.startsWith("nats://")) {
    return new CoalescingNatsTransporter({ url: uri, maxReconnectAttempts: -1, reconnectTimeWait: 500 });
  }
  return uri as unknown as BrokerOptions["transporter"];
}

export function brokerOptions(config: PlatformConfig): BrokerOptions {
  return {
    namespace: config.namespace,
    nodeID: config.nodeId,
    transporter: transporterOptions(config.transporter),
    // JSON by default: CBOR is 17% smaller on the wire but costs more CPU (docs/performance-rounds.md).
    serializer: config.serializer as BrokerOptions["serializer"],
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
      check: (err: Error) => err instanceof Errors.RequestTimeoutError,
    },
    // Graceful shutdown: a stopping node tells the others its services are gone, then waits for the
    // calls in flight. Signals are handled by app/shutdown.ts, which drains HTTP first.
    tracking: { enabled: true, shutdownTimeout: config.shutdownTimeout },
    skipProcessEventRegistration: true,
    contextParamsCloning: false,
    // Contexts' and spans' ids made flat (shared/context-ids.ts).
    uidGenerator: contextId,
    logger: loggerOptions(config.logLevel, config.logFormat, config.logFile),
    logLevel: config.logLevel as BrokerOptions["logLevel"],
    // fastest-validator, with rejected values kept out of errors (and so out of every log line).
    validator: new RedactingValidator(),
    // Every action call, from the gateway or another service, is authorized (shared/authorization.ts)
    // and keeps within the input bounds; log lines name the request they were written for; a call
    // refused by a leaving node goes elsewhere; an idempotent write runs once per request id.
    // Moleculer's own middlewares follow, two of them replaced by cheaper equivalents
    // (shared/observability/internal-middlewares.ts).
    internalMiddlewares: false,
    middlewares: withInternalMiddlewares([
      inputBoundsMiddleware(config.inputLimits),
      requestScopeMiddleware(),
      retryLeftNodeMiddleware(),
      idempotencyMiddleware(),
      restartWindowMiddleware(),
      oversizedAnswersMiddleware(),
      // A node listening to engine.jobChanges takes them several to a message (over NATS).
      jobChangesBatchMiddleware(),
      // Last: the outermost, so a refused call is refused before anything else looks at it.
      authorizationMiddleware(config.authCacheMs),
    ]),
    tracing: tracingOptions(config.telemetry, config.traceSampleRate),
    metrics: metricsOptions(config.metricsPort),
  };
}
