"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.DEVICE_GROUPS = exports.DEVICES = void 0;
exports.startOrchestrator = startOrchestrator;
/**
 * A test orchestrator on 127.0.0.1: NSO-style RESTCONF and legacy REST routes, plus one slow,
 * one failing, one XML and one connection-closing route. It records the headers it received.
 */
const node_http_1 = __importDefault(require("node:http"));
exports.DEVICES = {
    "tailf-ncs:devices": {
        device: [
            {
                name: "ce0",
                address: "127.0.0.1",
                port: 10022,
                authgroup: "default",
                "device-type": { cli: { "ned-id": "cisco-ios-cli-6.42:cisco-ios-cli-6.42" } },
                state: { "admin-state": "unlocked" },
            },
            {
                name: "pe1",
                address: "127.0.0.2",
                port: 10023,
                authgroup: "default",
                "device-type": { netconf: { "ned-id": "juniper-junos-nc-4.6:juniper-junos-nc-4.6" } },
                state: { "admin-state": "locked" },
            },
        ],
    },
};
exports.DEVICE_GROUPS = {
    collection: { "tailf-ncs:device-group": [{ name: "core", "device-name": ["pe1"] }] },
};
async function startOrchestrator() {
    const seen = [];
    const self = { mode: "up", connections: 0 };
    const server = node_http_1.default.createServer((req, res) => {
        let body = "";
        req.on("data", (c) => (body += c));
        req.on("end", () => {
            seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
            const url = req.url ?? "";
            const json = (status, value, type = "application/yang-data+json") => {
                res.writeHead(status, { "content-type": type });
                res.end(JSON.stringify(value));
            };
            if (self.mode === "failing")
                return json(503, { errors: "maintenance" });
            if (url === "/" || url === "/health")
                return json(200, { version: "6.1" });
            if (url.startsWith("/restconf/data/tailf-ncs:devices"))
                return json(200, exports.DEVICES);
            if (url.startsWith("/api/running/devices/device-group"))
                return json(200, exports.DEVICE_GROUPS, "application/vnd.yang.collection+json");
            if (url.startsWith("/api/running/devices"))
                return json(200, { "tailf-ncs:device": exports.DEVICES["tailf-ncs:devices"].device }, "application/vnd.yang.collection+json");
            if (url.startsWith("/restconf/data/change")) {
                res.writeHead(204);
                return res.end();
            }
            if (url.startsWith("/restconf/operations/echo"))
                return json(200, { echo: JSON.parse(body || "{}") });
            if (url.startsWith("/slow"))
                return setTimeout(() => json(200, { slow: true }), 1500);
            if (url.startsWith("/failing"))
                return json(500, { errors: { error: [{ "error-message": "boom" }] } });
            if (url.startsWith("/missing"))
                return json(404, { errors: "no such node" });
            if (url.startsWith("/xml")) {
                res.writeHead(200, { "content-type": "application/yang-data+xml" });
                return res.end("<devices><device><name>ce0</name></device></devices>");
            }
            if (url.startsWith("/close"))
                return req.socket.destroy();
            json(404, { errors: "unknown route" });
        });
    });
    server.on("connection", () => self.connections++);
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    return Object.assign(self, {
        port: server.address().port,
        seen,
        close: () => new Promise((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
        }),
    });
}
//# sourceMappingURL=orchestrator.js.map