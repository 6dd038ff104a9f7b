/**
 * The container artifacts (deploy/Dockerfile, .dockerignore, docker-compose.yml) can't be built or
 * run here (no Docker engine), so they are parsed and checked against the code: the services they
 * run, the env names shared/config.ts reads, the health checks against a real gateway and metrics
 * endpoint, the drain's time, the built entrypoint, and the secret rules of docs/deployment.md.
 * deploy/k8s is checked in k8s.test.ts.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { PLATFORM_NODE_FLAGS } from "../../app/node-flags";
import { ALL_SERVICES } from "../../app/services";
import { loadConfig } from "../../shared/config";
import { chooseBackend } from "../../shared/store";
import { startPlatform, type Platform } from "../support/platform";
import {
  CONFIG_NAMES,
  METRICS_IN_CODE,
  ROOT,
  drainSeconds,
  knownEnv,
  metricsPort,
  parseYaml,
  read,
} from "./manifests";

const PLATFORM_SERVICES = ALL_SERVICES.filter((s) => s !== "store");
const SECRET_NAME = /PASSWORD|SECRET|TOKEN|KEY|MONGO_URL/;
/** A valid stand-in for a required secret, so loadConfig can run on the deployed env. */
const DUMMY_KEY = "0".repeat(64);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.once("error", reject);
  });
}

test("the config env scan finds the settings deployments rely on", () => {
  // Guards against a regex that silently matches nothing and makes the env checks vacuous.
  for (const name of ["PORT", "SERVICES", "TRANSPORTER", "MONGO_URL", "ENCRYPTION_KEY", "ADMIN_PASSWORD"]) {
    expect(CONFIG_NAMES).toContain(name);
  }
});

