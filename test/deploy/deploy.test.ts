/**
 * The deployment artifacts (deploy/Dockerfile, .dockerignore, docker-compose.yml, deploy/k8s) can't be
 * built or applied here (no Docker engine, no cluster), so they are parsed and checked against the
 * code: the services they run, the env names shared/config.ts reads, the probes the gateway serves,
 * the built entrypoint, and the security and secret rules of docs/deployment.md.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import YAML from "yaml";
import { ALL_SERVICES } from "../../app/services";
import { loadConfig } from "../../shared/config";
import { operations } from "../../shared/contracts";
import { chooseBackend } from "../../shared/store";
import { startPlatform, type Platform } from "../support/platform";

const ROOT = path.resolve(__dirname, "../..");
const K8S_DIR = path.join(ROOT, "deploy/k8s");
const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), "utf8");
const PLATFORM_SERVICES = ALL_SERVICES.filter((s) => s !== "store");
const SECRET_NAME = /PASSWORD|SECRET|TOKEN|KEY|MONGO_URL/;
/** A valid stand-in for a required secret, so loadConfig can run on the deployed env. */
const DUMMY_KEY = "0".repeat(64);

/** The env names shared/config.ts reads: `process.env.X` and the names given to its int/list/bool helpers. */
function configEnvNames(): Set<string> {
  const text = read("shared/config.ts");
  const names = new Set<string>();
  for (const m of text.matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)) names.add(m[1]);
  for (const m of text.matchAll(/\b(?:int|list|bool)\("([A-Z][A-Z0-9_]*)"/g)) names.add(m[1]);
  return names;
}
const CONFIG_NAMES = configEnvNames();

function parseYaml(rel: string): any[] {
  return YAML.parseAllDocuments(read(rel), { merge: true }).map((doc) => {
    expect({ file: rel, errors: doc.errors.map((e) => e.message) }).toEqual({ file: rel, errors: [] });
    return doc.toJS();
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.once("error", reject);
  });
}

/** Kubernetes quantities, enough to compare requests with limits: "250m", "1", "512Mi", "1Gi". */
function quantity(q: string | number): number {
  const m = /^([\d.]+)(m|Ki|Mi|Gi)?$/.exec(String(q));
  if (!m) throw new Error(`unparsed quantity ${q}`);
  const scale = { m: 1e-3, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 }[m[2] ?? ""] ?? 1;
  return Number(m[1]) * scale;
}

