/**
 * Child process of `bench:observability`: a local OTLP/HTTP receiver that reads each export and
 * answers 200, so the bench pays for building and sending spans, not for a real collector. Tells
 * the parent its port and, on request, how many exports it received.
 */
import "./watchdog";
import http from "node:http";
import type { AddressInfo } from "node:net";

let received = 0;
let bytes = 0;
const server = http.createServer((req, res) => {
  req.on("data", (chunk: Buffer) => (bytes += chunk.length));
  req.on("end", () => {
    received++;
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
});
server.listen(0, "127.0.0.1", () => process.send?.({ port: (server.address() as AddressInfo).port }));
process.on("message", () => process.send?.({ exports: received, bytes }));
