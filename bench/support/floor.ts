/**
 * The "framework floor": the least a moleculer-web gateway can do for one JSON answer. One alias
 * `GET /floor` -> `floor.get`, an action returning a fixed object, no auth, no validation schema.
 * Used in one process (both services on one broker) and over NATS (floor-node.ts holds `floor`).
 */
import type { BrokerOptions, ServiceSchema } from "moleculer";
import ApiGateway from "moleculer-web";

/** What the NATS shape varies in the tuning study. */
export interface BusTuning {
  serializer: "JSON" | "CBOR" | "MsgPack" | "Notepack";
  disableBalancer: boolean;
}

export const DEFAULT_TUNING: BusTuning = { serializer: "JSON", disableBalancer: false };

export function floorBrokerOptions(opts: {
  nodeID: string;
  namespace?: string;
  natsUrl?: string;
  tuning?: BusTuning;
}): BrokerOptions {
  const tuning = { ...DEFAULT_TUNING, ...opts.tuning };
  return {
    nodeID: opts.nodeID,
    namespace: opts.namespace ?? "",
    transporter: opts.natsUrl ? { type: "NATS", options: { url: opts.natsUrl } } : null,
    serializer: tuning.serializer,
    disableBalancer: tuning.disableBalancer,
    // Quiet: a logger that prints per request would measure the console, not the framework.
    logger: { type: "Console", options: { level: "warn" } },
    logLevel: "warn",
  } as BrokerOptions;
}

export function floorService(body: unknown): ServiceSchema {
  return {
    name: "floor",
    actions: {
      get() {
        return body;
      },
      // The floor of a write: the JSON body parsed, one call, the created object answered.
      create(ctx: { params: Record<string, unknown> }) {
        return { _id: "6b0000000000000000000001", ...ctx.params };
      },
    },
  };
}

/** The floor's gateway: `extraAliases` adds routes (bench:proxy's `POST /floor/restQuery`). */
export function floorGateway(extraAliases: Record<string, string> = {}): ServiceSchema {
  return {
    name: "api",
    mixins: [ApiGateway as unknown as ServiceSchema],
    settings: {
      port: 0,
      ip: "127.0.0.1",
      // Same logging settings as our gateway, so the floor and ours differ only in route work.
      logRequest: null,
      logResponse: null,
      routes: [
        {
          path: "/",
          mappingPolicy: "restrict",
          aliases: { "GET /floor": "floor.get", "POST /floor": "floor.create", ...extraAliases },
          bodyParsers: { json: { strict: true } },
        },
      ],
    } as ServiceSchema["settings"],
  };
}
