/**
 * An orchestrator adapter's target: where its requests go and with what, read from the stored
 * adapter (docs/orchestrator.md#the-orchestrator-adapter-type). Credentials are unsealed here, in
 * memory, only to build the Authorization header; they never leave this process in an answer,
 * an error or a log line.
 */
import { Errors } from "moleculer";
import { BadRequestError, invalidField } from "../../../shared/errors";
import { decrypt, isEncrypted } from "../../../shared/secrets";
import { isCredentialHeader } from "../credentials";
import type { StoredAdapter } from "../documents";

/** `properties.type` values that make an adapter an orchestrator adapter (compared lowercased). */
export const ORCHESTRATOR_TYPES = ["nso", "orchestrator"];

export const DEFAULT_TIMEOUT_MS = 30_000;
export const MAX_TIMEOUT_MS = 600_000;
export const DEFAULT_MAX_IN_FLIGHT = 8;
export const DEFAULT_MAX_QUEUE = 32;
export const DEFAULT_HEALTH_INTERVAL_MS = 60_000;
export const MIN_HEALTH_INTERVAL_MS = 200;
export const DEFAULT_BREAKER_THRESHOLD = 5;
export const DEFAULT_BREAKER_COOLDOWN_MS = 30_000;
/** A PEM bundle larger than this is not a CA bundle. */
const MAX_CA_BYTES = 256 * 1024;

export interface Target {
  name: string;
  /** protocol://host:port/basePath, without a trailing slash. */
  base: URL;
  headers: Record<string, string>;
  timeoutMs: number;
  maxInFlight: number;
  maxQueue: number;
  /** TLS: extra CA certificates (PEM) and whether a certificate that fails verification is refused. */
  tls: { ca?: string; rejectUnauthorized: boolean };
  /** Bumped by a restart: every replica drops its connections to the old generation. */
  generation: number;
  breaker: { threshold: number; cooldownMs: number };
  health: { path: string; intervalMs: number };
  devices: { path: string; accept: string; groupsPath: string };
  /** Told each upstream exchange's outcome (`2xx`..`5xx`, `timeout`, `unreachable`) and latency. */
  onUpstream?: (outcome: string, ms: number) => void;
}

export function isOrchestrator(doc: StoredAdapter): boolean {
  return ORCHESTRATOR_TYPES.includes(String(doc.properties.type).toLowerCase());
}

function boundedInt(value: unknown, fallback: number, min: number, max: number): number {
  return typeof value === "number" && Number.isInteger(value) && value >= min && value <= max
    ? value
    : fallback;
}

function plain(key: Buffer, value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  return isEncrypted(value) ? decrypt(key, value) : value;
}

/**
 * Why `value` cannot be sent as an HTTP header value, or undefined when it can: a header value is
 * Latin-1 text without control characters (CR and LF would split the request, NUL truncates it),
 * tabs allowed. Checked before anything is sent, so a bad value is the caller's 400, never the
 * upstream's failure.
 */
export function headerValueProblem(value: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value))
    return "holds a control character (CR, LF, NUL...), which a header value may not carry";
  if (/[^\t\u0020-\u00ff]/.test(value))
    return "holds a character outside Latin-1, which a header value may not carry";
  return undefined;
}

