/**
 * Over a real NATS: the gateway and devices in one broker, the store and accounts in another, and
 * two adapters replicas. Device lookup crosses the bus (with its X-Failed-Adapters header); a stop
 * is obeyed by both replicas at once; the two replicas share each adapter's health checks (one
 * check per interval in all, not one per replica); an update reaches both at once.
 */
import { randomUUID } from "node:crypto";
import {
  client,
  expectError,
  login,
  startPlatform,
  tempDir,
  type Client,
  type Platform,
} from "../support/platform";
import { startOrchestrator, type TestOrchestrator } from "../support/orchestrator";

const NATS_URL = process.env.NATS_URL!;
const INTERVAL_MS = 500;

describe("adapters replicas over NATS", () => {
  const namespace = `t-${randomUUID().slice(0, 8)}`;
  const env = { TRANSPORTER: NATS_URL, NAMESPACE: namespace, ADAPTER_HEALTH_TICK_MS: "50" };
  const platforms: Platform[] = [];
  let orch: TestOrchestrator;
  let api: Client;

  const adapter = (name: string, type: string, settings: Record<string, unknown>) => ({
    properties: { name, type: "Application", properties: { id: name, type, properties: settings } },
  });

  beforeAll(async () => {
    orch = await startOrchestrator();
    platforms.push(await startPlatform({ services: ["store", "accounts"], dataDir: tempDir(), env }));
    platforms.push(await startPlatform({ services: ["adapters"], env }));
    platforms.push(await startPlatform({ services: ["adapters"], env }));
    const front = await startPlatform({ services: ["gateway", "devices"], env });
    platforms.push(front);
    await front.broker.waitForServices(["accounts", "adapters", "devices"], 10_000);
    api = client(front.baseUrl, await login(front.baseUrl));
    const base = { host: "127.0.0.1", port: orch.port, healthCheckInterval: INTERVAL_MS };
    for (const body of [
      adapter("nso", "NSO", base),
      adapter("down", "NSO", { host: "127.0.0.1", port: 1, timeout: 2000, healthCheckInterval: 3_600_000 }),
      adapter("lab", "Inventory", {}),
    ])
      expect((await api.post("/adapters", body)).status).toBe(200);
    expect((await api.put("/adapters/lab/devices/sw-9", { address: "10.0.0.9" })).status).toBe(200);
  });

  afterAll(async () => {
    for (const p of platforms.reverse()) await p.stop();
    await orch?.close();
  });

  test("device lookup gathers across the bus and names the failed adapter in its header", async () => {
    const reply = await api.post("/mop/deviceObjects", { options: {} });
    expect(reply.status).toBe(200);
    expect(reply.body.map((d: any) => `${d.host}/${d.name}`)).toEqual(["nso/ce0", "nso/pe1", "lab/sw-9"]);
    expect(reply.headers.get("x-failed-adapters")).toBe("down (BAD_GATEWAY)");
  });

  test("two replicas share the health checks: about one per interval in all", async () => {
    const checks = () => orch.seen.filter((s) => s.url === "/").length;
    const before = checks();
    const windowMs = 3000;
    await new Promise((r) => setTimeout(r, windowMs));
    const done = checks() - before;
    // One per interval would be 6; each replica checking on its own would be about 12.
    expect(done).toBeGreaterThanOrEqual(4);
    expect(done).toBeLessThanOrEqual(8);
    const health = (await api.get("/health/adapters/nso")).body.results[0];
    expect(health).toMatchObject({ state: "RUNNING", connection: { state: "ONLINE" } });
  });

  test("a stop is obeyed by both replicas at once; a start by both", async () => {
    const query = () =>
      api.post("/orchestrator_manager/restQuery/nso", {
        params: { path: "/restconf/data/tailf-ncs:devices", accept: "application/yang-data+json" },
      });
    expect((await api.put("/adapters/nso/stop")).status).toBe(200);
    for (let i = 0; i < 6; i++) expectError(await query(), 503, "ADAPTER_STOPPED");
    expect((await api.put("/adapters/nso/start")).status).toBe(200);
    for (let i = 0; i < 6; i++) expect((await query()).status).toBe(200);
  });

  test("an update reaches both replicas: each one's next call goes to the new target", async () => {
    const settings = {
      host: "127.0.0.1",
      timeout: 2000,
      breakerThreshold: 1000,
      healthCheckInterval: 3_600_000,
    };
    const moving = (port: number) => adapter("moving", "NSO", { ...settings, port });
    expect((await api.post("/adapters", moving(1))).status).toBe(200);
    const front = platforms[platforms.length - 1].broker;
    const replicas = [platforms[1].broker.nodeID, platforms[2].broker.nodeID];
    /** restQuery on one replica (through the broker, to that node): its status. */
    const queryOn = (nodeID: string) =>
      front
        .call(
          "adapters.restQuery",
          {
            adapterId: "moving",
            params: { path: "/restconf/data/tailf-ncs:devices", accept: "application/yang-data+json" },
          },
          { nodeID },
        )
        .then(
          () => 200,
          (err: any) => err.code as number,
        );
    for (const node of replicas) expect(await queryOn(node)).toBe(502);
    expect((await api.put("/adapters/moving/properties", moving(orch.port))).status).toBe(200);
    const seen = orch.seen.length;
    for (const node of replicas) expect(await queryOn(node)).toBe(200);
    expect(orch.seen.slice(seen).filter((r) => r.url.startsWith("/restconf")).length).toBe(2);
  });
});
