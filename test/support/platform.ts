/**
 * Test harness: a platform on ServiceBrokers, reachable over HTTP on a random port.
 *  - startPlatform(): every service in one broker, no transporter (the embedded default).
 *  - with `transporter`, `services` and a shared `namespace`, several brokers form one cluster
 *    over a real NATS, as separate deployments would.
 *  - TEST_TOPOLOGY=split (the container suite, `npm run test:containers`): startPlatform() for the
 *    whole platform starts every service in a broker of its own over NATS_URL, on MongoDB when
 *    MONGO_URL is set (a database per platform, dropped on stop), else on a `store` broker.
 */
import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import type { CallingOptions, ServiceBroker } from "moleculer";
import { loadConfig, type PlatformConfig } from "../../shared/config";
import { bindConfig } from "../../shared/runtime";
import { createBroker } from "../../app/broker";
import { ALL_SERVICES } from "../../app/services";
import { nodeSchemas } from "../../app/platform-node";
import { containerStoreEnv } from "./container-store";
import { catalogueEntry } from "../../shared/errors";

export const ADMIN_PASSWORD = "admin-test-password";

export interface Platform {
  broker: ServiceBroker;
  config: PlatformConfig;
  /** http://127.0.0.1:<port> when this broker runs the gateway. */
  baseUrl: string;
  dataDir: string;
  stop(): Promise<void>;
}

export interface PlatformOptions {
  env?: Record<string, string>;
  services?: string[];
  dataDir?: string;
  /** The test's own `platform.broker.call` without a caller is refused too (see testCallsAsPlatform). */
  strictCalls?: boolean;
}

export function tempDir(prefix = "platform-test-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export async function startPlatform(options: PlatformOptions = {}): Promise<Platform> {
  if (process.env.TEST_TOPOLOGY === "split" && !options.services && !options.dataDir)
    return startSplitPlatform(options);
  const dataDir = options.dataDir ?? tempDir();
  const config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    ADMIN_PASSWORD,
    LOG_LEVEL: "warn",
    RATE_LIMIT: "0",
    // Metrics on, as in production, on a free port (many brokers share one test process).
    METRICS_PORT: "0",
    // Brokers in one process would otherwise share the default hostname-pid node id on the bus.
    NODE_ID: `test-${randomUUID().slice(0, 8)}`,
    ...runLogEnv(),
    ...(options.services && { SERVICES: options.services.join(",") }),
    ...containerStoreEnv({ DATA_DIR: dataDir, ...options.env }),
    ...options.env,
  });
  const broker = createBroker(config);
  for (const schema of nodeSchemas(config)) broker.createService(schema);
  await broker.start();
  const gateway = broker.getLocalService("gateway") as unknown as
    { server?: { address(): AddressInfo } } | undefined;
  const port = gateway?.server?.address().port;
  return {
    broker: options.strictCalls ? broker : testCallsAsPlatform(broker, config),
    config,
    dataDir,
    baseUrl: port ? `http://127.0.0.1:${port}` : "",
    stop: () => broker.stop(),
  };
}

/**
 * A test's own direct calls (`platform.broker.call` with no caller) are the platform's: the
 * internal identity (shared/authorization.ts), as an operator's script on a node would make them.
 * Only the test's handle is wrapped: the services on the broker keep the broker as production has
 * it, so a service call that names neither a caller nor the platform is refused in every suite.
 * Suites that test authorization itself start with `strictCalls` and get the broker untouched.
 */
