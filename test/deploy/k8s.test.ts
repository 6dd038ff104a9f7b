/**
 * deploy/k8s (a kustomize base and the production overlay) can't be applied here (no cluster), so
 * both are built (test/deploy/manifests.ts, checked against `kubectl kustomize` when installed) and
 * checked against the code: a Deployment per service of app/services.ts, probes on paths the
 * process serves, the metrics port, env names shared/config.ts reads, a grace period longer than
 * the drain, autoscalers and disruption budgets on Deployments that exist, and the scaling rules of
 * docs/deployment.md.
 */
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { ALL_SERVICES } from "../../app/services";
import { loadConfig } from "../../shared/config";
import { operations } from "../../shared/contracts";
import { chooseBackend } from "../../shared/store";
import { startPlatform, type Platform } from "../support/platform";
import {
  CONFIG_NAMES,
  INCOMING_NAMES,
  METRICS_IN_CODE,
  ROOT,
  drainSeconds,
  incoming,
  isSubset,
  knownEnv,
  kubectlKustomize,
  kustomizations,
  kustomizeBuild,
  metricsPort,
  parseYaml,
  quantity,
  read,
} from "./manifests";

const BASE = "deploy/k8s/base";
const PRODUCTION = "deploy/k8s/overlays/production";
const SECRET_TEMPLATE = `${BASE}/secret.template.yaml`;
const SECRET_NAME = /PASSWORD|SECRET|TOKEN|KEY|MONGO_URL/;
const DUMMY_KEY = "0".repeat(64);

/** The scaling rules (docs/deployment.md#scaling): every service of app/services.ts has one. */
const AUTOSCALED = [
  "gateway",
  "engine",
  "accounts",
  "search",
  "configuration",
  "forms",
  "prebuilts",
  "profiles",
  "devices",
];
const FIXED_REPLICAS: Record<string, string> = {
  scheduler: "every replica polls the store each tick whatever the load; exactly-once holds for any count",
  adapters: "the in-flight limit towards an orchestrator is per replica: R replicas send R x maxInFlight",
};
const NOT_DEPLOYED: Record<string, string> = {
  store: "the embedded store has a single writer; with MongoDB (STORE=mongo) no process needs it",
};

const base = kustomizeBuild(BASE);
const production = kustomizeBuild(PRODUCTION);
const [secretTemplate] = parseYaml(SECRET_TEMPLATE);

const ofKind = (objects: any[], kind: string) => objects.filter((o) => o.kind === kind);
const container = (d: any) => d.spec.template.spec.containers[0];
const servicesOf = (d: any) => container(d).env?.find((e: any) => e.name === "SERVICES")?.value;
const portNamed = (d: any, ref: string | number) =>
  typeof ref === "number" ? ref : container(d).ports?.find((p: any) => p.name === ref)?.containerPort;
const label = (d: any) => `${d.kind}/${d.metadata.name}`;

/** The env a Deployment's container gets: its ConfigMaps, the Secret (placeholders swapped) and env. */
function podEnv(objects: any[], d: any): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of container(d).envFrom ?? []) {
    if (from.configMapRef) {
      const cm = ofKind(objects, "ConfigMap").find((c) => c.metadata.name === from.configMapRef.name);
      expect({ d: label(d), configMap: from.configMapRef.name, found: !!cm }).toEqual({
        d: label(d),
        configMap: from.configMapRef.name,
        found: true,
      });
      Object.assign(env, cm.data);
    }
    if (from.secretRef) {
      // The Secret is created by hand from the template (never applied by kustomize).
      expect({ d: label(d), secret: from.secretRef.name }).toEqual({
        d: label(d),
        secret: secretTemplate.metadata.name,
      });
      for (const key of Object.keys(secretTemplate.stringData)) {
        env[key] = key === "MONGO_URL" ? "mongodb://user:pass@mongo:27017" : DUMMY_KEY;
      }
    }
  }
  for (const e of container(d).env ?? []) env[e.name] = e.value ?? "from-ref";
  return env;
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

test("the scaling rules name every service of app/services.ts exactly once", () => {
  const ruled = [...AUTOSCALED, ...Object.keys(FIXED_REPLICAS), ...Object.keys(NOT_DEPLOYED)];
  expect([...ruled].sort()).toEqual([...ALL_SERVICES].sort());
  expect(new Set(ruled).size).toBe(ruled.length);
});