describe("Dockerfile", () => {
  type Instr = { op: string; args: string };
  const stages: Instr[][] = [];
  for (const line of read("deploy/Dockerfile")
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"))) {
    const [, op, args] = /^(\S+)\s+(.*)$/.exec(line)!;
    if (op.toUpperCase() === "FROM") stages.push([]);
    stages[stages.length - 1].push({ op: op.toUpperCase(), args });
  }
  const runtime = stages[stages.length - 1];
  const all = (stage: Instr[], op: string) => stage.filter((i) => i.op === op).map((i) => i.args);
  const last = (stage: Instr[], op: string) => all(stage, op).at(-1);
  const runtimeEnv: Record<string, string> = {};
  for (const args of all(runtime, "ENV")) {
    for (const m of args.matchAll(/([A-Z_]+)=(\S+)/g)) runtimeEnv[m[1]] = m[2];
  }

  test("is multi-stage on the node 24 slim base: build with dev deps, run with production deps only", () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) expect(stage[0].args).toMatch(/^node:24-bookworm-slim(\s|$)/);
    const buildStage = /\bAS\s+(\S+)/i.exec(stages[0][0].args)![1];
    const buildRuns = all(stages[0], "RUN").join("\n");
    expect(buildRuns).toMatch(/\bnpm install\b/);
    expect(buildRuns).toMatch(/\bnpm run build\b/);
    const runtimeRuns = all(runtime, "RUN").join("\n");
    expect(runtimeRuns).toMatch(/\bnpm install\b[^\n&]*--omit=dev/);
    expect(runtimeRuns).not.toMatch(/npm run build|\btsc\b/);
    // dist/ comes from the build stage; package.json is read at run time by shared/version.ts.
    expect(all(runtime, "COPY")).toContainEqual(
      expect.stringMatching(new RegExp(`--from=${buildStage}\\s+\\S*dist\\b`)),
    );
    expect(all(runtime, "COPY").some((a) => /\bpackage\.json\b/.test(a))).toBe(true);
  });

  test("runs the built runner with the base image's node, as a non-root user", () => {
    // With the platform's V8 flags (app/node-flags.ts), which only the command line can set.
    expect(JSON.parse(last(runtime, "CMD")!)).toEqual(["node", ...PLATFORM_NODE_FLAGS, "dist/app/main.js"]);
    // jest's globalSetup built dist/, as the build stage does; package.json's start scripts agree.
    expect(fs.existsSync(path.join(ROOT, "dist/app/main.js"))).toBe(true);
    const scripts = JSON.parse(read("package.json")).scripts as Record<string, string>;
    const run = ["node", ...PLATFORM_NODE_FLAGS, "dist/app/main.js"].join(" ");
    expect(scripts["start:dist"]).toBe(run);
    expect(scripts.start).toBe(`npm run build && MALLOC_ARENA_MAX=${runtimeEnv.MALLOC_ARENA_MAX} ${run}`);
    const user = last(runtime, "USER")!;
    expect(user).toBeDefined();
    expect(user.split(":")[0]).not.toMatch(/^(root|0)$/);
    // The user must own DATA_DIR, where the embedded store and generated secrets go.
    expect(all(runtime, "RUN").join("\n")).toContain(`chown ${user} ${runtimeEnv.DATA_DIR}`);
  });

  test("defaults: production, every service, EXPOSE matching the gateway's PORT and METRICS_PORT", () => {
    expect(runtimeEnv.NODE_ENV).toBe("production");
    // glibc keeps freed memory in per-thread arenas otherwise (docs/performance.md#memory).
    expect(runtimeEnv.MALLOC_ARENA_MAX).toBe("2");
    expect(loadConfig({ SERVICES: runtimeEnv.SERVICES }).services).toBeUndefined(); // = all
    const port = loadConfig({ PORT: runtimeEnv.PORT }).port;
    expect(port).toBe(loadConfig({}).port);
    const metrics = metricsPort({ METRICS_PORT: runtimeEnv.METRICS_PORT });
    expect(metrics).toBe(metricsPort({}));
    expect(all(runtime, "EXPOSE").flatMap((a) => a.split(/\s+/))).toEqual([String(port), String(metrics)]);
  });

  describe("HEALTHCHECK, run against a real gateway and a metrics endpoint", () => {
    const healthcheck = last(runtime, "HEALTHCHECK")!;
    const cmd: string[] = JSON.parse(healthcheck.slice(healthcheck.indexOf("CMD") + 3).trim());
    let platform: Platform;
    let gatewayPort: number;
    let metrics: { port: number; stop(): Promise<unknown> };

    /**
     * A process without the gateway: the real /metrics of a broker once the code serves it, else a
     * stand-in that answers /metrics only, as Moleculer's Prometheus reporter does.
     */
    async function metricsEndpoint(): Promise<typeof metrics> {
      const port = await freePort();
      if (METRICS_IN_CODE) {
        const p = await startPlatform({ services: ["store"], env: { METRICS_PORT: String(port) } });
        return { port, stop: () => p.stop() };
      }
      const server = http.createServer((req, res) => {
        res.writeHead(req.url === "/metrics" ? 200 : 404).end();
      });
      await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
      return { port, stop: () => new Promise((resolve) => server.close(resolve)) };
    }

    beforeAll(async () => {
      platform = await startPlatform({ services: ["gateway"], env: { METRICS_PORT: "off" } });
      gatewayPort = Number(new URL(platform.baseUrl).port);
      metrics = await metricsEndpoint();
    });
    afterAll(async () => {
      await platform?.stop();
      await metrics?.stop();
    });

    async function exitCode(env: Record<string, string>): Promise<number> {
      const [bin, ...args] = cmd;
      // `node` in the image; this test's node here.
      const exe = bin === "node" ? process.execPath : bin;
      try {
        await promisify(execFile)(exe, args, { env: { PATH: process.env.PATH, ...env }, timeout: 10_000 });
        return 0;
      } catch (err: any) {
        return typeof err.code === "number" ? err.code : -1;
      }
    }

    test("uses node (slim images have no curl or wget), /health and /metrics", () => {
      expect(cmd[0]).toBe("node");
      expect(healthcheck).toContain("/health");
      expect(healthcheck).toContain("/metrics");
      expect(healthcheck).not.toMatch(/\b(curl|wget)\b/);
    });

    test("healthy when the gateway answers /health on PORT, unhealthy when nothing listens", async () => {
      expect(await exitCode({ SERVICES: "gateway", PORT: String(gatewayPort) })).toBe(0);
      expect(await exitCode({ SERVICES: "all", PORT: String(gatewayPort) })).toBe(0);
      expect(await exitCode({ SERVICES: "engine, gateway", PORT: String(gatewayPort) })).toBe(0);
      const closed = String(await freePort());
      expect(await exitCode({ SERVICES: "gateway", PORT: closed })).toBe(1);
      expect(await exitCode({ PORT: closed })).toBe(1); // unset SERVICES = all, gateway included
    });

    test("without the gateway: healthy when /metrics answers on METRICS_PORT, unhealthy when not", async () => {
      const closed = String(await freePort());
      expect(await exitCode({ SERVICES: "engine", PORT: closed, METRICS_PORT: String(metrics.port) })).toBe(
        0,
      );
      expect(await exitCode({ SERVICES: "engine", PORT: closed, METRICS_PORT: closed })).toBe(1);
      // Metrics turned off: no HTTP server at all; nothing to ask beyond the process being alive.
      expect(await exitCode({ SERVICES: "engine", PORT: closed, METRICS_PORT: "off" })).toBe(0);
      // The gateway's check is /health on PORT, not /metrics.
      expect(await exitCode({ SERVICES: "gateway", PORT: closed, METRICS_PORT: String(metrics.port) })).toBe(
        1,
      );
    });
  });

  test(".dockerignore keeps local state, builds and secrets out of the context", () => {
    const ignored = read(".dockerignore")
      .split("\n")
      .map((l) => l.trim());
    for (const entry of ["node_modules", "dist", "data", ".env", ".git"]) expect(ignored).toContain(entry);
    // ...but not what the build stage needs.
    for (const needed of [
      "package.json",
      "package-lock.json",
      "tsconfig.json",
      "tsconfig.build.json",
      "shared",
    ]) {
      expect(ignored).not.toContain(needed);
    }
  });
});

