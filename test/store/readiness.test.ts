/**
 * `/ready` pings the store (docs/operations-guide.md#probes): the gateway's `/ready` and the
 * metrics-port `/ready` of every other process answer 503 once the store their services hold cannot
 * answer, and 200 again when it can. A process whose services hold no store pings none. Over a real
 * NATS: the store service in one process, the services using it (remote store) in others.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { ServiceBroker } from "moleculer";
import { startPlatform, tempDir, type Platform } from "../support/platform";

const namespace = `ready-${randomUUID().slice(0, 8)}`;
const env = {
  TRANSPORTER: process.env.NATS_URL || "nats://127.0.0.1:4222",
  NAMESPACE: namespace,
  ENCRYPTION_KEY: randomBytes(32).toString("hex"),
  METRICS_PORT: "0",
  STORE: "",
};
const dataDir = tempDir("ready-");
const started: Platform[] = [];
const start = async (services: string[]) => {
  const platform = await startPlatform({ services, dataDir, env });
  started.push(platform);
  return platform;
};
afterAll(async () => {
  await Promise.allSettled(started.reverse().map((p) => p.stop()));
});

function probeUrl(broker: ServiceBroker): string {
  const reporter = (broker.metrics as any).reporter[0];
  return `http://127.0.0.1:${reporter.server.address().port}/ready`;
}

async function probe(url: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.json() };
}

/** Polls `url` until it answers `status` (the bus needs a moment to tell a node has left or come). */
async function until(url: string, status: number): Promise<{ status: number; body: any }> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const reply = await probe(url);
    if (reply.status === status || Date.now() > deadline) return reply;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test("every process's /ready answers 503 while its store cannot answer, 200 again once it can", async () => {
  let store = await start(["store"]);
  const devices = await start(["devices"]);
  const edge = await start(["gateway", "accounts"]);
  const alone = await start(["gateway"]);

  const devicesReady = probeUrl(devices.broker);
  const gatewayReady = `${edge.baseUrl}/ready`;
  expect(await until(devicesReady, 200)).toEqual({
    status: 200,
    body: { status: "ready", checks: { broker: "ok", bus: "ok", store: "ok" } },
  });
  // The gateway is not ready as a whole here (most services behind its routes are not started): its
  // store check is what this test reads.
  const gatewayStore = async () => {
    const { body } = await probe(gatewayReady);
    return (body.checks ?? body.data?.checks)?.store;
  };
  expect(await gatewayStore()).toBe("ok");
  // A process whose services hold no store has nothing to ping.
  expect((await probe(probeUrl(alone.broker))).body.checks).toEqual({ broker: "ok", bus: "ok" });

  await store.stop();
  const down = await until(devicesReady, 503);
  expect(down).toEqual({
    status: 503,
    body: { status: "not ready", checks: { broker: "ok", bus: "ok", store: "unreachable" } },
  });
  const gatewayDown = await probe(gatewayReady);
  expect(gatewayDown.status).toBe(503);
  expect(await gatewayStore()).toBe("unreachable");

  store = await start(["store"]);
  expect((await until(devicesReady, 200)).status).toBe(200);
  expect(await gatewayStore()).toBe("ok");
}, 60_000);