/** The target of an adapter, or 400 when it is not an orchestrator adapter or names no host. */
export function targetOf(doc: StoredAdapter, key: Buffer): Target {
  if (!isOrchestrator(doc))
    throw new BadRequestError(
      `Adapter '${doc.name}' is of type '${doc.properties.type}', not an orchestrator adapter`,
      [{ field: "adapterId", message: "not an orchestrator adapter", type: "adapterType" }],
    );
  const s = (doc.properties.properties ?? {}) as Record<string, any>;
  const protocol = s.protocol === "https" ? "https" : "http";
  if (typeof s.host !== "string" || s.host === "")
    throw invalidField("adapterId", `Adapter '${doc.name}' names no host`, "adapterTarget");
  const port = boundedInt(s.port, protocol === "https" ? 443 : 80, 1, 65535);
  const basePath = typeof s.base_path === "string" ? s.base_path.replace(/\/+$/, "") : "";
  let base: URL;
  try {
    base = new URL(
      `${protocol}://${s.host}:${port}${basePath.startsWith("/") || basePath === "" ? "" : "/"}${basePath}`,
    );
  } catch {
    throw invalidField("adapterId", `Adapter '${doc.name}' has an invalid base URL`, "adapterTarget");
  }
  const headers: Record<string, string> = {};
  // Credential headers are stored sealed (../credentials.ts): unsealed here, in memory, for the
  // request. Only those: a value under another name is sent as stored, so a sealed secret copied
  // there by a caller is never decrypted (docs/catalog.md#secrets).
  if (s.headers && typeof s.headers === "object")
    for (const [k, v] of Object.entries(s.headers)) {
      const value = isCredentialHeader(k) ? plain(key, v) : typeof v === "string" ? v : undefined;
      if (value === undefined) continue;
      const problem = headerValueProblem(value);
      if (problem)
        throw invalidField("adapterId", `Adapter '${doc.name}': header '${k}' ${problem}`, "headerValue");
      headers[k.toLowerCase()] = value;
    }
  const username = typeof s.username === "string" ? s.username : undefined;
  const password = plain(key, s.password);
  if (username !== undefined && password !== undefined)
    headers.authorization = "Basic " + Buffer.from(`${username}:${password}`).toString("base64");
  const token = plain(key, s.token);
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const ca = typeof s.ca === "string" && s.ca.length <= MAX_CA_BYTES ? s.ca : undefined;
  const devicesPath = typeof s.devicesPath === "string" ? s.devicesPath : "/api/running/devices/device";
  return {
    name: doc.name,
    base,
    headers,
    timeoutMs: boundedInt(s.timeout, DEFAULT_TIMEOUT_MS, 1, MAX_TIMEOUT_MS),
    maxInFlight: boundedInt(s.maxInFlight, DEFAULT_MAX_IN_FLIGHT, 1, 1024),
    maxQueue: boundedInt(s.maxQueue, DEFAULT_MAX_QUEUE, 0, 10_000),
    tls: { ...(ca !== undefined && { ca }), rejectUnauthorized: s.rejectUnauthorized !== false },
    generation: typeof doc.generation === "number" ? doc.generation : 0,
    breaker: {
      threshold: boundedInt(s.breakerThreshold, DEFAULT_BREAKER_THRESHOLD, 1, 1000),
      cooldownMs: boundedInt(s.breakerCooldown, DEFAULT_BREAKER_COOLDOWN_MS, 100, 3_600_000),
    },
    health: {
      path: typeof s.healthPath === "string" ? s.healthPath : "/",
      intervalMs: boundedInt(
        s.healthCheckInterval,
        DEFAULT_HEALTH_INTERVAL_MS,
        MIN_HEALTH_INTERVAL_MS,
        86_400_000,
      ),
    },
    devices: {
      path: devicesPath,
      accept: /^\/(restconf|data)\b/.test(devicesPath)
        ? "application/yang-data+json"
        : "application/vnd.yang.collection+json",
      groupsPath:
        typeof s.deviceGroupsPath === "string" ? s.deviceGroupsPath : "/api/running/devices/device-group",
    },
  };
}

/** Paths already resolved per target (a kept target serves many calls): at most MAX_PATHS each. */
const resolved = new WeakMap<Target, Map<string, URL>>();
const MAX_PATHS = 256;

/**
 * resolveUnder, remembered per target: a path resolves the same way until the target changes, and
 * a changed adapter is a new target. Only paths that resolve are kept; a refused one is refused
 * (and checked) every time. Callers must not change the URL answered: it is shared.
 */