describe("docker-compose.yml", () => {
  const text = read("docker-compose.yml");
  const compose = parseYaml("docker-compose.yml")[0];
  const services: Record<string, any> = compose.services;
  const platform = Object.entries(services).filter(([, s]) => s.environment?.SERVICES !== undefined);

  /** The container env as compose would pass it, with ${VAR:-default} and ${VAR:?msg} resolved. */
  function resolvedEnv(env: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(env)) {
      out[k] = String(v)
        .replace(/\$\{[A-Z_]+:-([^}]*)\}/g, "$1")
        .replace(/\$\{[A-Z_]+:\?[^}]*\}/g, DUMMY_KEY);
    }
    return out;
  }

  test("one container per platform service, store excluded, all from deploy/Dockerfile", () => {
    const run = platform.map(([, s]) => s.environment.SERVICES);
    expect([...run].sort()).toEqual([...PLATFORM_SERVICES].sort());
    const images = new Set(platform.map(([, s]) => s.image));
    expect(images.size).toBe(1);
    for (const [name, s] of platform) {
      expect({ name, dockerfile: s.build?.dockerfile }).toEqual({ name, dockerfile: "deploy/Dockerfile" });
      expect(fs.existsSync(path.join(ROOT, s.build.context, s.build.dockerfile))).toBe(true);
      expect(s.restart).toMatch(/^(always|unless-stopped|on-failure)/);
    }
  });

  test("every env name given to a container is one shared/config.ts reads", () => {
    for (const [name, s] of platform) {
      for (const key of Object.keys(s.environment)) {
        expect({ service: name, env: key, known: knownEnv(key) }).toEqual({
          service: name,
          env: key,
          known: true,
        });
      }
    }
  });

  test("each container's env loads: its one service, over NATS, on MongoDB", () => {
    for (const [name, s] of platform) {
      const config = loadConfig(resolvedEnv(s.environment));
      expect(config.services).toEqual([s.environment.SERVICES]);
      expect(chooseBackend(config, { hostsStoreService: false })).toBe("mongo");
      // The URLs point at the compose services that exist, on their default ports.
      const nats = new URL(config.transporter!);
      expect({ name, proto: nats.protocol, host: nats.hostname, port: nats.port }).toEqual({
        name,
        proto: "nats:",
        host: "nats",
        port: "4222",
      });
      const mongo = new URL(config.mongoUrl!);
      expect(services[mongo.hostname]?.image).toMatch(/^mongo:7/);
      // The replica set the mongo container runs, with the platform's own user (created by its init).
      expect({
        name,
        replicaSet: mongo.searchParams.get("replicaSet"),
        authSource: mongo.searchParams.get("authSource"),
        user: mongo.username,
      }).toEqual({ name, replicaSet: replicaSetOf(services.mongo), authSource: "admin", user: "platform" });
      expect(s.environment.MONGO_URL).toMatch(/^mongodb:\/\/platform:\$\{MONGO_PASSWORD:\?[^}]+\}@/);
    }
  });

  /** The name given to mongod's --replSet. */
  function replicaSetOf(mongo: any): string {
    const args: string[] = mongo.command;
    return args[args.indexOf("--replSet") + 1];
  }

  test("mongo runs a one-node replica set with authentication: a generated keyfile, a root user, an init", () => {
    const mongo = services.mongo;
    expect(replicaSetOf(mongo)).toBe("rs0");
    // The keyfile turns access control on; it comes from the one-shot that generates it, read-only here.
    const keyFile: string = mongo.command[mongo.command.indexOf("--keyFile") + 1];
    const keyDir = path.posix.dirname(keyFile);
    const mount = mongo.volumes.find((v: string) => v.split(":")[1] === keyDir);
    expect(mount).toMatch(/:ro$/);
    const generator = services["mongo-keyfile"];
    expect(generator.image).toBe(mongo.image);
    expect(generator.volumes).toContain(`${mount.split(":")[0]}:${keyDir}`);
    expect(generator.entrypoint.join(" ")).toContain(path.posix.basename(keyFile));
    expect(generator.entrypoint.join(" ")).toMatch(/chmod 400/);
    expect(mongo.depends_on["mongo-keyfile"].condition).toBe("service_completed_successfully");
    expect(Object.keys(compose.volumes)).toContain(mount.split(":")[0]);
    // The root user on first start; the init (the health check, idempotent) initiates the set with
    // this very node, waits for it to be primary and creates the platform's readWrite user.
    expect(mongo.environment.MONGO_INITDB_ROOT_USERNAME).toBe("root");
    expect(mongo.environment.MONGO_INITDB_ROOT_PASSWORD).toMatch(/^\$\{MONGO_INITDB_ROOT_PASSWORD:\?/);
    const init = mongo.healthcheck.test.join(" ");
    expect(init).toContain(
      `rs.initiate({ _id: "${replicaSetOf(mongo)}", members: [{ _id: 0, host: "mongo:27017" }] })`,
    );
    expect(init).toContain("isWritablePrimary");
    expect(init).toMatch(/createUser\(\{ user: "platform"[^]*role: "readWrite", db: process\.env\.MONGO_DB/);
    expect(mongo.environment.MONGO_DB).toBe(platform[0][1].environment.MONGO_DB);
  });

  test("every container sets the required env: its service, the bus, MongoDB, the key, metrics, the drain", () => {
    for (const [name, s] of platform) {
      const env = resolvedEnv(s.environment);
      for (const required of [
        "SERVICES",
        "TRANSPORTER",
        "STORE",
        "MONGO_URL",
        "ENCRYPTION_KEY",
        "METRICS_PORT",
        "SHUTDOWN_TIMEOUT",
        ...(env.SERVICES === "accounts" ? ["ADMIN_PASSWORD"] : []),
      ])
        expect({ name, required, set: env[required] !== undefined }).toEqual({ name, required, set: true });
      // The image's HEALTHCHECK asks /metrics there (it is not turned off), and on the port the image exposes.
      expect({ name, metrics: metricsPort(env) }).toEqual({ name, metrics: metricsPort({}) });
    }
  });

  test("the image's HEALTHCHECK applies to every container, and stop_grace_period outlasts the drain", () => {
    for (const [name, s] of platform) {
      expect({ name, healthcheck: s.healthcheck }).toEqual({ name, healthcheck: undefined });
      const grace = /^(\d+)s$/.exec(s.stop_grace_period)?.[1];
      const needed = drainSeconds(resolvedEnv(s.environment));
      expect({ name, grace: Number(grace), over: Number(grace) > needed }).toEqual({
        name,
        grace: Number(grace),
        over: true,
      });
    }
  });

  test("nats runs with JetStream, mongo keeps its data and reports health, dependents wait for it", () => {
    expect(services.nats.image).toMatch(/^nats:2\.10/);
    expect(services.nats.command).toContain("-js");
    expect(services.mongo.volumes.some((v: string) => v.endsWith(":/data/db"))).toBe(true);
    expect(Object.keys(compose.volumes)).toContain(services.mongo.volumes[0].split(":")[0]);
    expect(services.mongo.healthcheck?.test).toBeDefined();
    for (const [name, s] of platform) {
      // service_healthy needs a healthcheck on mongo, checked above.
      expect({ name, mongo: s.depends_on?.mongo?.condition }).toEqual({ name, mongo: "service_healthy" });
      expect({ name, nats: s.depends_on?.nats?.condition }).toEqual({ name, nats: "service_started" });
    }
  });

  test("the gateway publishes its PORT; nothing else publishes a port", () => {
    const gateway = platform.find(([, s]) => s.environment.SERVICES === "gateway")![1];
    const port = loadConfig(resolvedEnv(gateway.environment)).port;
    expect(gateway.ports.map((p: string) => p.split(":").at(-1))).toEqual([String(port)]);
    for (const [name, s] of Object.entries(services)) {
      if (s !== gateway) expect({ name, ports: s.ports }).toEqual({ name, ports: undefined });
    }
  });

  test("secrets come from the environment and compose refuses to start without them", () => {
    for (const name of ["ENCRYPTION_KEY", "ADMIN_PASSWORD", "MONGO_INITDB_ROOT_PASSWORD", "MONGO_PASSWORD"]) {
      expect(text).toMatch(new RegExp(`\\b${name}: \\$\\{${name}:\\?[^}]+\\}`));
    }
    for (const [service, s] of Object.entries(services)) {
      for (const [key, value] of Object.entries<string>(s.environment ?? {})) {
        if (SECRET_NAME.test(key) && key !== "MONGO_URL") {
          expect({ service, key, value }).toEqual({
            service,
            key,
            value: expect.stringMatching(new RegExp(`^\\$\\{${key}:\\?.+\\}$`)),
          });
        }
      }
    }
    // ADMIN_PASSWORD reaches accounts, the only service that reads it.
    expect(
      platform.find(([, s]) => s.environment.SERVICES === "accounts")![1].environment.ADMIN_PASSWORD,
    ).toBeDefined();
  });
});
