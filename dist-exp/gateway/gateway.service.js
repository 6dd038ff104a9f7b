"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.createGatewayService = createGatewayService;
exports.collapseSlashes = collapseSlashes;
const moleculer_web_1 = __importDefault(require("moleculer-web"));
const contracts_1 = require("../shared/contracts");
const errors_1 = require("../shared/errors");
const service_1 = require("../shared/service");
const gateway_1 = require("../shared/contracts/gateway");
const define_1 = require("../shared/contracts/define");
const auth_1 = require("./auth");
const probes_1 = require("./probes");
const health_1 = require("./health");
const event_stream_1 = require("./event-stream");
const drain_1 = require("./drain");
const metrics_1 = require("../shared/observability/metrics");
const events_1 = require("../shared/contracts/events");
const error_response_1 = require("./error-response");
const openapi_1 = require("./openapi");
const request_params_1 = require("./request-params");
const rate_limit_1 = require("./rate-limit");
const input_bounds_1 = require("../shared/input-bounds");
const session_cookie_1 = require("./session-cookie");
const version_1 = require("../shared/version");
const moleculer_1 = require("moleculer");
const DEFAULT_COOKIE = "token";
const REQUEST_ID = /^[A-Za-z0-9._:@-]{1,128}$/;
function hasBody(req) {
    return req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
}
const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;
function aliasesOf(ops) {
    return Object.fromEntries(ops.map((op) => [(0, contracts_1.routeKey)(op), op.action]));
}
/** A form body is taken only by operations that declare it (`form`: OAuth token requests). */
const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(;|$)/i;
function createGatewayService(config) {
    const ops = (0, contracts_1.operations)();
    // By route, not by action: a real-product path (an alias) is its own route to the same action.
    const byRoute = new Map(ops.map((op) => [(0, contracts_1.routeKey)(op), op]));
    // moleculer-web keeps the route's path in `fullPath` (its `path` loses the leading slash). Its
    // alias objects live as long as the route: each one's operation is looked up once.
    const opsByAlias = new WeakMap();
    const opOf = (alias) => {
        let op = opsByAlias.get(alias);
        if (!op) {
            op = byRoute.get((0, contracts_1.routeKey)({ method: alias.method, path: alias.fullPath }));
            opsByAlias.set(alias, op);
        }
        return op;
    };
    // Rate limits are the gateway's own (rate-limit.ts): per operation kind, which one route of
    // moleculer-web's cannot express, and moleculer-web serves one route per path.
    const limits = (0, rate_limit_1.rateLimits)(config);
    const route = {
        path: "/",
        mappingPolicy: "restrict",
        autoAliases: false,
        aliases: aliasesOf(ops),
        bodyParsers: {
            json: { limit: config.bodyLimit, strict: true, type: ["application/json", "application/*+json"] },
            // Parsed for any route, but only an operation that declares `form` accepts it (onBeforeCall).
            urlencoded: { extended: false, limit: config.bodyLimit, parameterLimit: 100 },
        },
        callOptions: { timeout: config.requestTimeout },
        async onBeforeCall(ctx, _route, req, _res, alias) {
            const op = opOf(alias);
            limits.take(op, req.socket.remoteAddress ?? "unknown");
            if (define_1.BODY_METHODS.includes(op.method) &&
                hasBody(req) &&
                !JSON_TYPE.test(req.headers["content-type"] ?? "") &&
                !(op.form && FORM_TYPE.test(req.headers["content-type"] ?? ""))) {
                throw new moleculer_1.Errors.MoleculerClientError(op.form
                    ? "Request body must be JSON or form-encoded (application/x-www-form-urlencoded)"
                    : "Request body must be JSON (Content-Type: application/json)", 415, "UNSUPPORTED_MEDIA_TYPE");
            }
            if (op.access !== "public") {
                const credentials = (0, auth_1.readCredentials)(req, this.cookieName());
                if (!credentials)
                    throw new errors_1.UnauthorizedError();
                const caller = await this.callers.resolve(ctx, credentials);
                if (!(0, auth_1.mayCall)(op.access, caller.roles))
                    throw new errors_1.ForbiddenError();
                ctx.meta.caller = caller;
            }
            // Before anything crosses the bus: a value too deep for the bus would not even serialize.
            (0, input_bounds_1.assertWithinBounds)(req.body, config.inputLimits);
            req.$params = (0, request_params_1.buildParams)(op, req, alias.match(req.parsedUrl) || {});
            // Remembered, so a local action's own bounds check does not walk these params again.
            (0, input_bounds_1.assertParamsWithinBounds)(req.$params, config.inputLimits);
        },
        async onAfterCall(ctx, _route, req, _res, data) {
            const op = opOf(req.$alias);
            return (0, session_cookie_1.applySessionEffect)(op.session, this.cookieName(), ctx.meta, data);
        },
        onError(req, res, err) {
            error_response_1.sendError.call(this, req, res, err);
        },
    };
    const settings = {
        port: config.port,
        ip: config.host,
        // Our own access log (below) redacts credentials; moleculer-web's would print ?token=...
        logRequest: null,
        logResponse: null,
        logRequestParams: null,
        logResponseData: null,
        log4XXResponses: false,
        rootCallOptions(options) {
            if (options.requestID && !REQUEST_ID.test(options.requestID))
                options.requestID = undefined;
        },
        cors: config.corsOrigins.length > 0
            ? {
                origin: config.corsOrigins.includes("*") ? "*" : config.corsOrigins,
                methods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
                allowedHeaders: ["Content-Type", "Authorization", "X-Request-ID"],
                exposedHeaders: ["X-Request-ID", "Retry-After"],
                credentials: !config.corsOrigins.includes("*"),
                maxAge: 600,
            }
            : undefined,
        routes: [route],
        onError(req, res, err) {
            error_response_1.sendError.call(this, req, res, err);
        },
    };
    return (0, service_1.typedService)({
        name: gateway_1.gateway.name,
        mixins: [moleculer_web_1.default],
        settings: settings,
        actions: {
            // moleculer-web names the request span after the URL and tags it with it: the query string
            // may hold a token, so spans carry the method and the path only.
            rest: {
                tracing: {
                    spanName: (ctx) => `${ctx.params.req.method} ${(ctx.params.req.url ?? "").split("?")[0]}`,
                    tags: (ctx) => ({
                        method: ctx.params.req.method,
                        path: (ctx.params.req.url ?? "").split("?")[0],
                    }),
                },
            },
            ...(0, service_1.contractActions)(gateway_1.gateway, {
                health: probes_1.health,
                ready: (0, probes_1.readiness)(ops),
                openapi: probes_1.openapi,
                version: probes_1.version,
                events: probes_1.events,
                healthStatus: health_1.healthStatus,
                healthSystem: health_1.healthSystem,
                healthServer: health_1.healthServer,
                healthApplications: health_1.healthApplications,
                healthApplication: health_1.healthApplication,
                applications: health_1.applications,
                application: health_1.application,
                restartApplication: health_1.restartApplication,
            }),
        },
        events: {
            [events_1.SESSIONS_REVOKED_EVENT](ctx) {
                this.callers.revoke(ctx.params.sessionIds);
                this.streams.endSessions(ctx.params.sessionIds);
            },
            // One engine event per job write; streams get a job event and a task event each, as before.
            [events_1.ENGINE_EVENTS.changes](ctx) {
                const { jobChanged, tasks, ...job } = ctx.params;
                for (const task of tasks)
                    this.streams.publish("task", { ...job, ...task });
                if (jobChanged)
                    this.streams.publish("job", job);
            },
            [events_1.PROFILE_ACTIVATED_EVENT](ctx) {
                this.activeCookieName = ctx.params.cookieName || DEFAULT_COOKIE;
            },
            // The profiles service may start after the gateway: read the active profile when it appears.
            "$services.changed"() {
                this.refreshCookieName();
            },
        },
        methods: {
            /** Event streams take their own path (see sendEventStream); everything else moleculer-web's. */
            sendResponse(req, res, data, action) {
                if ((0, event_stream_1.isEventStream)(data)) {
                    const requestId = req.$ctx?.requestID;
                    return (0, event_stream_1.sendEventStream)(res, data, requestId ? { "X-Request-ID": String(requestId) } : {});
                }
                return moleculer_web_1.default.methods.sendResponse.call(this, req, res, data, action);
            },
            /** Replaces moleculer-web's, which logs stacks and error data (possibly secrets) for every 5xx. */
            errorHandler(req, res, err) {
                error_response_1.sendError.call(this, req, res, err);
            },
            /** The session cookie's name: the active profile's `authenticationProps.cookieName`, default `token`. */
            cookieName() {
                return this.activeCookieName ?? DEFAULT_COOKIE;
            },
            async refreshCookieName() {
                if (!(0, service_1.isActionAvailable)(this.broker, "profiles.active"))
                    return;
                try {
                    const profile = await (0, contracts_1.call)(this.broker, "profiles.active", {});
                    this.activeCookieName = profile?.authenticationProps?.cookieName || DEFAULT_COOKIE;
                }
                catch (err) {
                    // Not implemented yet or unreachable: keep the current name.
                    this.logger.debug(`active profile unavailable: ${err.message}`);
                }
            },
            retryAfterSeconds() {
                return Math.ceil(config.rateLimitWindowMs / 1000);
            },
            /** The gateway's drain (./drain.ts): app/shutdown.ts calls it before the broker stops. */
            async drain() {
                this.streams.close();
                if (this.server)
                    await this.httpDrain.drain(this.server, config.shutdownTimeout);
            },
        },
        created() {
            this.callers = new auth_1.CallerCache(config.authCacheMs);
            this.streams = new event_stream_1.EventStreams(config.eventStreams, (caller) => (0, contracts_1.call)(this.broker, "accounts.refreshCaller", {
                accountId: caller.accountId,
                ...(caller.sessionId && { sessionId: caller.sessionId }),
            }));
            this.openApiDocument = (0, openapi_1.buildOpenApi)(version_1.API_VERSION);
            this.httpDrain = new drain_1.HttpDrain();
        },
        async stopped() {
            clearInterval(this.profileTimer);
            await this.drain();
        },
        async started() {
            await this.refreshCookieName();
            // Other nodes learn this gateway's event listeners about a second after it starts: an
            // activation broadcast in that window would be missed, so the active profile is re-read now and then.
            this.profileTimer = setInterval(() => void this.refreshCookieName(), 30_000);
            this.profileTimer.unref();
            // Malformed requests and oversized request heads never reach a route: Node would answer them
            // with an empty body; they get the one error shape like everything else.
            this.server.on("clientError", error_response_1.answerClientError);
            this.httpDrain.attach(this.server);
            // Per request: the drain follows it; metrics count it by route (the alias, never the URL:
            // ids would make labels unbounded); the access log names it without the query string,
            // which may carry a token.
            let active = 0;
            const accessLog = writesDebug(this.logger);
            this.server.prependListener("request", (req, res) => {
                const start = process.hrtime.bigint();
                req.url = collapseSlashes(req.url);
                this.httpDrain.track(res);
                (0, metrics_1.gauge)(this.broker, "httpActive", ++active);
                res.once("close", () => {
                    (0, metrics_1.gauge)(this.broker, "httpActive", --active);
                    const ms = Number(process.hrtime.bigint() - start) / 1e6;
                    const route = req.$alias?.fullPath ?? "unmatched";
                    (0, metrics_1.count)(this.broker, "httpRequests", { method: req.method ?? "", route, status: res.statusCode });
                    (0, metrics_1.observe)(this.broker, "httpTime", ms, { method: req.method ?? "", route });
                    if (!accessLog)
                        return;
                    const path = (req.url ?? "").split("?")[0];
                    this.logger.debug(`${req.method} ${path} ${res.statusCode} ${ms.toFixed(1)}ms ${res.getHeader("X-Request-ID") ?? ""}`);
                });
            });
        },
    });
}
const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace"];
/**
 * Whether any of the logger's appenders keeps debug lines. Moleculer filters by level only after
 * the caller has built the line, so the access log builds its line only when one will be kept.
 * A per-module level map, or an appender we cannot read, counts as keeping them.
 */
function writesDebug(logger) {
    const appenders = logger.appenders;
    if (!Array.isArray(appenders))
        return true;
    return appenders.some(({ opts }) => {
        const level = opts?.level;
        return typeof level !== "string" || LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf("debug");
    });
}
/**
 * Runs of `/` in the path become one before routing: a client joining `base + "/" + "/path"` sends
 * `//path`, and the real product's clients do. The query string is left as it came.
 */
function collapseSlashes(url) {
    if (!url)
        return url;
    const q = url.indexOf("?");
    const path = q === -1 ? url : url.slice(0, q);
    if (!path.includes("//"))
        return url;
    return path.replace(/\/{2,}/g, "/") + (q === -1 ? "" : url.slice(q));
}
exports.default = createGatewayService;
//# sourceMappingURL=gateway.service.js.map