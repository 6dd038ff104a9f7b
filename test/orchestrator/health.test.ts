/**
 * Adapter health and lifecycle over HTTP: GET /health/adapters[/:name] in the real product's shape
 * with its query; an orchestrator's check going from up to down (DEAD after repeated failures) and
 * back up; adapter types with nothing to check saying so; stop / start / restart (a stopped adapter
 * answers no proxy call and is not checked; restart opens new connections); the circuit breaker;
 * TLS with a CA, without one, and with verification off.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { expectError, usePlatform } from "../support/platform";
import { startOrchestrator, type TestOrchestrator } from "../support/orchestrator";

const env = usePlatform({ env: { ADAPTER_HEALTH_TICK_MS: "50" } });
let orch: TestOrchestrator;
let tls: { server: https.Server; port: number; cert: string };

const adapter = (name: string, type: string, settings: Record<string, unknown>) => ({
  properties: { name, type: "Application", properties: { id: name, type, properties: settings } },
});

const health = async (name: string) => (await env.admin.get(`/health/adapters/${name}`)).body.results[0];

async function waitFor<T>(read: () => Promise<T>, ok: (value: T) => boolean, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  let last = await read();
  while (!ok(last) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    last = await read();
  }
  if (!ok(last)) throw new Error(`condition not met in ${ms} ms: ${JSON.stringify(last)}`);
  return last;
}

/** An HTTPS server with a self-signed certificate for 127.0.0.1. */
function startTlsServer(): Promise<typeof tls> {
  const dir = mkdtempSync(path.join(tmpdir(), "orch-tls-"));
  const [key, cert] = [path.join(dir, "key.pem"), path.join(dir, "cert.pem")];
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-keyout",
      key,
      "-out",
      cert,
    ],
    { stdio: "ignore" },
  );
  const server = https.createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_req, res) => {
    res.writeHead(200, { "content-type": "application/yang-data+json" });
    res.end(JSON.stringify({ secure: true }));
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, port: (server.address() as AddressInfo).port, cert: readFileSync(cert, "utf8") }),
    ),
  );
}

beforeAll(async () => {
  orch = await startOrchestrator();
  tls = await startTlsServer();
  const base = { host: "127.0.0.1", port: orch.port, healthCheckInterval: 200, timeout: 1000 };
  const secure = { protocol: "https", host: "127.0.0.1", port: tls.port, healthCheckInterval: 60_000 };
  for (const body of [
    adapter("nso", "NSO", base),
    adapter("flaky", "NSO", {
      ...base,
      healthCheckInterval: 86_400_000,
      breakerThreshold: 2,
      breakerCooldown: 400,
    }),
    adapter("lab", "Inventory", {}),
    adapter("aaa", "local_aaa", { host: "10.0.0.1" }),
    adapter("tls-strict", "NSO", secure),
    adapter("tls-ca", "NSO", { ...secure, ca: tls.cert }),
    adapter("tls-insecure", "NSO", { ...secure, rejectUnauthorized: false }),
  ])
    expect((await env.admin.post("/adapters", body)).status).toBe(200);
});

afterAll(async () => {
  await orch?.close();
  tls?.server.close();
});

describe("GET /health/adapters", () => {
  test("every adapter in the real product's shape; types with nothing to check say so", async () => {
    await waitFor(
      () => health("nso"),
      (h) => h.connection.state === "ONLINE",
    );
    const reply = await env.admin.get("/health/adapters");
    expect(reply.status).toBe(200);
    expect(reply.body.total).toBe(7);
    expect(reply.body.results.map((r: any) => r.id)).toEqual([
      "aaa",
      "flaky",
      "lab",
      "nso",
      "tls-ca",
      "tls-insecure",
      "tls-strict",
    ]);
    const nso = reply.body.results.find((r: any) => r.id === "nso");
    expect(nso).toMatchObject({ id: "nso", package_id: "adapter-nso", state: "RUNNING" });
    expect(nso.connection).toMatchObject({ state: "ONLINE", lastError: null, failures: 0 });
    expect(typeof nso.connection.latencyMs).toBe("number");
    const lab = reply.body.results.find((r: any) => r.id === "lab");
    expect(lab.connection).toEqual({ state: "NOT_CHECKED", reason: expect.stringContaining("inventory") });
    const aaa = reply.body.results.find((r: any) => r.id === "aaa");
    expect(aaa.connection).toEqual({ state: "NOT_CHECKED", reason: expect.stringContaining("local_aaa") });
  });

  test("equals / equalsField, skip, limit, sort and order", async () => {
    const one = await env.admin.get("/health/adapters?equals=lab&equalsField=id");
    expect(one.body).toMatchObject({ total: 1, results: [{ id: "lab" }] });
    const page = await env.admin.get("/health/adapters?sort=id&order=-1&skip=1&limit=2");
    expect(page.body.total).toBe(7);
    expect(page.body.results.map((r: any) => r.id)).toEqual(["tls-insecure", "tls-ca"]);
    expectError(await env.admin.get("/health/adapters?equalsField=password"), 400, "VALIDATION_ERROR");
    expectError(await env.admin.get("/health/adapters/nope"), 404, "NOT_FOUND");
  });

  test("health goes from up to down (DEAD after repeated failures) and back up; GET /adapters/:name shows it", async () => {
    orch.mode = "failing";
    try {
      const down = await waitFor(
        () => health("nso"),
        (h) => h.state === "DEAD",
      );
      expect(down.connection).toMatchObject({ state: "OFFLINE", lastError: "the orchestrator answered 503" });
      expect(down.connection.failures).toBeGreaterThanOrEqual(3);
      const read = await env.admin.get("/adapters/nso");
      expect(read.body).toMatchObject({ name: "nso", state: "DEAD", connection: { state: "OFFLINE" } });
    } finally {
      orch.mode = "up";
    }
    const up = await waitFor(
      () => health("nso"),
      (h) => h.connection.state === "ONLINE",
    );
    expect(up).toMatchObject({ state: "RUNNING", connection: { lastError: null, failures: 0 } });
  });
});

