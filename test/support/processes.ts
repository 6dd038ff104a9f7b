/**
 * Runs platform services as separate OS processes (`node dist/app/main.js`), the way one
 * deployment per service runs them. jest's globalSetup builds dist/ first.
 */
import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { ADMIN_PASSWORD, runLogEnv, tempDir } from "./platform";
import { containerStoreEnv } from "./container-store";

const RUNNER = path.resolve(__dirname, "../../dist/app/main.js");

export interface ServiceProcess {
  child: ChildProcess;
  /** Everything the process printed, for failure messages. */
  output(): string;
  /** SIGTERM (graceful) or SIGKILL; resolves when the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export function spawnServices(env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, [RUNNER], {
    env: {
      PATH: process.env.PATH ?? "",
      LOG_LEVEL: "warn",
      RATE_LIMIT: "0",
      METRICS_PORT: "0",
      ...runLogEnv(),
      ...containerStoreEnv(env),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stdout!.on("data", (d) => (log += d));
  child.stderr!.on("data", (d) => (log += d));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    child,
    output: () => log,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/** Polls `check` until it returns true or `timeoutMs` passes. */
export async function eventually(
  check: () => Promise<boolean>,
  timeoutMs = 15_000,
  what = "condition",
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** A TCP port free on 127.0.0.1 right now (for a process that must be told its port; tests and benches). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A whole platform (`npm start`'s one process, embedded store) on a free port, ready. */
export interface SpawnedPlatform {
  process: ServiceProcess;
  baseUrl: string;
  /** The process id the stall probes read the main thread's CPU time of (loop-probe.ts). */
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts the platform as its own process (a temporary data directory, the test admin password,
 * `env` on top) and waits until `/ready` answers 200.
 */
export async function spawnPlatform(env: Record<string, string> = {}): Promise<SpawnedPlatform> {
  const port = await freePort();
  const child = spawnServices({
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: tempDir(),
    ADMIN_PASSWORD,
    ...env,
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await eventually(async () => (await fetch(`${baseUrl}/ready`)).status === 200, 30_000, "the platform");
  return { process: child, baseUrl, pid: child.child.pid!, stop: () => child.stop() };
}
