/**
 * Broker options, all from the environment (shared/config.ts). One image runs every service;
 * SERVICES chooses which, TRANSPORTER chooses the bus (unset: in-process).
 */
import type { BrokerOptions } from "moleculer";
import { loadConfig, type PlatformConfig } from "./shared/config";

/** NATS gets explicit options (reconnect forever, no echo of our own messages); other URIs pass through. */
function transporterOptions(uri: string | undefined): BrokerOptions["transporter"] {
  if (!uri) return null;
  if (uri.startsWith("nats://")) {
    return {
      type: "NATS",
      options: { url: uri, maxReconnectAttempts: -1, reconnectTimeWait: 500 },
    } as BrokerOptions["transporter"];
  }
  return uri as unknown as BrokerOptions["transporter"];
}

export function brokerOptions(config: PlatformConfig): BrokerOptions {
  return {
    namespace: config.namespace,
    nodeID: config.nodeId,
    transporter: transporterOptions(config.transporter),
    // JSON by default; CBOR is smaller and faster over NATS (see docs/performance.md).
    serializer: config.serializer as BrokerOptions["serializer"],
    requestTimeout: config.requestTimeout,
    // A node that stops heartbeating is dropped within heartbeatTimeout; calls then answer 503.
    heartbeatInterval: 5,
    heartbeatTimeout: 15,
    registry: { strategy: "RoundRobin", preferLocal: true },
    // Retry only what is safe to retry: calls that never reached a node.
    retryPolicy: { enabled: false },
    circuitBreaker: { enabled: false },
    contextParamsCloning: false,
    logger: {
      type: "Console",
      options: { level: config.logLevel, formatter: "short", colors: process.stdout.isTTY === true },
    },
    logLevel: config.logLevel as BrokerOptions["logLevel"],
    validator: true,
    tracing: { enabled: false },
    metrics: { enabled: false },
  };
}

export default brokerOptions(loadConfig());
