/**
 * Every setting of the platform, read from the environment in one place.
 * docs/configuration.md lists them; keep the two in step.
 */
import os from "node:os";
import path from "node:path";
import { telemetryEnabled } from "./telemetry";

export type StoreBackend = "embedded" | "mongo" | "remote";

export interface MongoSettings {
  /** Write concern `w`: "majority" or a number of members. */
  writeConcern: "majority" | number;
  journal: boolean;
  readPreference: "primary" | "primaryPreferred" | "secondary" | "secondaryPreferred" | "nearest";
  readConcern: "local" | "majority" | "linearizable" | "available" | "snapshot";
  /** Bound on each operation, retries included; below requestTimeout so a write never commits after its 504. */
  timeoutMs: number;
  serverSelectionTimeoutMs: number;
  maxPoolSize: number;
  appName: string;
}

export interface PlatformConfig {
  /** HTTP port of the gateway. */
  port: number;
  host: string;
  /** Where the embedded store, the generated admin password and the generated encryption key live. */
  dataDir: string;
  /** Password of the bootstrap `admin` account on first start; generated when unset. */
  adminPassword?: string;
  /** Moleculer transporter: unset means in-process ("local"); `nats://host:4222` for the bus. */
  transporter?: string;
  /** Services this process runs; `undefined` means all of them (the embedded default). */
  services?: string[];
  mongoUrl?: string;
  mongoDb: string;
  /** What the MongoDB driver is told (shared/store/mongo.ts, docs/configuration.md#mongodb). */
  mongo: MongoSettings;
  /** Explicit store choice; `undefined` means: mongo when MONGO_URL, embedded when this process hosts the store service, remote otherwise. */
  storeBackend?: StoreBackend;
  /** Durable mode: a write is acknowledged once its log line is on disk (group commit). */
  storeFsync: boolean;
  /**
   * A file the embedded store notes every query no declared index serves in (the index plan's
   * check: shared/store/embedded/query-shapes.ts); the test run sets it.
   */
  storeQueryShapes?: string;
  /**
   * PERF_MACHINERY (default on; `off` turns it off): the embedded store's and the engine's
   * performance machinery (frozen JSON texts, shared frozen drafts, the read cache, the fast update
   * path, the workflows an engine replica keeps for job starts). Off, both copy and serialize
   * plainly, and every start reads its workflow from the store: a differential run compares the two
   * (docs/performance.md#the-performance-machinery-and-its-switch).
   */
  perfMachinery: boolean;
  /**
   * STORE_HOT_DOCUMENTS: documents of a collection the embedded store holds as objects, the rest
   * as their JSON text, parsed when read; unset, the store's default (1,024:
   * shared/store/embedded/doc-map.ts HOT_DOCUMENTS).
   */
  storeHotDocuments?: number;
  /** 32-byte AES-256-GCM key (hex or base64); generated into DATA_DIR when unset. */
  encryptionKey?: string;
  logLevel: string;
  /** `text` (readable, the default) or `json` (one object a line: docs/operations-guide.md#logs). */
  logFormat: "text" | "json";
  /** LOG_FILE: also append JSON log lines to this file, at LOG_FILE_LEVEL (default LOG_LEVEL). */
  logFile?: { path: string; level: string };
  /** Port of the Prometheus `/metrics` endpoint; 0 picks a free one; null (METRICS_PORT=off) turns metrics off. */
  metricsPort: number | null;
  nodeId?: string;
  namespace: string;
  serializer: string;
  /** Milliseconds a call may take before it answers 504. */
  requestTimeout: number;
  /** Largest accepted request body, in body-parser notation ("1mb"). */
  bodyLimit: string;
  /**
   * Milliseconds the gateway keeps an idle keep-alive connection open. Above a load balancer's
   * idle timeout (60 s on most), so the balancer, not the gateway, closes an idle connection: a
   * request it sends on a connection the gateway is closing would be answered 502.
   */
  httpKeepAliveTimeoutMs: number;
  /** Sign-in attempts per client address per rate-limit window (stricter than RATE_LIMIT). */
  loginRateLimit: number;
  /** Failed sign-ins of one account within loginFailureWindowMs before it is refused for the rest of the window. */
  loginMaxFailures: number;
  loginFailureWindowMs: number;
  /** Sign-ins and password changes doing scrypt work at once per accounts replica, and waiting at most. */
  passwordWork: { concurrency: number; queue: number };
  /** Server-Sent Event streams (GET /events): caps and how often their callers are re-read. */
  eventStreams: { perSession: number; total: number; recheckMs: number };
  /** Bounds on every input's shape, at the gateway and on every action call (docs/security.md#limits). */
  inputLimits: { maxDepth: number; maxNodes: number };
  /** Requests per client per window; 0 disables rate limiting. */
  rateLimit: number;
  rateLimitWindowMs: number;
  /** CORS allowed origins; empty disables CORS headers. */
  corsOrigins: string[];
  /** Idle session lifetime in seconds (sliding). */
  sessionTtlSeconds: number;
  /** How long a gateway replica trusts a session it has verified, in ms (revocations are pushed sooner). */
  authCacheMs: number;
  /** Seconds between heartbeats on the bus. */
  heartbeatIntervalSeconds: number;
  /** Seconds without a heartbeat after which a node counts as gone. */
  heartbeatTimeoutSeconds: number;
  /** Milliseconds a stopping node waits for calls in flight. */
  shutdownTimeout: number;
  /** Seconds an idempotent write's answer is kept for a repeat with the same request id (shared/idempotency.ts). */
  idempotencyTtlSeconds: number;
  /** OpenTelemetry tracing is on (an OTLP endpoint or a traces exporter is configured). */
  telemetry: boolean;
  /** Share of requests traced when telemetry is on (TRACE_SAMPLE_RATE, 0..1). */
  traceSampleRate: number;
  /** Workflow engine timings and limits (docs/engine.md). */
  engine: {
    /** How long a claim on a running task holds without renewal: a dead replica's tasks resume after it. */
    claimTtlMs: number;
    /** How often each engine replica sweeps for due work (expired claims, wake-ups, unclaimed tasks). */
    sweepIntervalMs: number;
    /** Tasks one engine replica runs at once. */
    maxLocalTasks: number;
    /** How long an automatic task's action call may take. */
    taskTimeoutMs: number;
  };
  /** Adapter health checks and device lookup (docs/orchestrator.md). */
  adapters: {
    /** How often each adapters replica looks for adapters whose health check is due. */
    healthTickMs: number;
    /** How long device lookup (operation 15) waits for one adapter's devices before leaving them out. */
    deviceLookupTimeoutMs: number;
  };
  /** Scheduler timings and limits (docs/scheduler.md). */
  scheduler: {
    /**
     * The safety sweep: how often each scheduler replica runs a full pass (due slots, expired
     * claims) and re-reads its due times, whatever its timers know.
     */
    tickMs: number;
    /** Timers armed at the due times (false: only the sweep fires; tests that drive the clock). */
    timers: boolean;
    /** How long a claimed slot holds without being fired; another replica completes it after. */
    claimTtlMs: number;
    /** The shortest repeatInterval an automation may have. */
    minIntervalMs: number;
    /** A slot later than this is "missed" and follows its automation's missed-run policy. */
    graceMs: number;
    /** Due automations one pass takes at most (the next pass takes the rest). */
    batch: number;
  };
  /** Compliance batch worker (docs/configuration-manager.md#batches). */
  compliance: {
    /** How often each configuration replica looks for batches to run. */
    sweepMs: number;
    /** How long a claim on a batch holds without renewal; a dead replica's batch resumes after it. */
    leaseMs: number;
    /** Devices checked between two progress writes. */
    chunk: number;
    /** Worker threads that evaluate devices (0: the service's own event loop). */
    workers: number;
    /** How long one device's evaluation may run before it is reported unreadable. */
    deviceBudgetMs: number;
    /** Linux nice value of the evaluation threads (0: the process's own). */
    workerNice: number;
  };
}

