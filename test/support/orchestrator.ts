/**
 * A test orchestrator on 127.0.0.1: NSO-style RESTCONF and legacy REST routes, plus one slow,
 * one failing, one XML, one connection-closing, one huge (with a content-length, and chunked without),
 * one stalling halfway through its body (5 s) and one deeply nested route. It records the headers it received.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface TestOrchestrator {
  port: number;
  /** "up" answers; "failing" answers 503 to everything (health goes down, the breaker opens). */
  mode: "up" | "failing";
  /** TCP connections accepted so far (a restart of the adapter opens new ones). */
  connections: number;
  /** Every request seen: method, url, headers, body. */
  seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

export const DEVICES = {
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

export const DEVICE_GROUPS = {
  collection: { "tailf-ncs:device-group": [{ name: "core", "device-name": ["pe1"] }] },
};

export async function startOrchestrator(): Promise<TestOrchestrator> {
  const seen: TestOrchestrator["seen"] = [];
  const self = { mode: "up", connections: 0 } as TestOrchestrator;
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      const url = req.url ?? "";
      const json = (status: number, value: unknown, type = "application/yang-data+json") => {
        res.writeHead(status, { "content-type": type });
        res.end(JSON.stringify(value));
      };
      if (self.mode === "failing") return json(503, { errors: "maintenance" });
      if (url === "/" || url === "/health") return json(200, { version: "6.1" });
      if (url.startsWith("/restconf/data/tailf-ncs:devices")) return json(200, DEVICES);
      if (url.startsWith("/api/running/devices/device-group"))
        return json(200, DEVICE_GROUPS, "application/vnd.yang.collection+json");
      if (url.startsWith("/api/running/devices"))
        return json(
          200,
          { "tailf-ncs:device": DEVICES["tailf-ncs:devices"].device },
          "application/vnd.yang.collection+json",
        );
      if (url.startsWith("/restconf/data/change")) {
        res.writeHead(204);
        return res.end();
      }
      if (url.startsWith("/restconf/operations/echo")) return json(200, { echo: JSON.parse(body || "{}") });
      if (url.startsWith("/slow")) return setTimeout(() => json(200, { slow: true }), 1500);
      if (url.startsWith("/failing")) return json(500, { errors: { error: [{ "error-message": "boom" }] } });
      if (url.startsWith("/missing")) return json(404, { errors: "no such node" });
      if (url.startsWith("/xml")) {
        res.writeHead(200, { "content-type": "application/yang-data+xml" });
        return res.end("<devices><device><name>ce0</name></device></devices>");
      }
      if (url.startsWith("/close")) return req.socket.destroy();
      if (url.startsWith("/huge")) {
        // 17 MiB of JSON: over the platform's bound on an upstream body.
        res.writeHead(200, { "content-type": "application/yang-data+json" });
        return res.end(JSON.stringify({ data: "x".repeat(17 * 1024 * 1024) }));
      }
      if (url.startsWith("/huge-chunked")) {
        // 17 MiB sent in chunks, with no content-length: the bound must be kept as it streams in.
        res.writeHead(200, { "content-type": "application/yang-data+json" });
        const chunk = "x".repeat(1024 * 1024);
        res.write('{"data":"');
        for (let i = 0; i < 17; i++) res.write(chunk);
        return res.end('"}');
      }
      if (url.startsWith("/stall")) {
        // The headers and half a body, then nothing for 5 s: only the caller's deadline ends it sooner.
        res.writeHead(200, { "content-type": "application/yang-data+json" });
        res.write('{"partial":');
        return setTimeout(() => res.end("1}"), 5000).unref();
      }
      if (url.startsWith("/deep")) {
        // JSON nested `?levels=` deep (5,000 by default: 30 KB), as a broken or hostile orchestrator might answer.
        const levels = Number(new URL(url, "http://x").searchParams.get("levels") ?? 5000);
        res.writeHead(200, { "content-type": "application/yang-data+json" });
        return res.end('{"a":'.repeat(levels) + "1" + "}".repeat(levels));
      }
      json(404, { errors: "unknown route" });
    });
  });
  server.on("connection", () => self.connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return Object.assign(self, {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