function testCallsAsPlatform(broker: ServiceBroker, config: PlatformConfig): ServiceBroker {
  const call = (action: string, params?: unknown, opts: CallingOptions = {}) => {
    const meta = (opts.meta ?? {}) as { caller?: unknown; platform?: unknown };
    const named =
      meta.caller !== undefined || "platform" in meta || opts.parentCtx || (opts as { ctx?: unknown }).ctx;
    return broker.call(action, params, named ? opts : { ...opts, meta: { ...opts.meta, platform: true } });
  };
  const handle = new Proxy(broker, {
    get(target, key) {
      if (key === "call") return call;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  // Helpers that look a broker's config up (acquireStore's store, configOf) find it by the handle too.
  bindConfig(handle, config);
  return handle;
}

/**
 * The whole platform as separate deployments run it: one broker per service, one namespace on a
 * real NATS, the store shared (MongoDB, or the `store` service over the bus). The Platform returned
 * is the gateway's; its broker reaches every service over the bus. Resolves once /ready answers 200.
 */
async function startSplitPlatform(options: PlatformOptions): Promise<Platform> {
  const dataDir = tempDir("platform-split-");
  const namespace = `split-${randomUUID().slice(0, 8)}`;
  const mongoUrl = process.env.MONGO_URL;
  const mongoDb = `test_${namespace.replace(/-/g, "_")}`;
  const env: Record<string, string> = {
    TRANSPORTER: process.env.NATS_URL || "nats://127.0.0.1:4222",
    NAMESPACE: namespace,
    // Every process must share the key (docs/deployment.md); one generated each would not.
    ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    // A dozen brokers in one process: each its own metrics port, never the fixed default.
    METRICS_PORT: "0",
    ...(mongoUrl ? { MONGO_URL: mongoUrl, MONGO_DB: mongoDb, STORE: "mongo" } : {}),
    ...options.env,
  };
  const start = (service: string) =>
    startPlatform({ services: [service], dataDir, env, strictCalls: options.strictCalls });
  const parts: Platform[] = [];
  const stopAll = async () => {
    await Promise.allSettled(parts.reverse().map((p) => p.stop()));
    if (mongoUrl) {
      const { MongoClient } = await import("mongodb");
      const admin = new MongoClient(mongoUrl);
      await admin.db(mongoDb).dropDatabase();
      await admin.close();
    }
  };
  try {
    if (!mongoUrl) parts.push(await start("store"));
    const rest = ALL_SERVICES.filter((s) => s !== "store" && s !== "gateway");
    parts.push(...(await Promise.all(rest.map(start))));
    const gateway = await start("gateway");
    parts.push(gateway);
    const until = Date.now() + 30_000;
    for (;;) {
      const ready = await fetch(`${gateway.baseUrl}/ready`).catch(() => undefined);
      if (ready?.status === 200) break;
      if (Date.now() > until) throw new Error(`split platform not ready: ${ready && (await ready.text())}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return { ...gateway, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body (undefined when the body is not JSON). */
  body: any;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Raw body text (sent as is, with the given or a JSON content type). */
  raw?: string;
  headers?: Record<string, string>;
}

export async function request(
  baseUrl: string,
  method: string,
  url: string,
  options: RequestOptions = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let payload: string | undefined = options.raw;
  if (options.body !== undefined) payload = JSON.stringify(options.body);
  if (payload !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === "content-type"))
    headers["content-type"] = "application/json";
  const {
    status,
    headers: replyHeaders,
    text,
  } = payload !== undefined && (method === "GET" || method === "DELETE")
    ? await viaHttp(baseUrl + url, method, headers, payload)
    : await viaFetch(baseUrl + url, method, headers, payload);
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status, headers: replyHeaders, text, body };
}

async function viaFetch(url: string, method: string, headers: Record<string, string>, payload?: string) {
  const res = await fetch(url, { method, headers, body: payload });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** fetch refuses a body on GET; docs/platform-rules.md#object-parameters-on-get accepts one, so send it with node:http. */
function viaHttp(
  url: string,
  method: string,
  headers: Record<string, string>,
  payload: string,
): Promise<{ status: number; headers: Headers; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method, headers: { ...headers, "content-length": Buffer.byteLength(payload) } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => {
          const replyHeaders = new Headers();
          for (const [k, v] of Object.entries(res.headers))
            if (v !== undefined) replyHeaders.set(k, Array.isArray(v) ? v.join(", ") : v);
          resolve({ status: res.statusCode ?? 0, headers: replyHeaders, text });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** A client bound to one platform, optionally signed in. */
export function client(baseUrl: string, token?: string) {
  const send = (method: string, url: string, options: RequestOptions = {}) =>
    request(baseUrl, method, url, { token, ...options });
  return {
    get: (url: string, options?: RequestOptions) => send("GET", url, options),
    post: (url: string, body?: unknown, options?: RequestOptions) => send("POST", url, { body, ...options }),
    put: (url: string, body?: unknown, options?: RequestOptions) => send("PUT", url, { body, ...options }),
    patch: (url: string, body?: unknown, options?: RequestOptions) =>
      send("PATCH", url, { body, ...options }),
    delete: (url: string, options?: RequestOptions) => send("DELETE", url, options),
    send,
  };
}

export async function login(baseUrl: string, username = "admin", password = ADMIN_PASSWORD): Promise<string> {
  const reply = await request(baseUrl, "POST", "/login", { body: { user: { username, password } } });
  if (reply.status !== 200) throw new Error(`login as ${username} failed: ${reply.status} ${reply.text}`);
  noteSecret(reply.text);
  return reply.text;
}

/** Notes a secret the run used: the run's log must never hold it (test/support/global-teardown.js). */
export function noteSecret(secret: string): void {
  if (process.env.TEST_SECRETS_FILE) fs.appendFileSync(process.env.TEST_SECRETS_FILE, secret + "\n");
}

/**
 * What every spawned platform of the run inherits (global-setup.js): its log lines go to the run's log at
 * info, and its unindexed queries to the run's index check.
 */
export function runLogEnv(): Record<string, string> {
  return {
    ...(process.env.TEST_LOG_FILE ? { LOG_FILE: process.env.TEST_LOG_FILE, LOG_FILE_LEVEL: "info" } : {}),
    // The index plan's check (shared/store/embedded/query-shapes.ts) covers spawned platforms too.
    ...(process.env.STORE_QUERY_SHAPES ? { STORE_QUERY_SHAPES: process.env.STORE_QUERY_SHAPES } : {}),
  };
}

/** Asserts docs/platform-rules.md#errors's error body and returns it. */
/**
 * An error answer of docs/platform-rules.md#errors: the status and type, the catalogue's `name` for
 * them (shared/errors.ts), and a `data` member.
 */
export function expectError(reply: Reply, status: number, type: string): any {
  expect({ status: reply.status, type: reply.body?.type }).toEqual({ status, type });
  expect(reply.body).toEqual(
    expect.objectContaining({
      name: catalogueEntry(status, type).name,
      message: expect.any(String),
      code: status,
      type,
      data: expect.anything(),
    }),
  );
  expect(reply.text).not.toMatch(/\n\s+at /); // never a stack trace
  return reply.body;
}

export type Client = ReturnType<typeof client>;

/** A client that remembers every reply it got, so a test can search them all for secrets. */
export function tracked(api: Client, seen: Reply[]): Client {
  const wrap =
    <A extends unknown[]>(fn: (...args: A) => Promise<Reply>) =>
    async (...args: A) => {
      const reply = await fn(...args);
      seen.push(reply);
      return reply;
    };
  return {
    get: wrap(api.get),
    post: wrap(api.post),
    put: wrap(api.put),
    patch: wrap(api.patch),
    delete: wrap(api.delete),
    send: wrap(api.send),
  };
}

/** The password of every account `clientWithRoles` makes. */
export const ROLE_HOLDER_PASSWORD = "role-holder-password";

/** A new account in a new group holding exactly `roles`, signed in. */
export async function clientWithRoles(
  platform: Pick<Platform, "baseUrl">,
  admin: Client,
  roles: string[],
): Promise<Client> {
  const suffix = randomUUID().slice(0, 8);
  const group = await admin.post("/user-management/groups", { name: `g-${suffix}`, assignedRoles: roles });
  expect(group.status).toBe(200);
  const username = `u-${suffix}`;
  const password = ROLE_HOLDER_PASSWORD;
  const account = await admin.post("/user-management/accounts", {
    username,
    password,
    groups: [`g-${suffix}`],
  });
  expect(account.status).toBe(200);
  return client(platform.baseUrl, await login(platform.baseUrl, username, password));
}

/** A suite's platform and its signed-in admin, started once before the suite's tests (see usePlatform). */
export interface PlatformEnv {
  readonly platform: Platform;
  readonly admin: Client;
}

/**
 * The set-up most suites share: registers a beforeAll that starts a platform with `options` and signs
 * the admin in, and an afterAll that stops it. Returns getters rather than values because the
 * platform exists only once beforeAll has run; reading one earlier (at module load) throws.
 * A suite needing more set-up (other clients, fixtures) adds its own beforeAll after this call:
 * Jest runs beforeAll hooks in the order they are registered. `timeout` (ms) is the start hook's own,
 * for a suite whose platform may start slower than Jest's default allows.
 */
export function usePlatform(options: PlatformOptions = {}, timeout?: number): PlatformEnv {
  let platform: Platform | undefined;
  let admin: Client | undefined;
  beforeAll(async () => {
    platform = await startPlatform(options);
    admin = client(platform.baseUrl, await login(platform.baseUrl));
  }, timeout);
  afterAll(() => platform?.stop());
  const started = <T>(value: T | undefined): T => {
    if (value === undefined)
      throw new Error("usePlatform: the platform starts in beforeAll; read it in a hook or test");
    return value;
  };
  return {
    get platform() {
      return started(platform);
    },
    get admin() {
      return started(admin);
    },
  };
}
