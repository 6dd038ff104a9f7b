"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Child process of `bench:observability`: a local OTLP/HTTP receiver that reads each export and
 * answers 200, so the bench pays for building and sending spans, not for a real collector. Tells
 * the parent its port and, on request, how many exports it received.
 */
require("./watchdog");
const node_http_1 = __importDefault(require("node:http"));
let received = 0;
let bytes = 0;
const server = node_http_1.default.createServer((req, res) => {
    req.on("data", (chunk) => (bytes += chunk.length));
    req.on("end", () => {
        received++;
        res.writeHead(200, { "content-type": "application/json" });
        res.end("{}");
    });
});
server.listen(0, "127.0.0.1", () => process.send?.({ port: server.address().port }));
process.on("message", () => process.send?.({ exports: received, bytes }));
//# sourceMappingURL=otlp-sink-node.js.map