test("the env names the deploy files set but shared/config.ts does not read yet are only the incoming ones", () => {
  const pending = Object.keys(INCOMING_NAMES).filter(incoming);
  if (pending.length > 0)
    console.warn(
      `deploy tests: shared/config.ts does not read ${pending.join(", ")} yet (issue 13's metrics and logs); ` +
        "the manifests set them, and they are checked as soon as it does.",
    );
  for (const name of ["PORT", "SERVICES", "TRANSPORTER", "MONGO_URL", "ENCRYPTION_KEY", "SHUTDOWN_TIMEOUT"])
    expect(CONFIG_NAMES).toContain(name);
});

describe("kustomization files", () => {
  const all = kustomizations("deploy/k8s");

  test("a base and a production overlay built on it", () => {
    expect(all.map((k) => k.dir).sort()).toEqual([BASE, PRODUCTION]);
    expect(all.find((k) => k.dir === PRODUCTION)!.resources).toContain("../../base");
  });

  test.each(all.map((k) => [k.dir, k] as const))(
    "%s lists files that exist, and every manifest beside it but the Secret template",
    (dir, k) => {
      const listed = [...(k.resources ?? []), ...(k.patches ?? []).map((p) => p.path)];
      for (const entry of listed) {
        const full = path.join(ROOT, dir, entry);
        const ok =
          fs.existsSync(full) &&
          (!fs.statSync(full).isDirectory() || fs.existsSync(path.join(full, "kustomization.yaml")));
        expect({ dir, entry, exists: ok }).toEqual({ dir, entry, exists: true });
      }
      const beside = fs
        .readdirSync(path.join(ROOT, dir))
        .filter(
          (f) => f.endsWith(".yaml") && f !== "kustomization.yaml" && path.join(dir, f) !== SECRET_TEMPLATE,
        );
      expect(beside.filter((f) => !listed.includes(f))).toEqual([]);
      expect(listed).not.toContain(path.basename(SECRET_TEMPLATE));
    },
  );

  test.each([BASE, PRODUCTION])("the build of %s is what kubectl kustomize builds", (dir) => {
    const real = kubectlKustomize(dir);
    if (!real) {
      console.warn(`kubectl is not installed: ${dir} is checked with the test's own kustomize build only`);
      return;
    }
    const key = (o: any) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`;
    const byKey = (objects: any[]) => Object.fromEntries(objects.map((o) => [key(o), o]));
    expect(byKey(kustomizeBuild(dir))).toEqual(byKey(real));
  });
});

describe.each([
  ["base", base],
  ["production", production],
])("deploy/k8s %s", (_name, objects) => {
  const deployments = ofKind(objects, "Deployment");
  const namespace = ofKind(objects, "Namespace")[0]?.metadata.name;

  test("one Namespace, and every object lives in it", () => {
    expect(ofKind(objects, "Namespace")).toHaveLength(1);
    for (const o of objects.filter((x) => x.kind !== "Namespace"))
      expect({ o: label(o), ns: o.metadata.namespace }).toEqual({ o: label(o), ns: namespace });
    expect(secretTemplate.metadata.namespace).toBe(namespace);
  });

  test("one Deployment per service of app/services.ts (none for the store), all one image", () => {
    const deployed = ALL_SERVICES.filter((s) => !(s in NOT_DEPLOYED));
    expect(deployments.map(servicesOf).sort()).toEqual([...deployed].sort());
    for (const d of deployments) {
      expect(d.metadata.name).toBe(servicesOf(d));
      expect(d.spec.template.spec.containers).toHaveLength(1);
      expect(isSubset(d.spec.selector.matchLabels, d.spec.template.metadata.labels)).toBe(true);
      // No other Deployment's pods match its selector.
      for (const other of deployments)
        if (other !== d)
          expect(isSubset(d.spec.selector.matchLabels, other.spec.template.metadata.labels)).toBe(false);
    }
    expect(new Set(deployments.map((d) => container(d).image)).size).toBe(1);
  });

  test("every env name is one shared/config.ts reads, the required ones are set, each pod's env loads", () => {
    const names = [
      ...ofKind(objects, "ConfigMap").flatMap((c) => Object.keys(c.data)),
      ...Object.keys(secretTemplate.stringData),
      ...deployments.flatMap((d) => (container(d).env ?? []).map((e: any) => e.name)),
    ];
    for (const name of names) expect({ name, known: knownEnv(name) }).toEqual({ name, known: true });
    const documented = read("docs/configuration.md");
    for (const name of names.filter((n) => !incoming(n)))
      expect({ name, documented: documented.includes(`\`${name}\``) }).toEqual({ name, documented: true });
    for (const d of deployments) {
      const env = podEnv(objects, d);
      for (const required of [
        "SERVICES",
        "TRANSPORTER",
        "STORE",
        "MONGO_URL",
        "ENCRYPTION_KEY",
        "METRICS_PORT",
        "SHUTDOWN_TIMEOUT",
        ...(servicesOf(d) === "accounts" ? ["ADMIN_PASSWORD"] : []),
      ])
        expect({ d: label(d), required, set: env[required] !== undefined }).toEqual({
          d: label(d),
          required,
          set: true,
        });
      const config = loadConfig(env);
      expect(config.services).toEqual([servicesOf(d)]);
      expect(config.transporter).toMatch(/^nats:\/\//);
      expect(chooseBackend(config, { hostsStoreService: false })).toBe("mongo");
      // The root filesystem is read-only: DATA_DIR must sit on a writable mount.
      const mounts = container(d).volumeMounts.map((m: any) => m.mountPath as string);
      expect(mounts.some((m: string) => config.dataDir.startsWith(m + "/"))).toBe(true);
    }
  });

  test("a metrics port named `metrics` on METRICS_PORT in every pod, with scrape annotations for it", () => {
    for (const d of deployments) {
      const port = metricsPort(podEnv(objects, d));
      expect({ d: label(d), port }).toEqual({ d: label(d), port: expect.any(Number) });
      expect({ d: label(d), metrics: portNamed(d, "metrics") }).toEqual({ d: label(d), metrics: port });
      expect(d.spec.template.metadata.annotations).toEqual(
        expect.objectContaining({
          "prometheus.io/scrape": "true",
          "prometheus.io/port": String(port),
          "prometheus.io/path": "/metrics",
        }),
      );
    }
  });

  test("the gateway: HTTP on PORT, readiness /ready and liveness /health there, a Service to it", () => {
    const gateway = deployments.find((d) => servicesOf(d) === "gateway")!;
    const c = container(gateway);
    expect(portNamed(gateway, "http")).toBe(loadConfig(podEnv(objects, gateway)).port);
    expect(c.readinessProbe.httpGet).toEqual({ path: "/ready", port: "http" });
    expect(c.livenessProbe.httpGet).toEqual({ path: "/health", port: "http" });
    const [svc] = ofKind(objects, "Service").filter((s) =>
      isSubset(s.spec.selector, gateway.spec.template.metadata.labels),
    );
    expect(portNamed(gateway, svc.spec.ports[0].targetPort)).toBe(portNamed(gateway, "http"));
  });

  test("the other services are probed on /ready and /health of their metrics port, and have no Service", () => {
    for (const d of deployments.filter((x) => servicesOf(x) !== "gateway")) {
      const c = container(d);
      expect({ d: label(d), ports: c.ports.map((p: any) => p.name) }).toEqual({
        d: label(d),
        ports: ["metrics"],
      });
      expect({ d: label(d), probe: c.readinessProbe?.httpGet }).toEqual({
        d: label(d),
        probe: { path: "/ready", port: "metrics" },
      });
      expect({ d: label(d), probe: c.livenessProbe?.httpGet }).toEqual({
        d: label(d),
        probe: { path: "/health", port: "metrics" },
      });
    }
    for (const svc of ofKind(objects, "Service")) {
      const targets = deployments.filter((d) => isSubset(svc.spec.selector, d.spec.template.metadata.labels));
      expect({ svc: label(svc), targets: targets.map(servicesOf) }).toEqual({
        svc: label(svc),
        targets: ["gateway"],
      });
    }
  });

  test("every probe asks a port the container declares", () => {
    for (const d of deployments) {
      const c = container(d);
      for (const probe of [c.readinessProbe, c.livenessProbe, c.startupProbe].filter(Boolean))
        expect({ d: label(d), port: portNamed(d, probe.httpGet.port) }).toEqual({
          d: label(d),
          port: expect.any(Number),
        });
    }
  });

  test("terminationGracePeriodSeconds outlasts the preStop pause plus the drain (2 x SHUTDOWN_TIMEOUT + 5 s)", () => {
    for (const d of deployments) {
      const pod = d.spec.template.spec;
      const preStop = container(d).lifecycle?.preStop;
      let pause = 0;
      if (preStop) {
        // `sleep N` from the image's coreutils (deploy/Dockerfile's base is Debian slim, not distroless).
        expect(preStop.exec.command).toEqual(["sleep", expect.stringMatching(/^\d+$/)]);
        pause = Number(preStop.exec.command[1]);
      }
      const needed = pause + drainSeconds(podEnv(objects, d));
      expect({
        d: label(d),
        grace: pod.terminationGracePeriodSeconds,
        over: pod.terminationGracePeriodSeconds > needed,
      }).toEqual({
        d: label(d),
        grace: pod.terminationGracePeriodSeconds,
        over: true,
      });
    }
    // The pods a Service sends to pause before SIGTERM, so endpoint removal reaches every proxy first.
    const gateway = deployments.find((d) => servicesOf(d) === "gateway")!;
    expect(Number(container(gateway).lifecycle.preStop.exec.command[1])).toBeGreaterThanOrEqual(5);
    expect(read("deploy/Dockerfile")).toMatch(/^FROM node:24-bookworm-slim\b/m);
  });

  test("rolling updates never lower capacity: maxUnavailable 0, a surge of 1", () => {
    for (const d of deployments)
      expect({ d: label(d), strategy: d.spec.strategy }).toEqual({
        d: label(d),
        strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      });
  });

  test("resources (requests <= limits), a locked-down securityContext and a writable /tmp", () => {
    for (const d of deployments) {
      const pod = d.spec.template.spec;
      const c = container(d);
      const { requests, limits } = c.resources;
      for (const r of ["cpu", "memory"])
        expect({ d: label(d), r, ok: quantity(requests[r]) <= quantity(limits[r]) }).toEqual({
          d: label(d),
          r,
          ok: true,
        });
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
      expect(c.securityContext).toEqual(
        expect.objectContaining({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false }),
      );
      const tmp = c.volumeMounts.find((m: any) => m.mountPath === "/tmp");
      expect(pod.volumes.find((v: any) => v.name === tmp?.name)?.emptyDir).toBeDefined();
    }
  });

  test("the example MongoDB connection string names a replica set, with credentials, in the Secret only", () => {
    const text = read(SECRET_TEMPLATE);
    const examples = [
      /--from-literal=MONGO_URL='([^']+)'/.exec(text)?.[1],
      /^<CHANGE-ME: (.+)>$/.exec(secretTemplate.stringData.MONGO_URL)?.[1],
    ];
    for (const example of examples) {
      // A seed list (host,host,host) is no WHATWG URL: taken apart by its grammar.
      const [, user, password, hosts, query] = /^mongodb:\/\/([^:@]+):([^@]+)@([^/]+)\/\?(.+)$/.exec(
        example!,
      )!;
      const params = new URLSearchParams(query);
      expect(params.get("replicaSet")).toBe("rs0");
      expect(params.get("authSource")).toBe("admin");
      expect(user && password).toBeTruthy();
      // Several members: the driver finds the primary among them.
      expect(hosts.split(",").length).toBeGreaterThanOrEqual(3);
    }
  });

  test("no secret in a ConfigMap or inline in a Deployment", () => {
    for (const cm of ofKind(objects, "ConfigMap"))
      for (const key of Object.keys(cm.data))
        expect({ key, secret: SECRET_NAME.test(key) }).toEqual({ key, secret: false });
    for (const d of deployments)
      for (const e of container(d).env ?? [])
        if (SECRET_NAME.test(e.name))
          expect({ name: e.name, inline: e.value !== undefined }).toEqual({ name: e.name, inline: false });
    expect(ofKind(objects, "Secret")).toEqual([]);
  });
});