function int(name: string, fallback: number, min = 0): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

function list(name: string): string[] | undefined {
  const raw = process.env[name];
  if (!raw || raw.trim() === "" || raw.trim() === "all") return undefined;
  return raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

function bool(name: string, fallback: boolean): boolean {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  return ["1", "true", "yes", "on"].includes(raw.toLowerCase());
}

function fraction(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!(n >= 0 && n <= 1)) throw new Error(`${name} must be a number from 0 to 1, got "${raw}"`);
  return n;
}

function logFormat(): "text" | "json" {
  const raw = process.env.LOG_FORMAT || "text";
  if (raw !== "text" && raw !== "json") throw new Error(`LOG_FORMAT must be text or json, got "${raw}"`);
  return raw;
}

function oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!allowed.includes(raw as T))
    throw new Error(`${name} must be one of ${allowed.join(", ")}, got "${raw}"`);
  return raw as T;
}

/** The MongoDB driver's settings: production defaults, each overridable (docs/configuration.md#mongodb). */
function mongoSettings(requestTimeout: number): MongoSettings {
  const w = process.env.MONGO_WRITE_CONCERN;
  const writeConcern = !w || w === "majority" ? "majority" : Number(w);
  if (writeConcern !== "majority" && !(Number.isInteger(writeConcern) && writeConcern >= 1))
    throw new Error(`MONGO_WRITE_CONCERN must be "majority" or a whole number >= 1, got "${w}"`);
  // Below the request timeout, leaving a second (or half of a short one) for the answer to travel back.
  const fallback =
    requestTimeout > 2000
      ? Math.min(requestTimeout - 1000, 8000)
      : Math.max(1, Math.floor(requestTimeout / 2));
  const timeoutMs = int("MONGO_TIMEOUT_MS", fallback, 1);
  if (process.env.MONGO_TIMEOUT_MS && timeoutMs >= requestTimeout)
    throw new Error(`MONGO_TIMEOUT_MS (${timeoutMs}) must be below REQUEST_TIMEOUT (${requestTimeout})`);
  return {
    writeConcern,
    journal: bool("MONGO_JOURNAL", true),
    readPreference: oneOf(
      "MONGO_READ_PREFERENCE",
      ["primary", "primaryPreferred", "secondary", "secondaryPreferred", "nearest"] as const,
      "primary",
    ),
    readConcern: oneOf(
      "MONGO_READ_CONCERN",
      ["local", "majority", "linearizable", "available", "snapshot"] as const,
      "majority",
    ),
    timeoutMs,
    serverSelectionTimeoutMs: int("MONGO_SERVER_SELECTION_TIMEOUT_MS", Math.min(5000, timeoutMs), 1),
    maxPoolSize: int("MONGO_MAX_POOL_SIZE", 50, 1),
    appName: process.env.MONGO_APP_NAME || "automation-platform",
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): PlatformConfig {
  const saved = process.env;
  process.env = env;
  try {
    const backend = process.env.STORE;
    if (backend && !["embedded", "mongo", "remote"].includes(backend)) {
      throw new Error(`STORE must be embedded, mongo or remote, got "${backend}"`);
    }
    const transporter = process.env.TRANSPORTER;
    return {
      port: int("PORT", 3000),
      host: process.env.HOST || "0.0.0.0",
      dataDir: path.resolve(process.env.DATA_DIR || "./data"),
      adminPassword: process.env.ADMIN_PASSWORD || undefined,
      transporter: transporter && transporter !== "local" ? transporter : undefined,
      services: list("SERVICES"),
      mongoUrl: process.env.MONGO_URL || undefined,
      mongoDb: process.env.MONGO_DB || "automation_platform",
      mongo: mongoSettings(int("REQUEST_TIMEOUT", 10_000, 1)),
      storeBackend: backend as StoreBackend | undefined,
      storeFsync: bool("STORE_FSYNC", false),
      perfMachinery: bool("PERF_MACHINERY", true),
      storeHotDocuments: process.env.STORE_HOT_DOCUMENTS ? int("STORE_HOT_DOCUMENTS", 0) : undefined,
      storeQueryShapes: process.env.STORE_QUERY_SHAPES || undefined,
      encryptionKey: process.env.ENCRYPTION_KEY || undefined,
      logLevel: process.env.LOG_LEVEL || "info",
      logFormat: logFormat(),
      ...(process.env.LOG_FILE && {
        logFile: {
          path: process.env.LOG_FILE,
          level: process.env.LOG_FILE_LEVEL || process.env.LOG_LEVEL || "info",
        },
      }),
      metricsPort: process.env.METRICS_PORT === "off" ? null : int("METRICS_PORT", 3031),
      nodeId: process.env.NODE_ID || undefined,
      namespace: process.env.NAMESPACE || "",
      serializer: process.env.SERIALIZER || "JSON",
      requestTimeout: int("REQUEST_TIMEOUT", 10_000, 1),
      bodyLimit: process.env.BODY_LIMIT || "1mb",
      httpKeepAliveTimeoutMs: int("HTTP_KEEP_ALIVE_TIMEOUT_MS", 65_000, 1000),
      loginRateLimit: int("LOGIN_RATE_LIMIT", 60, 1),
      loginMaxFailures: int("LOGIN_MAX_FAILURES", 10, 1),
      loginFailureWindowMs: int("LOGIN_FAILURE_WINDOW_MS", 900_000, 1000),
      passwordWork: {
        concurrency: int("PASSWORD_WORK_CONCURRENCY", 2, 1),
        queue: int("PASSWORD_WORK_QUEUE", 64, 0),
      },
      eventStreams: {
        perSession: int("EVENTS_MAX_PER_SESSION", 5, 1),
        total: int("EVENTS_MAX_STREAMS", 1000, 1),
        recheckMs: int("EVENTS_RECHECK_MS", 5000, 100),
      },
      inputLimits: {
        maxDepth: int("MAX_INPUT_DEPTH", 64, 2),
        maxNodes: int("MAX_INPUT_NODES", 100_000, 10),
      },
      rateLimit: int("RATE_LIMIT", 1200),
      rateLimitWindowMs: int("RATE_LIMIT_WINDOW", 60_000, 1),
      corsOrigins: list("CORS_ORIGINS") ?? (process.env.CORS_ORIGINS === "all" ? ["*"] : []),
      sessionTtlSeconds: int("SESSION_TTL", 3600, 1),
      authCacheMs: int("AUTH_CACHE_MS", 5000),
      heartbeatIntervalSeconds: int("HEARTBEAT_INTERVAL", 2, 1),
      heartbeatTimeoutSeconds: int("HEARTBEAT_TIMEOUT", 6, 2),
      shutdownTimeout: int("SHUTDOWN_TIMEOUT", 10_000),
      idempotencyTtlSeconds: int("IDEMPOTENCY_TTL", 86_400, 60),
      telemetry: telemetryEnabled(process.env),
      traceSampleRate: fraction("TRACE_SAMPLE_RATE", 1),
      engine: {
        claimTtlMs: int("ENGINE_CLAIM_TTL_MS", 6000, 1000),
        sweepIntervalMs: int("ENGINE_SWEEP_INTERVAL_MS", 1000, 100),
        maxLocalTasks: int("ENGINE_MAX_LOCAL_TASKS", 1000, 1),
        taskTimeoutMs: int("ENGINE_TASK_TIMEOUT_MS", 600_000, 1000),
      },
      adapters: {
        healthTickMs: int("ADAPTER_HEALTH_TICK_MS", 1000, 50),
        deviceLookupTimeoutMs: int("DEVICE_LOOKUP_TIMEOUT_MS", 10_000, 100),
      },
      scheduler: {
        tickMs: int("SCHEDULER_TICK_MS", 5000, 50),
        timers: bool("SCHEDULER_TIMERS", true),
        claimTtlMs: int("SCHEDULER_CLAIM_TTL_MS", 10_000, 1000),
        minIntervalMs: int("SCHEDULE_MIN_INTERVAL_MS", 10_000, 1000),
        graceMs: int("SCHEDULER_GRACE_MS", 60_000, 0),
        batch: int("SCHEDULER_BATCH", 500, 1),
      },
      compliance: {
        sweepMs: int("COMPLIANCE_SWEEP_MS", 1000, 50),
        leaseMs: int("COMPLIANCE_LEASE_MS", 15_000, 1000),
        chunk: int("COMPLIANCE_CHUNK", 100, 1),
        workers: int("COMPLIANCE_WORKERS", os.availableParallelism()),
        deviceBudgetMs: int("COMPLIANCE_BUDGET_MS", 10_000, 100),
        workerNice: Math.min(int("COMPLIANCE_WORKER_NICE", 0), 19),
      },
    };
  } finally {
    process.env = saved;
  }
}
