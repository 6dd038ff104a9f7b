/**
 * "Ours": the real platform, started the way production starts it (createBroker + serviceSchemas,
 * or `node dist/app/main.js` for the remote half), seeded over its own HTTP API.
 */
import path from "node:path";
import type { AddressInfo } from "node:net";
import { ServiceBroker } from "moleculer";
import { brokerOptions } from "../../app/broker-options";
import { loadConfig } from "../../shared/config";
import { createBroker } from "../../app/broker";
import { serviceSchemas } from "../../app/services";
import { PLATFORM_NODE_FLAGS } from "../../app/node-flags";
import { spawnTracked } from "./children";
import type { BusTuning } from "./floor";

export const ADMIN_PASSWORD = "bench-admin-password";
export const PAGE_PATH = "/user-management/accounts?limit=10";

/** The port the broker's moleculer-web service listens on (PORT=0 picks a free one). */
export function httpUrl(broker: ServiceBroker): string {
  const gw = broker.services.find((s) => (s as any).server?.address?.());
  if (!gw) throw new Error("no HTTP gateway on this broker");
  return `http://127.0.0.1:${((gw as any).server.address() as AddressInfo).port}`;
}

/** Env of a platform process in the bench: quiet, no rate limit, loopback only. */
export function platformEnv(extra: Record<string, string>): Record<string, string> {
  return {
    PORT: "0",
    HOST: "127.0.0.1",
    ADMIN_PASSWORD,
    RATE_LIMIT: "0",
    LOG_LEVEL: "warn",
    // Off unless a scenario turns them on (bench:gateway measures their cost on against off), or
    // BENCH_METRICS=1 runs the platform as deployed (metrics on, the default outside benches) where
    // a bench leaves the choice to this default (the observability harnesses set it per mode).
    METRICS_PORT: process.env.BENCH_METRICS === "1" ? "0" : "off",
    ...extra,
  };
}

/**
 * One broker in this process with the given env. Bus tuning beyond SERIALIZER (which the config
 * reads) is applied on top of app/broker-options.ts's options, to try a setting before it is adopted.
 */
export async function startPlatform(
  env: Record<string, string>,
  tuning?: Partial<BusTuning>,
): Promise<ServiceBroker> {
  const config = loadConfig(env);
  const broker =
    tuning?.disableBalancer !== undefined
      ? new ServiceBroker({ ...brokerOptions(config), disableBalancer: tuning.disableBalancer })
      : createBroker(config);
  for (const schema of serviceSchemas(config)) broker.createService(schema);
  await broker.start();
  return broker;
}

/**
 * The store and accounts in another process, over the bus. With no tuning this is exactly
 * `node <PLATFORM_NODE_FLAGS> dist/app/main.js`; watchdog.js is preloaded so the child dies with the bench.
 * disableBalancer (not an env setting yet) and `localTask` (the engine workload's no-op task
 * service on the same broker) need platform-node.js, main.js plus those.
 */
export function spawnPlatformNode(
  env: Record<string, string>,
  tuning?: Partial<BusTuning>,
  extras: { localTask?: boolean } = {},
) {
  const dist = path.resolve(__dirname, "../..");
  const script =
    tuning?.disableBalancer !== undefined || extras.localTask
      ? path.join(dist, "bench/support/platform-node.js")
      : path.join(dist, "app/main.js");
  return spawnTracked(
    process.execPath,
    [...PLATFORM_NODE_FLAGS, ...profileArgs(), "--require", path.join(__dirname, "watchdog.js"), script],
    {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      env: {
        ...process.env,
        ...env,
        BENCH_DISABLE_BALANCER: String(tuning?.disableBalancer ?? ""),
        BENCH_LOCAL_TASK: extras.localTask ? "1" : "",
      },
    },
  );
}

/** BENCH_PROFILE_DIR=dir: children write V8 CPU profiles there (run the bench itself with --cpu-prof). */
export function profileArgs(): string[] {
  const dir = process.env.BENCH_PROFILE_DIR;
  return dir ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(dir)}`] : [];
}

async function http(
  url: string,
  init: RequestInit & { expect?: number[] } = {},
): Promise<{ status: number; body: Buffer; type: string }> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
  const body = Buffer.from(await res.arrayBuffer());
  if (init.expect && !init.expect.includes(res.status))
    throw new Error(`${init.method ?? "GET"} ${url} -> ${res.status}: ${body.toString().slice(0, 300)}`);
  return { status: res.status, body, type: res.headers.get("content-type") ?? "" };
}

/**
 * Logs in as admin and makes sure `accounts` accounts exist besides admin (a 409 means it already
 * does). Returns the token and one real answer of the measured page.
 */
export async function seed(
  baseUrl: string,
  accounts: number,
): Promise<{ token: string; page: { body: Buffer; type: string } }> {
  const login = await http(`${baseUrl}/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ user: { username: "admin", password: ADMIN_PASSWORD } }),
    expect: [200],
  });
  const token = login.body.toString();
  const auth = { Authorization: `Bearer ${token}` };
  // A few at a time: each create hashes a password with scrypt on the thread pool.
  const names = Array.from({ length: accounts }, (_, i) => `bench-user-${String(i).padStart(3, "0")}`);
  for (let i = 0; i < names.length; i += 4) {
    await Promise.all(
      names.slice(i, i + 4).map((username) =>
        http(`${baseUrl}/user-management/accounts`, {
          method: "POST",
          headers: { ...auth, "Content-Type": "application/json" },
          body: JSON.stringify({ username, password: `${username}-password` }),
          expect: [200, 201, 409],
        }),
      ),
    );
  }
  const page = await http(`${baseUrl}${PAGE_PATH}`, { headers: auth, expect: [200] });
  const parsed = JSON.parse(page.body.toString());
  if (!Array.isArray(parsed.results) || parsed.results.length !== 10)
    throw new Error(`the accounts page should hold 10 results: ${page.body.toString().slice(0, 300)}`);
  return { token, page };
}

/**
 * Waits (at most `ms`) until `services` answer on the bus of `natsUrl` / `namespace`, with a bare
 * broker of its own. A platform process waits 10 s for the store it calls; on a loaded machine a
 * store child can take longer than that to start, so the bench waits for it before starting others.
 */
export async function waitForRemote(
  natsUrl: string,
  namespace: string,
  services: string[],
  ms = 60_000,
  serializer = "JSON",
): Promise<void> {
  const probe = new ServiceBroker({
    nodeID: `bench-probe-${process.pid}-${Date.now().toString(36)}`,
    namespace,
    transporter: { type: "NATS", options: { url: natsUrl } },
    // The platform's nodes' serializer: a packet in another one is refused.
    serializer: serializer as "JSON",
    logger: false,
  });
  await probe.start();
  try {
    await probe.waitForServices(services, ms);
  } finally {
    await probe.stop();
  }
}