test("the base runs one replica of each and neither autoscales nor budgets disruptions", () => {
  for (const d of ofKind(base, "Deployment"))
    expect({ d: label(d), replicas: d.spec.replicas }).toEqual({ d: label(d), replicas: undefined });
  expect(ofKind(base, "HorizontalPodAutoscaler")).toEqual([]);
  expect(ofKind(base, "PodDisruptionBudget")).toEqual([]);
});

describe("production scaling", () => {
  const deployments = ofKind(production, "Deployment");
  const hpas = ofKind(production, "HorizontalPodAutoscaler");
  const pdbs = ofKind(production, "PodDisruptionBudget");
  const hpaOf = (d: any) =>
    hpas.filter(
      (h) => h.spec.scaleTargetRef.kind === "Deployment" && h.spec.scaleTargetRef.name === d.metadata.name,
    );
  const minReplicas = (d: any) => hpaOf(d)[0]?.spec.minReplicas ?? d.spec.replicas ?? 1;

  test("every HorizontalPodAutoscaler targets a Deployment that exists, on CPU, relative to a CPU request", () => {
    for (const h of hpas) {
      const target = deployments.filter(
        (d) => h.spec.scaleTargetRef.kind === "Deployment" && d.metadata.name === h.spec.scaleTargetRef.name,
      );
      expect({ hpa: label(h), targets: target.length }).toEqual({ hpa: label(h), targets: 1 });
      expect(h.spec.scaleTargetRef.apiVersion).toBe("apps/v1");
      expect(h.spec.minReplicas).toBeLessThanOrEqual(h.spec.maxReplicas);
      expect(h.spec.metrics.map((m: any) => m.resource?.name)).toEqual(["cpu"]);
      expect(container(target[0]).resources.requests.cpu).toBeDefined();
    }
  });

  test("the stateless services autoscale; the HPA alone owns their replica count", () => {
    for (const d of deployments) {
      const autoscaled = AUTOSCALED.includes(servicesOf(d));
      expect({ d: label(d), hpas: hpaOf(d).length }).toEqual({ d: label(d), hpas: autoscaled ? 1 : 0 });
      if (autoscaled)
        expect({ d: label(d), replicas: d.spec.replicas }).toEqual({ d: label(d), replicas: undefined });
    }
  });

  test("scheduler and adapters run a fixed count, never autoscaled; the store is not run", () => {
    for (const [service, why] of Object.entries(FIXED_REPLICAS)) {
      const d = deployments.find((x) => servicesOf(x) === service)!;
      expect({ service, why, hpas: hpaOf(d).length, replicas: d.spec.replicas }).toEqual({
        service,
        why,
        hpas: 0,
        replicas: expect.any(Number),
      });
    }
    for (const service of Object.keys(NOT_DEPLOYED))
      expect(deployments.filter((d) => servicesOf(d) === service)).toEqual([]);
    const docs = read("docs/deployment.md");
    for (const service of [...Object.keys(FIXED_REPLICAS), ...Object.keys(NOT_DEPLOYED)])
      expect({ service, inScalingTable: new RegExp(`\\|\\s*\`${service}\`\\s*\\|`).test(docs) }).toEqual({
        service,
        inScalingTable: true,
      });
  });

  test("one PodDisruptionBudget per Deployment: one pod at a time, never blocking a drain, never the last pod", () => {
    for (const p of pdbs) {
      const selected = deployments.filter((d) =>
        isSubset(p.spec.selector.matchLabels, d.spec.template.metadata.labels),
      );
      expect({ pdb: label(p), selects: selected.map(servicesOf) }).toEqual({
        pdb: label(p),
        selects: [expect.any(String)],
      });
    }
    for (const d of deployments) {
      const mine = pdbs.filter((p) => isSubset(p.spec.selector.matchLabels, d.spec.template.metadata.labels));
      expect({ d: label(d), pdbs: mine.length }).toEqual({ d: label(d), pdbs: 1 });
      const min = minReplicas(d);
      const { maxUnavailable, minAvailable } = mine[0].spec;
      // At the fewest replicas, a disruption is allowed (drains proceed) and a pod stays up.
      const allowed = maxUnavailable ?? min - minAvailable;
      expect({ d: label(d), min, allowed, stays: min - allowed }).toEqual({
        d: label(d),
        min,
        allowed: expect.any(Number),
        stays: expect.any(Number),
      });
      expect(allowed).toBeGreaterThanOrEqual(1);
      expect(min - allowed).toBeGreaterThanOrEqual(1);
    }
  });
});

