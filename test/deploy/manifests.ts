/**
 * What the deploy tests share: the env names the code reads, YAML parsing, and a small kustomize
 * build (resources, namespace, replicas, strategic-merge patches) so the overlays can be checked
 * without a cluster. When `kubectl` is installed, test/deploy/k8s.test.ts checks this build against
 * `kubectl kustomize`.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import YAML from "yaml";
import { loadConfig } from "../../shared/config";

export const ROOT = path.resolve(__dirname, "../..");
export const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), "utf8");

/** The env names shared/config.ts reads: `process.env.X` and the names given to its int/list/bool helpers. */
function configEnvNames(): Set<string> {
  const text = read("shared/config.ts");
  const names = new Set<string>();
  for (const m of text.matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)) names.add(m[1]);
  for (const m of text.matchAll(/\b(?:int|list|bool)\("([A-Z][A-Z0-9_]*)"/g)) names.add(m[1]);
  return names;
}
export const CONFIG_NAMES = configEnvNames();

/**
 * Settings issue 13's metrics-and-logs work adds to shared/config.ts (the Prometheus port, default
 * 3031; the log format). The deploy files set them already; until shared/config.ts reads one, it is
 * accepted here (with a warning), and from then on it is checked like every other name.
 */
export const INCOMING_NAMES: Record<string, string> = { METRICS_PORT: "3031", LOG_FORMAT: "text" };
export const incoming = (name: string) => name in INCOMING_NAMES && !CONFIG_NAMES.has(name);
export const knownEnv = (name: string) => CONFIG_NAMES.has(name) || incoming(name);

/** Whether this code base serves Prometheus metrics on METRICS_PORT yet. */
export const METRICS_IN_CODE = CONFIG_NAMES.has("METRICS_PORT");

/** The metrics port a process listens on with `env` (the config's value, or the agreed default). */
export function metricsPort(env: Record<string, string>): number | null {
  if (METRICS_IN_CODE) return (loadConfig(env) as { metricsPort?: number | null }).metricsPort ?? null;
  const raw = env.METRICS_PORT ?? INCOMING_NAMES.METRICS_PORT;
  return raw === "off" ? null : Number(raw);
}

/**
 * How long a stopping process may take, in seconds, from its SIGTERM to its exit: the drain (HTTP
 * requests, then calls in flight) is two steps each bounded by SHUTDOWN_TIMEOUT, and the process
 * exits by itself at the latest 5 s after both (app/shutdown.ts's hard-exit margin).
 */
export const drainSeconds = (env: Record<string, string>) => (2 * loadConfig(env).shutdownTimeout) / 1000 + 5;

export function parseYaml(rel: string): any[] {
  return YAML.parseAllDocuments(read(rel), { merge: true }).map((doc) => {
    expect({ file: rel, errors: doc.errors.map((e) => e.message) }).toEqual({ file: rel, errors: [] });
    // Aliases (&labels / *labels) come back as one shared object; a build must not patch both.
    return structuredClone(doc.toJS());
  });
}

/** A strategic merge patch, as far as these manifests use it: lists of named items merge by name. */
export function mergePatch(target: any, patch: any): any {
  if (Array.isArray(target) && Array.isArray(patch)) {
    if (!patch.every((p) => p && typeof p === "object" && "name" in p)) return patch;
    const out = [...target];
    for (const item of patch) {
      const i = out.findIndex((t) => t?.name === item.name);
      if (i >= 0) out[i] = mergePatch(out[i], item);
      else out.push(item);
    }
    return out;
  }
  if (target && patch && typeof target === "object" && typeof patch === "object" && !Array.isArray(patch)) {
    const out = { ...target };
    for (const [k, v] of Object.entries(patch)) out[k] = k in target ? mergePatch(target[k], v) : v;
    return out;
  }
  return patch;
}

export interface Kustomization {
  dir: string;
  resources?: string[];
  namespace?: string;
  replicas?: { name: string; count: number }[];
  patches?: { path: string; target?: { kind?: string; name?: string } }[];
  [key: string]: unknown;
}

/** Every kustomization.yaml under `dir` (repository-relative), with its directory. */
export function kustomizations(dir: string): Kustomization[] {
  const out: Kustomization[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...kustomizations(rel));
    else if (entry.name === "kustomization.yaml") out.push({ ...parseYaml(rel)[0], dir });
  }
  return out;
}

/** `kustomize build dir` for what these manifests use; dir is repository-relative. */
export function kustomizeBuild(dir: string): any[] {
  const k: Kustomization = { ...parseYaml(path.join(dir, "kustomization.yaml"))[0], dir };
  const known = ["dir", "apiVersion", "kind", "resources", "namespace", "replicas", "patches"];
  expect({ dir, unsupported: Object.keys(k).filter((key) => !known.includes(key)) }).toEqual({
    dir,
    unsupported: [],
  });
  let objects: any[] = [];
  for (const resource of k.resources ?? []) {
    const rel = path.join(dir, resource);
    objects.push(
      ...(fs.statSync(path.join(ROOT, rel)).isDirectory()
        ? kustomizeBuild(rel)
        : parseYaml(rel).filter((doc) => doc?.kind)),
    );
  }
  if (k.namespace) {
    for (const o of objects) if (o.kind !== "Namespace") o.metadata.namespace = k.namespace;
  }
  for (const { path: rel, target } of k.patches ?? []) {
    for (const patch of parseYaml(path.join(dir, rel)).filter(Boolean)) {
      const kind = target?.kind ?? patch.kind;
      const name = target ? target.name : patch.metadata.name;
      const hits = objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
      expect({ dir, patch: `${kind}/${name}`, found: hits.length > 0 }).toEqual({
        dir,
        patch: `${kind}/${name}`,
        found: true,
      });
      objects = objects.map((o) => (hits.includes(o) ? mergePatch(o, patch) : o));
    }
  }
  for (const { name, count } of k.replicas ?? []) {
    const hits = objects.filter((o) => o.metadata.name === name && o.kind === "Deployment");
    expect({ dir, replicas: name, found: hits.length }).toEqual({ dir, replicas: name, found: 1 });
    hits[0].spec.replicas = count;
  }
  return objects;
}

/** `kubectl kustomize dir` when kubectl is installed, else undefined. */
export function kubectlKustomize(dir: string): any[] | undefined {
  let out: string;
  try {
    out = execFileSync("kubectl", ["kustomize", path.join(ROOT, dir)], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 30_000,
    });
  } catch (err: any) {
    if (err.code === "ENOENT") return undefined;
    throw new Error(`kubectl kustomize ${dir} failed: ${err.stderr || err.message}`);
  }
  return YAML.parseAllDocuments(out).map((d) => d.toJS());
}

/** Kubernetes quantities, enough to compare requests with limits: "250m", "1", "512Mi", "1Gi". */
export function quantity(q: string | number): number {
  const m = /^([\d.]+)(m|Ki|Mi|Gi)?$/.exec(String(q));
  if (!m) throw new Error(`unparsed quantity ${q}`);
  const scale = { m: 1e-3, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 }[m[2] ?? ""] ?? 1;
  return Number(m[1]) * scale;
}

export const isSubset = (small: Record<string, string>, big: Record<string, string>) =>
  Object.entries(small).every(([k, v]) => big?.[k] === v);
