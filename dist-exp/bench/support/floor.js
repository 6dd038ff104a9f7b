"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.DEFAULT_TUNING = void 0;
exports.floorBrokerOptions = floorBrokerOptions;
exports.floorService = floorService;
exports.floorGateway = floorGateway;
const moleculer_web_1 = __importDefault(require("moleculer-web"));
exports.DEFAULT_TUNING = { serializer: "JSON", disableBalancer: false };
function floorBrokerOptions(opts) {
    const tuning = { ...exports.DEFAULT_TUNING, ...opts.tuning };
    return {
        nodeID: opts.nodeID,
        namespace: opts.namespace ?? "",
        transporter: opts.natsUrl ? { type: "NATS", options: { url: opts.natsUrl } } : null,
        serializer: tuning.serializer,
        disableBalancer: tuning.disableBalancer,
        // Quiet: a logger that prints per request would measure the console, not the framework.
        logger: { type: "Console", options: { level: "warn" } },
        logLevel: "warn",
    };
}
function floorService(body) {
    return {
        name: "floor",
        actions: {
            get() {
                return body;
            },
            // The floor of a write: the JSON body parsed, one call, the created object answered.
            create(ctx) {
                return { _id: "6b0000000000000000000001", ...ctx.params };
            },
        },
    };
}
function floorGateway() {
    return {
        name: "api",
        mixins: [moleculer_web_1.default],
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
                    aliases: { "GET /floor": "floor.get", "POST /floor": "floor.create" },
                    bodyParsers: { json: { strict: true } },
                },
            ],
        },
    };
}
//# sourceMappingURL=floor.js.map