describe("the probe paths are served", () => {
  let gateway: Platform | undefined;
  afterAll(() => gateway?.stop());

  test("/ready and /health are gateway routes, answered by a running gateway", async () => {
    const routes = new Map(operations().map((op) => [`${op.method} ${op.path}`, op.action]));
    expect(routes.get("GET /ready")).toBe("gateway.ready");
    expect(routes.get("GET /health")).toBe("gateway.health");
    gateway = await startPlatform({ services: ["gateway"], env: { METRICS_PORT: "off" } });
    expect((await fetch(`${gateway.baseUrl}/health`)).status).toBe(200);
    // Alone, the gateway is not ready (no accounts): 503, not 404.
    expect((await fetch(`${gateway.baseUrl}/ready`)).status).toBe(503);
  });

  (METRICS_IN_CODE ? test : test.skip)(
    "/metrics answers on METRICS_PORT of a process without the gateway",
    async () => {
      const port = await freePort();
      const platform = await startPlatform({ services: ["store"], env: { METRICS_PORT: String(port) } });
      try {
        const reply = await fetch(`http://127.0.0.1:${port}/metrics`);
        expect(reply.status).toBe(200);
        expect(await reply.text()).toMatch(/^# (HELP|TYPE) /m);
      } finally {
        await platform.stop();
      }
    },
  );
  if (!METRICS_IN_CODE)
    console.warn(
      "deploy tests: /metrics is not served yet (METRICS_PORT unread); its live probe check is skipped",
    );
});
