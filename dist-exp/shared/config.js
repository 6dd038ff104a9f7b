"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.loadConfig = loadConfig;
/**
 * Every setting of the platform, read from the environment in one place.
 * docs/configuration.md lists them; keep the two in step.
 */
const node_path_1 = __importDefault(require("node:path"));
const telemetry_1 = require("./telemetry");
function int(name, fallback, min = 0) {
    const raw = process.env[name];
    if (raw === undefined || raw === "")
        return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min)
        throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
    return n;
}
function list(name) {
    const raw = process.env[name];
    if (!raw || raw.trim() === "" || raw.trim() === "all")
        return undefined;
    return raw
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
}
function bool(name, fallback) {
    const raw = process.env[name];
    if (raw === undefined || raw === "")
        return fallback;
    return ["1", "true", "yes", "on"].includes(raw.toLowerCase());
}
function fraction(name, fallback) {
    const raw = process.env[name];
    if (raw === undefined || raw === "")
        return fallback;
    const n = Number(raw);
    if (!(n >= 0 && n <= 1))
        throw new Error(`${name} must be a number from 0 to 1, got "${raw}"`);
    return n;
}
function logFormat() {
    const raw = process.env.LOG_FORMAT || "text";
    if (raw !== "text" && raw !== "json")
        throw new Error(`LOG_FORMAT must be text or json, got "${raw}"`);
    return raw;
}
function loadConfig(env = process.env) {
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
            dataDir: node_path_1.default.resolve(process.env.DATA_DIR || "./data"),
            adminPassword: process.env.ADMIN_PASSWORD || undefined,
            transporter: transporter && transporter !== "local" ? transporter : undefined,
            services: list("SERVICES"),
            mongoUrl: process.env.MONGO_URL || undefined,
            mongoDb: process.env.MONGO_DB || "automation_platform",
            storeBackend: backend,
            storeFsync: bool("STORE_FSYNC", false),
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
            loginRateLimit: int("LOGIN_RATE_LIMIT", 60, 1),
            loginMaxFailures: int("LOGIN_MAX_FAILURES", 10, 1),
            loginFailureWindowMs: int("LOGIN_FAILURE_WINDOW_MS", 900_000, 1000),
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
            telemetry: (0, telemetry_1.telemetryEnabled)(process.env),
            traceSampleRate: fraction("TRACE_SAMPLE_RATE", 1),
            engine: {
                claimTtlMs: int("ENGINE_CLAIM_TTL_MS", 6000, 1000),
                sweepIntervalMs: int("ENGINE_SWEEP_INTERVAL_MS", 1000, 100),
                maxLocalTasks: int("ENGINE_MAX_LOCAL_TASKS", 1000, 1),
                taskTimeoutMs: int("ENGINE_TASK_TIMEOUT_MS", 600_000, 1000),
                strictDrafts: bool("ENGINE_STRICT_DRAFTS", false),
            },
            adapters: {
                healthTickMs: int("ADAPTER_HEALTH_TICK_MS", 1000, 50),
                deviceLookupTimeoutMs: int("DEVICE_LOOKUP_TIMEOUT_MS", 10_000, 100),
            },
            scheduler: {
                tickMs: int("SCHEDULER_TICK_MS", 500, 50),
                claimTtlMs: int("SCHEDULER_CLAIM_TTL_MS", 10_000, 1000),
                minIntervalMs: int("SCHEDULE_MIN_INTERVAL_MS", 10_000, 1000),
                graceMs: int("SCHEDULER_GRACE_MS", 60_000, 0),
                batch: int("SCHEDULER_BATCH", 500, 1),
            },
            compliance: {
                sweepMs: int("COMPLIANCE_SWEEP_MS", 1000, 50),
                leaseMs: int("COMPLIANCE_LEASE_MS", 15_000, 1000),
                chunk: int("COMPLIANCE_CHUNK", 100, 1),
            },
        };
    }
    finally {
        process.env = saved;
    }
}
//# sourceMappingURL=config.js.map