const isSubset = (small: Record<string, string>, big: Record<string, string>) =>
  Object.entries(small).every(([k, v]) => big?.[k] === v);

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
    expect(JSON.parse(last(runtime, "CMD")!)).toEqual(["node", "dist/app/main.js"]);
    // jest's globalSetup built dist/, as the build stage does; package.json's start script agrees.
    expect(fs.existsSync(path.join(ROOT, "dist/app/main.js"))).toBe(true);
    expect(JSON.parse(read("package.json")).scripts["start:dist"]).toBe("node dist/app/main.js");
    const user = last(runtime, "USER")!;
    expect(user).toBeDefined();
    expect(user.split(":")[0]).not.toMatch(/^(root|0)$/);
    // The user must own DATA_DIR, where the embedded store and generated secrets go.
    expect(all(runtime, "RUN").join("\n")).toContain(`chown ${user} ${runtimeEnv.DATA_DIR}`);
  });

  test("defaults: production, every service, EXPOSE matching the gateway's PORT", () => {
    expect(runtimeEnv.NODE_ENV).toBe("production");
    expect(loadConfig({ SERVICES: runtimeEnv.SERVICES }).services).toBeUndefined(); // = all
    const port = loadConfig({ PORT: runtimeEnv.PORT }).port;
    expect(port).toBe(loadConfig({}).port);
    expect(all(runtime, "EXPOSE")).toEqual([String(port)]);
  });

  describe("HEALTHCHECK, run against a real gateway", () => {
    const healthcheck = last(runtime, "HEALTHCHECK")!;
    const cmd: string[] = JSON.parse(healthcheck.slice(healthcheck.indexOf("CMD") + 3).trim());
    let platform: Platform;
    let gatewayPort: number;

    beforeAll(async () => {
      platform = await startPlatform({ services: ["gateway"] });
      gatewayPort = Number(new URL(platform.baseUrl).port);
    });
    afterAll(() => platform?.stop());

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

    test("uses node (slim images have no curl or wget) and /health", () => {
      expect(cmd[0]).toBe("node");
      expect(healthcheck).toContain("/health");
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

    test("a container without the gateway has no HTTP server and reports healthy", async () => {
      expect(await exitCode({ SERVICES: "engine", PORT: String(await freePort()) })).toBe(0);
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
        expect({ service: name, env: key, known: CONFIG_NAMES.has(key) }).toEqual({
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
    for (const name of ["ENCRYPTION_KEY", "ADMIN_PASSWORD"]) {
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

describe("deploy/k8s", () => {
  const files = fs.readdirSync(K8S_DIR).filter((f) => f.endsWith(".yaml"));
  const docs = files.flatMap((f) => parseYaml(`deploy/k8s/${f}`).map((doc) => ({ file: f, doc })));
  const objects = docs.filter(({ doc }) => doc && doc.kind);
  const ofKind = (kind: string) => objects.filter(({ doc }) => doc.kind === kind).map(({ doc }) => doc);
  const deployments = ofKind("Deployment");
  const configMaps = ofKind("ConfigMap");
  const secrets = ofKind("Secret");
  const namespace = ofKind("Namespace")[0]?.metadata.name;

  const container = (d: any) => d.spec.template.spec.containers[0];
  const servicesOf = (d: any) => container(d).env?.find((e: any) => e.name === "SERVICES")?.value;
  const byService = (name: string) => deployments.filter((d) => servicesOf(d) === name);

  /** The env a Deployment's container gets: its ConfigMaps, Secrets (placeholders swapped) and env. */
  function podEnv(d: any): Record<string, string> {
    const env: Record<string, string> = {};
    for (const from of container(d).envFrom ?? []) {
      if (from.configMapRef) {
        const cm = configMaps.find((c) => c.metadata.name === from.configMapRef.name);
        expect({ deployment: d.metadata.name, configMap: from.configMapRef.name, found: !!cm }).toEqual({
          deployment: d.metadata.name,
          configMap: from.configMapRef.name,
          found: true,
        });
        Object.assign(env, cm.data);
      }
      if (from.secretRef) {
        const secret = secrets.find((s) => s.metadata.name === from.secretRef.name);
        expect({ deployment: d.metadata.name, secret: from.secretRef.name, found: !!secret }).toEqual({
          deployment: d.metadata.name,
          secret: from.secretRef.name,
          found: true,
        });
        for (const key of Object.keys(secret.stringData)) {
          env[key] = key === "MONGO_URL" ? "mongodb://user:pass@mongo:27017" : DUMMY_KEY;
        }
      }
    }
    for (const e of container(d).env ?? []) env[e.name] = e.value ?? "from-ref";
    return env;
  }

  test("kustomization applies every manifest except the Secret template", () => {
    const kustomization = objects.find(({ doc }) => doc.kind === "Kustomization")!.doc;
    const template = objects.find(({ doc }) => doc.kind === "Secret")!.file;
    expect([...kustomization.resources].sort()).toEqual(
      files.filter((f) => f !== "kustomization.yaml" && f !== template).sort(),
    );
    expect(kustomization.namespace).toBe(namespace);
  });

  test("one Namespace, and every object lives in it", () => {
    expect(ofKind("Namespace")).toHaveLength(1);
    for (const { file, doc } of objects) {
      if (doc.kind === "Namespace" || doc.kind === "Kustomization") continue;
      expect({ file, name: doc.metadata.name, ns: doc.metadata.namespace }).toEqual({
        file,
        name: doc.metadata.name,
        ns: namespace,
      });
    }
  });

  test("one Deployment per platform service, none for the embedded store, all one image", () => {
    for (const name of PLATFORM_SERVICES)
      expect({ name, count: byService(name).length }).toEqual({ name, count: 1 });
    expect(deployments.map(servicesOf).sort()).toEqual([...PLATFORM_SERVICES].sort());
    expect(new Set(deployments.map((d) => container(d).image)).size).toBe(1);
    for (const d of deployments)
      expect(isSubset(d.spec.selector.matchLabels, d.spec.template.metadata.labels)).toBe(true);
  });

  test("every env name is one shared/config.ts reads, and each pod's env loads as intended", () => {
    const names = [
      ...configMaps.flatMap((c) => Object.keys(c.data)),
      ...secrets.flatMap((s) => Object.keys(s.stringData)),
      ...deployments.flatMap((d) => (container(d).env ?? []).map((e: any) => e.name)),
    ];
    for (const name of names) expect({ name, known: CONFIG_NAMES.has(name) }).toEqual({ name, known: true });
    for (const d of deployments) {
      const config = loadConfig(podEnv(d));
      expect(config.services).toEqual([servicesOf(d)]);
      expect(config.transporter).toMatch(/^nats:\/\//);
      expect(chooseBackend(config, { hostsStoreService: false })).toBe("mongo");
      // The root filesystem is read-only: DATA_DIR must sit on a writable mount.
      const mounts = container(d).volumeMounts.map((m: any) => m.mountPath as string);
      expect(mounts.some((m: string) => config.dataDir.startsWith(m + "/"))).toBe(true);
    }
  });

  test("the Secret is a template of placeholders; no secret is in the ConfigMap or inline", () => {
    expect(secrets).toHaveLength(1);
    const [secret] = secrets;
    expect(secret.data).toBeUndefined(); // base64 `data` would hide real values from review
    expect(Object.keys(secret.stringData).sort()).toEqual(["ADMIN_PASSWORD", "ENCRYPTION_KEY", "MONGO_URL"]);
    for (const value of Object.values<string>(secret.stringData)) expect(value).toMatch(/^<CHANGE-ME\b.*>$/);
    for (const cm of configMaps) {
      for (const key of Object.keys(cm.data))
        expect({ key, secret: SECRET_NAME.test(key) }).toEqual({ key, secret: false });
    }
    for (const d of deployments) {
      for (const e of container(d).env ?? []) {
        if (SECRET_NAME.test(e.name))
          expect({ name: e.name, inline: e.value !== undefined }).toEqual({ name: e.name, inline: false });
      }
    }
  });

  test("every Deployment has resources, a locked-down securityContext and a writable /tmp", () => {
    for (const d of deployments) {
      const pod = d.spec.template.spec;
      const c = container(d);
      const { requests, limits } = c.resources;
      for (const r of ["cpu", "memory"]) {
        expect({ d: d.metadata.name, r, ok: quantity(requests[r]) <= quantity(limits[r]) }).toEqual({
          d: d.metadata.name,
          r,
          ok: true,
        });
      }
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
      expect(c.securityContext).toEqual(
        expect.objectContaining({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false }),
      );
      const tmp = c.volumeMounts.find((m: any) => m.mountPath === "/tmp");
      expect(pod.volumes.find((v: any) => v.name === tmp?.name)?.emptyDir).toBeDefined();
      // Long enough for a preStop pause and broker.stop(); the default 30 s is stated explicitly.
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(15);
    }
  });

  describe("gateway", () => {
    const [gateway] = byService("gateway");
    const c = container(gateway);
    const port = (ref: string | number) =>
      typeof ref === "number" ? ref : c.ports.find((p: any) => p.name === ref)?.containerPort;

    test("listens on the container port that PORT configures", () => {
      expect(c.ports).toHaveLength(1);
      expect(c.ports[0].containerPort).toBe(loadConfig(podEnv(gateway)).port);
    });

    test("readiness on /ready and liveness on /health, the gateway's own routes, on that port", () => {
      const routes = new Map(operations().map((op) => [`${op.method} ${op.path}`, op.action]));
      expect(c.readinessProbe.httpGet.path).toBe("/ready");
      expect(c.livenessProbe.httpGet.path).toBe("/health");
      expect(routes.get("GET /ready")).toBe("gateway.ready");
      expect(routes.get("GET /health")).toBe("gateway.health");
      for (const probe of [c.readinessProbe, c.livenessProbe]) {
        expect(port(probe.httpGet.port)).toBe(c.ports[0].containerPort);
      }
    });

    test("a Service routes to it; a PodDisruptionBudget keeps one up without blocking drains", () => {
      const labels = gateway.spec.template.metadata.labels;
      const [svc] = ofKind("Service").filter((s) => isSubset(s.spec.selector, labels));
      expect(port(svc.spec.ports[0].targetPort)).toBe(c.ports[0].containerPort);
      const [pdb] = ofKind("PodDisruptionBudget");
      expect(isSubset(pdb.spec.selector.matchLabels, labels)).toBe(true);
      // It must select the gateway alone.
      for (const d of deployments) {
        if (d !== gateway)
          expect(isSubset(pdb.spec.selector.matchLabels, d.spec.template.metadata.labels)).toBe(false);
      }
      const hpa = ofKind("HorizontalPodAutoscaler").find(
        (h) => h.spec.scaleTargetRef.name === gateway.metadata.name,
      );
      expect(pdb.spec.minAvailable).toBeLessThan(hpa.spec.minReplicas);
    });
  });

  test("services other than the gateway open no port and have no HTTP probe", () => {
    for (const d of deployments.filter((x) => servicesOf(x) !== "gateway")) {
      const c = container(d);
      expect({
        d: d.metadata.name,
        ports: c.ports,
        probes: [c.livenessProbe, c.readinessProbe].filter((p) => p?.httpGet),
      }).toEqual({
        d: d.metadata.name,
        ports: undefined,
        probes: [],
      });
    }
  });

  test("gateway and engine autoscale on CPU; the HPA, not the manifest, owns their replicas", () => {
    const hpas = ofKind("HorizontalPodAutoscaler");
    for (const name of ["gateway", "engine"]) {
      const [d] = byService(name);
      const hpa = hpas.find(
        (h) => h.spec.scaleTargetRef.kind === "Deployment" && h.spec.scaleTargetRef.name === d.metadata.name,
      );
      expect(hpa).toBeDefined();
      expect(hpa.spec.minReplicas).toBeLessThanOrEqual(hpa.spec.maxReplicas);
      expect(d.spec.replicas).toBeUndefined();
      // CPU utilization is relative to the request, so one must be set.
      expect(hpa.spec.metrics[0].resource.name).toBe("cpu");
      expect(container(d).resources.requests.cpu).toBeDefined();
    }
  });
});
