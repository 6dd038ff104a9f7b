/**
 * How long a SIGKILLed replica keeps receiving calls (docs/deployment.md#high-availability):
 * `npm run bench:failover`.
 *
 * Separate processes over a real NATS (NATS_URL, default nats://127.0.0.1:4222): the store, two
 * accounts replicas and a gateway. A request every INTERVAL_MS, alternately a read (GET a page of
 * accounts) and a write (POST a group, each with its own Idempotency-Key), goes through the gateway; one accounts replica is
 * SIGKILLed mid-stream, ROUNDS times (a fresh replica is started after each kill). For every
 * round it prints the requests that failed and the requests that waited on the dead node (over
 * SLOW_MS), and the last moment, after the kill, at which such a request was sent: the time the
 * dead node kept receiving calls.
 *
 * Env: NATS_URL, BENCH_ROUNDS (3), BENCH_INTERVAL_MS (20), BENCH_SLOW_MS (1500).
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import { scratchSpace, spawnTracked } from "./support/children";
import { runBench } from "./support/main";
import { intEnv } from "./support/env";
import { PLATFORM_NODE_FLAGS } from "../app/node-flags";

const NATS_URL = process.env.NATS_URL || "nats://127.0.0.1:4222";
const ROUNDS = intEnv("BENCH_ROUNDS", 3, 1);
const INTERVAL_MS = intEnv("BENCH_INTERVAL_MS", 20, 1);
const SLOW_MS = intEnv("BENCH_SLOW_MS", 1500, 100);
const PASSWORD = "failover-bench-password";
const RUNNER = path.resolve(__dirname, "../app/main.js");
const namespace = `failover-${randomUUID().slice(0, 6)}`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function spawnNode(env: Record<string, string>) {
  return spawnTracked(process.execPath, [...PLATFORM_NODE_FLAGS, RUNNER], {
    stdio: ["ignore", "inherit", "inherit"],
    env: {
      PATH: process.env.PATH ?? "",
      TRANSPORTER: NATS_URL,
      NAMESPACE: namespace,
      ADMIN_PASSWORD: PASSWORD,
      LOG_LEVEL: "warn",
      METRICS_PORT: "off",
      RATE_LIMIT: "0",
      ...env,
    },
  });
}

interface Sent {
  at: number;
  ms: number;
  status: number;
  what: string;
}

async function main(): Promise<void> {
  const dataDir = scratchSpace("bench-failover-");
  const port = 3900 + Math.floor(Math.random() * 90);
  const base = `http://127.0.0.1:${port}`;
  spawnNode({ SERVICES: "store", DATA_DIR: dataDir() });
  let victim = spawnNode({ SERVICES: "accounts" });
  spawnNode({ SERVICES: "accounts" });
  spawnNode({ SERVICES: "gateway", PORT: String(port), HOST: "127.0.0.1" });
  let token = "";
  for (let i = 0; i < 300 && !token; i++) {
    await sleep(200);
    const res = await fetch(`${base}/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ user: { username: "admin", password: PASSWORD } }),
    }).catch(() => undefined);
    if (res?.status === 200) token = await res.text();
  }
  if (!token) throw new Error("the gateway never answered a login");
  await sleep(2000); // both replicas known to the gateway
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };

  for (let round = 1; round <= ROUNDS; round++) {
    const sent: Sent[] = [];
    let done = false;
    // Open loop: a request every INTERVAL_MS whatever the others do, so one waiting on the dead node
    // holds up no other, and each one sent after the kill shows where the gateway routed it.
    const inFlight: Promise<void>[] = [];
    const fire = async (i: number) => {
      const write = i % 2 === 0;
      const at = Date.now();
      const res = await fetch(
        write ? `${base}/user-management/groups` : `${base}/user-management/accounts?limit=1`,
        {
          method: write ? "POST" : "GET",
          headers: write ? { ...headers, "idempotency-key": randomUUID() } : headers,
          body: write ? JSON.stringify({ name: `g-${round}-${i}-${randomUUID().slice(0, 6)}` }) : undefined,
        },
      ).catch(() => undefined);
      await res?.text();
      sent.push({ at, ms: Date.now() - at, status: res?.status ?? 0, what: write ? "POST" : "GET" });
    };
    const ticker = (async () => {
      for (let i = 0; !done; i++) {
        inFlight.push(fire(i));
        await sleep(INTERVAL_MS);
      }
    })();
    const clients = [ticker.then(() => Promise.all(inFlight))];
    await sleep(1000);
    const killedAt = Date.now();
    victim.kill("SIGKILL");
    console.log(`round ${round}: SIGKILL at ${new Date(killedAt).toISOString()}`);
    await sleep(15_000);
    done = true;
    await Promise.all(clients);
    const after = sent.filter((s) => s.at >= killedAt - 50);
    const hit = after.filter((s) => s.status !== 200 || s.ms > SLOW_MS);
    const failed = hit.filter((s) => s.status !== 200);
    const last = hit.length ? Math.max(...hit.map((s) => s.at - killedAt)) : 0;
    const statuses = [...new Set(failed.map((s) => `${s.what} ${s.status}`))].join(", ");
    console.log(
      `round ${round}: ${after.length} requests after the kill; ${failed.length} failed (${statuses || "none"}), ` +
        `${hit.length - failed.length} slow (> ${SLOW_MS} ms, longest ${Math.max(0, ...hit.map((s) => s.ms))} ms); ` +
        `the dead node received calls for ${last} ms after the kill`,
    );
    victim = spawnNode({ SERVICES: "accounts" });
    await sleep(8000); // the fresh replica has joined
  }
}

runBench(main);