export function resolvePath(target: Target, path: string): URL {
  let paths = resolved.get(target);
  const known = paths?.get(path);
  if (known !== undefined) return known;
  const url = resolveUnder(target, path);
  if (paths === undefined) resolved.set(target, (paths = new Map()));
  else if (paths.size >= MAX_PATHS) paths.clear();
  paths.set(path, url);
  return url;
}

/**
 * The absolute URL of `path` under the target's base, or 400. A path cannot leave the base URL:
 * it must start with one `/`, and neither it nor its percent-decoded form (decoded until stable,
 * so `%252e` counts) may hold a scheme, a backslash, a control character, an encoded slash, or a
 * `.`/`..` segment. The result is checked once more: same origin, under the base path.
 */
function resolveUnder(target: Target, path: string): URL {
  const refuse = (why: string) => invalidField("params.path", `params.path ${why}`, "pathEscape");
  if (!path.startsWith("/") || path.startsWith("//")) throw refuse("must start with a single '/'");
  let decoded = path;
  for (let i = 0; i < 5; i++) {
    let next: string;
    try {
      next = decodeURIComponent(decoded);
    } catch {
      throw refuse("holds an invalid percent-encoding");
    }
    if (next === decoded) break;
    if (/%2f|%5c/i.test(decoded)) throw refuse("may not hold an encoded slash");
    decoded = next;
  }
  if (/%/.test(decoded) && decoded !== decodeURIComponent(decoded)) throw refuse("is encoded too deeply");
  // eslint-disable-next-line no-control-regex
  if (/[\\\u0000-\u001f\u007f]/.test(decoded)) throw refuse("may not hold a backslash or control character");
  if (/^[a-z][a-z0-9+.-]*:/i.test(decoded.slice(1)) || decoded.includes("://"))
    throw refuse("may not name a scheme");
  const pathOnly = decoded.split(/[?#]/)[0];
  if (pathOnly.split("/").some((seg) => seg === ".." || seg === "."))
    throw refuse("may not hold '.' or '..' segments");
  const url = new URL(target.base.href.replace(/\/$/, "") + path);
  const basePath = target.base.pathname.replace(/\/$/, "");
  if (
    url.origin !== target.base.origin ||
    !(url.pathname === basePath || url.pathname.startsWith(basePath + "/"))
  )
    throw refuse("leaves the adapter's base URL");
  return url;
}

/** 504: the orchestrator did not answer within the adapter's timeout. */
export class GatewayTimeoutError extends Errors.MoleculerError {
  constructor(adapter: string, timeoutMs: number) {
    super(`Adapter '${adapter}': the orchestrator did not answer within ${timeoutMs} ms`, 504, "TIMEOUT", {
      adapter,
      timeoutMs,
    });
    this.name = "GatewayTimeoutError";
  }
}

/** 503: the adapter was stopped (PUT /adapters/:name/stop); it answers nothing until started. */
export class AdapterStoppedError extends Errors.MoleculerError {
  constructor(adapter: string) {
    super(`Adapter '${adapter}' is stopped`, 503, "ADAPTER_STOPPED", { adapter });
    this.name = "AdapterStoppedError";
  }
}

/** 503: the adapter's circuit is open: its target kept failing, so calls are refused for a while. */
export class CircuitOpenError extends Errors.MoleculerError {
  constructor(adapter: string, retryInMs: number) {
    super(
      `Adapter '${adapter}': the orchestrator kept failing; calls are refused for ${Math.ceil(retryInMs / 1000)} s`,
      503,
      "CIRCUIT_OPEN",
      { adapter, retryInMs },
    );
    this.name = "CircuitOpenError";
  }
}

/** 503: the adapter's in-flight limit and queue are both full. */
export class OverloadedError extends Errors.MoleculerRetryableError {
  constructor(adapter: string) {
    super(`Adapter '${adapter}' is at its in-flight limit and its queue is full`, 503, "ADAPTER_BUSY", {
      adapter,
    });
    this.name = "OverloadedError";
  }
}