describe("lifecycle: PUT /adapters/:name/stop, /start, /restart", () => {
  const query = (name: string, p = "/restconf/data/tailf-ncs:devices") =>
    env.admin.post(`/orchestrator_manager/restQuery/${name}`, {
      params: { path: p, accept: "application/yang-data+json" },
    });

  test("a stopped adapter answers no proxy call (503 naming it) and is not checked; start brings it back", async () => {
    const stopped = await env.admin.put("/adapters/nso/stop");
    expect(stopped.body).toEqual({
      status: "OK",
      message: "Adapter 'nso' stopped",
      data: { name: "nso", state: "STOPPED" },
    });
    const refused = expectError(await query("nso"), 503, "ADAPTER_STOPPED");
    expect(refused.message).toContain("nso");
    expect(await health("nso")).toMatchObject({ state: "STOPPED", connection: { state: "OFFLINE" } });
    const checksBefore = orch.seen.filter((s) => s.url === "/").length;
    await new Promise((r) => setTimeout(r, 600));
    expect(orch.seen.filter((s) => s.url === "/").length).toBe(checksBefore);
    expect((await env.admin.put("/adapters/nso/start")).body.data).toEqual({ name: "nso", state: "RUNNING" });
    expect((await query("nso")).status).toBe(200);
    await waitFor(
      () => health("nso"),
      (h) => h.state === "RUNNING" && h.connection.state === "ONLINE",
    );
  });

  test("restart drops the adapter's connections: the next call opens a new one", async () => {
    await query("nso");
    const before = orch.connections;
    for (let i = 0; i < 3; i++) await query("nso");
    // Kept alive and reused: three calls in a row, no new connection each. A health check that
    // runs at the same moment as a call (every 200 ms here) may need a second one.
    expect(orch.connections - before).toBeLessThanOrEqual(1);
    expect((await env.admin.put("/adapters/nso/restart")).status).toBe(200);
    await query("nso");
    expect(orch.connections).toBeGreaterThan(before);
  });

  test("unknown adapter 404 for each verb", async () => {
    for (const verb of ["stop", "start", "restart"])
      expectError(await env.admin.put(`/adapters/nope/${verb}`), 404, "NOT_FOUND");
  });
});

describe("circuit breaker", () => {
  test("after the threshold of failures calls are refused at once; after the cooldown one trial goes through", async () => {
    const upstream = () => orch.seen.filter((s) => s.url.startsWith("/failing")).length;
    const start = upstream();
    expectError(await query2("flaky", "/failing"), 502, "BAD_GATEWAY");
    expectError(await query2("flaky", "/failing"), 502, "BAD_GATEWAY");
    const open = expectError(await query2("flaky", "/failing"), 503, "CIRCUIT_OPEN");
    expect(open.data.adapter).toBe("flaky");
    expect(upstream() - start).toBe(2);
    await new Promise((r) => setTimeout(r, 450));
    expect((await query2("flaky", "/restconf/data/tailf-ncs:devices")).status).toBe(200);
    expect((await query2("flaky", "/failing")).status).toBe(502); // closed again: it reaches the target
  });
});

describe("TLS options", () => {
  test("a self-signed target is refused without its CA, reached with it or with verification off", async () => {
    const strict = expectError(await query2("tls-strict", "/x"), 502, "BAD_GATEWAY");
    expect(JSON.stringify(strict.data)).toMatch(/SELF_SIGNED|CERT/);
    expect((await query2("tls-ca", "/x")).body).toEqual({ secure: true });
    expect((await query2("tls-insecure", "/x")).body).toEqual({ secure: true });
  });
});

function query2(name: string, p: string) {
  return env.admin.post(`/orchestrator_manager/restQuery/${name}`, {
    params: { path: p, accept: "application/yang-data+json" },
  });
}
