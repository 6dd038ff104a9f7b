/**
 * gateway: the HTTP API (moleculer-web). Every route comes from the contracts (shared/contracts):
 * `METHOD /path` -> `service.action`, with `mappingPolicy: "restrict"`, so nothing else is reachable.
 *
 * A request's way through (docs/request-flow.md):
 *   body parser (limit, JSON only) -> rate limit -> route's service available? (503)
 *   -> onBeforeCall: credentials (401) -> role table (403) -> params from path/query/body
 *   -> action over the bus, which validates params (400) -> onAfterCall -> JSON (or text) answer.
 *   Any failure -> onError -> docs/platform-rules.md#errors's error body.
 */
import { performance } from "node:perf_hooks";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context, ServiceSchema } from "moleculer";
import ApiGateway, { type ApiSettingsSchema } from "moleculer-web";
import { operations, routeKey, type Operation } from "../shared/contracts";
import type { PlatformConfig } from "../shared/config";
import { invalidField, UnauthorizedError } from "../shared/errors";
import { contractActions, isActionAvailable, typedService, type PlatformMeta } from "../shared/service";
import { gateway as contract } from "../shared/contracts/gateway";
import { BODY_METHODS } from "../shared/contracts/define";
import { CallerCache, readCredentials } from "./auth";
import { callAsPlatform, mayCall, refusal } from "../shared/authorization";
import { events, health, openapi, readiness, version } from "./probes";
import {
  application,
  restartApplication,
  applications,
  healthApplication,
  healthApplications,
  healthServer,
  healthStatus,
  healthSystem,
} from "./health";
import type { GatewayService, Req } from "./types";
import { EventStreams, isEventStream, sendEventStream } from "./event-stream";
import { HttpDrain } from "./drain";
import { HttpMetrics } from "../shared/observability/http-metrics";
import {
  ENGINE_EVENTS,
  PROFILE_ACTIVATED_EVENT,
  SESSIONS_REVOKED_EVENT,
  ACCOUNTS_CHANGED_EVENT,
  type AccountsChangedEvent,
  type JobChangesBatchEvent,
  type JobChangesEvent,
  type ProfileActivatedEvent,
  type SessionsRevokedEvent,
} from "../shared/contracts/events";
import { answerClientError, sendError } from "./error-response";
import { buildOpenApi } from "./openapi";
import { buildParams } from "./request-params";
import { plainQuery } from "./query-string";
import { AliasMemo } from "./alias-memo";
import { bodyReader } from "./body-reader";
import { jsonTextOf } from "../shared/frozen-json";
import { endInSlices } from "./large-answers";
import { rateLimits } from "./rate-limit";
import { assertParamsWithinBounds, assertWithinBounds } from "../shared/input-bounds";
import { applySessionEffect } from "./session-cookie";
import { API_VERSION } from "../shared/version";
import { isPlainObject } from "../shared/objects";
import {
  actionsMarked,
  GENERATED_KEY_META,
  IDEMPOTENCY_KEY,
  IDEMPOTENCY_META,
  MAKE_KEY_IF_SENT,
} from "../shared/idempotency";

import { Errors } from "moleculer";

const DEFAULT_COOKIE = "token";

const REQUEST_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

function hasBody(req: IncomingMessage): boolean {
  return req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
}

const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;

function aliasesOf(ops: Operation[]): Record<string, string> {
  return Object.fromEntries(ops.map((op) => [routeKey(op), op.action]));
}

/** A form body is taken only by operations that declare it (`form`: OAuth token requests). */
const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(;|$)/i;

export function createGatewayService(config: PlatformConfig): ServiceSchema {
  const ops = operations();
  // By route, not by action: a real-product path (an alias) is its own route to the same action.
  const byRoute = new Map(ops.map((op) => [routeKey(op), op]));
  // moleculer-web keeps the route's path in `fullPath` (its `path` loses the leading slash). Its
  // alias objects live as long as the route: each one's operation is looked up once.
  const opsByAlias = new WeakMap<object, Operation>();
  const opOf = (alias: { method: string; fullPath: string }) => {
    let op = opsByAlias.get(alias);
    if (!op) {
      op = byRoute.get(routeKey({ method: alias.method, path: alias.fullPath }))!;
      opsByAlias.set(alias, op);
    }
    return op;
  };

  // Rate limits are the gateway's own (rate-limit.ts): per operation kind, which one route of
  // moleculer-web's cannot express, and moleculer-web serves one route per path.
  const limits = rateLimits(config);
  const idempotentWrites = actionsMarked("keyed");
  const route = {
    path: "/",
    mappingPolicy: "restrict",
    autoAliases: false,
    aliases: aliasesOf(ops),
    // The body: moleculer-web's parsers (body-parser's json, then urlencoded), with a short way
    // for a plain JSON body (body-reader.ts); moleculer-web's own are off.
    bodyParsers: false,
    use: [
      bodyReader({
        limit: config.bodyLimit,
        json: { strict: true, type: ["application/json", "application/*+json"] },
        // Parsed for any route, but only an operation that declares `form` accepts it (onBeforeCall).
        urlencoded: { extended: false, parameterLimit: 100 },
      }),
    ],
    callOptions: { timeout: config.requestTimeout },
    async onBeforeCall(
      this: GatewayService,
      ctx: Context<unknown, PlatformMeta>,
      _route: unknown,
      req: Req,
      _res: ServerResponse,
      alias: any,
    ) {
      const op = opOf(alias);
      limits.take(op, req);
      if (
        BODY_METHODS.includes(op.method) &&
        hasBody(req) &&
        !JSON_TYPE.test(req.headers["content-type"] ?? "") &&
        !(op.form && FORM_TYPE.test(req.headers["content-type"] ?? ""))
      ) {
        throw new Errors.MoleculerClientError(
          op.form
            ? "Request body must be JSON or form-encoded (application/x-www-form-urlencoded)"
            : "Request body must be JSON (Content-Type: application/json)",
          415,
          "UNSUPPORTED_MEDIA_TYPE",
        );
      }
      if (op.access !== "public") {
        const credentials = readCredentials(req, this.cookieName());
        if (!credentials) throw new UnauthorizedError();
        const caller = this.callers.cached(credentials) ?? (await this.callers.resolve(ctx, credentials));
        if (!mayCall(op.access, caller, op.action)) throw refusal(op.action, op.access);
        ctx.meta.caller = caller;
      }
      // An idempotent write carries its request id, so a repeat answers its first result
      // (shared/idempotency.ts): the client's key, else one made here, used once the call leaves this node.
      if (idempotentWrites.has(op.action)) {
        const given = clientIdempotencyKey(req);
        if (given !== undefined) ctx.meta[IDEMPOTENCY_META] = given;
        else (ctx.meta as Record<string, unknown>)[GENERATED_KEY_META] = MAKE_KEY_IF_SENT;
      }
      // Before anything crosses the bus: a value too deep for the bus would not even serialize.
      const pathParams = this.aliasMemo.paramsOf(alias, req.parsedUrl ?? "");
      if (!paramsHoldBody(op, req.body, pathParams)) assertWithinBounds(req.body, config.inputLimits);
      req.$params = buildParams(op, req, pathParams);
      // Remembered, so a local action's own bounds check does not walk these params again.
      assertParamsWithinBounds(req.$params, config.inputLimits);
    },
    async onAfterCall(
      this: GatewayService,
      ctx: Context<unknown, PlatformMeta>,
      _route: unknown,
      req: Req,
      _res: ServerResponse,
      data: any,
    ) {
      const op = opOf(req.$alias!);
      return applySessionEffect(op.session, this.cookieName(), ctx.meta, data);
    },
    onError(this: GatewayService, req: Req, res: ServerResponse, err: unknown) {
      sendError.call(this, req, res, err);
    },
  };

  const settings: Record<string, unknown> = {
    port: config.port,
    ip: config.host,
    // Our own access log (below) redacts credentials; moleculer-web's would print ?token=...
    logRequest: null,
    logResponse: null,
    logRequestParams: null,
    logResponseData: null,
    log4XXResponses: false,
    rootCallOptions(options: { requestID?: string }) {
      if (options.requestID && !REQUEST_ID.test(options.requestID)) options.requestID = undefined;
    },
    cors:
      config.corsOrigins.length > 0
        ? {
            origin: config.corsOrigins.includes("*") ? "*" : config.corsOrigins,
            methods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
            allowedHeaders: ["Content-Type", "Authorization", "X-Request-ID", "Idempotency-Key"],
            exposedHeaders: ["X-Request-ID", "Retry-After"],
            credentials: !config.corsOrigins.includes("*"),
            maxAge: 600,
          }
        : undefined,
    routes: [route],
    onError(this: GatewayService, req: Req, res: ServerResponse, err: unknown) {
      sendError.call(this, req, res, err);
    },
  };

  return typedService<GatewayService>({
    name: contract.name,
    mixins: [ApiGateway as unknown as ServiceSchema],

    settings: settings as ApiSettingsSchema,

    actions: {
      // moleculer-web names the request span after the URL and tags it with it: the query string
      // may hold a token, so spans carry the method and the path only.
      rest: {
        tracing: {
          spanName: (ctx: Context<any>) =>
            `${ctx.params.req.method} ${(ctx.params.req.url ?? "").split("?")[0]}`,
          tags: (ctx: Context<any>) => ({
            method: ctx.params.req.method,
            path: (ctx.params.req.url ?? "").split("?")[0],
          }),
        },
      },
      ...contractActions<typeof contract.name, typeof contract.actions, GatewayService>(contract, {
        health,
        ready: readiness(ops),
        openapi,
        version,
        events,
        healthStatus,
        healthSystem,
        healthServer,
        healthApplications,
        healthApplication,
        applications,
        application,
        restartApplication,
      }),
    },

    events: {
      [SESSIONS_REVOKED_EVENT](this: GatewayService, ctx: Context<SessionsRevokedEvent>) {
        this.callers.revoke(ctx.params.sessionIds);
        this.streams.endSessions(ctx.params.sessionIds);
      },
      [ACCOUNTS_CHANGED_EVENT](this: GatewayService, ctx: Context<AccountsChangedEvent>) {
        if (ctx.params.all) this.callers.clear();
        else this.callers.forgetAccounts(ctx.params.accountIds);
      },
      // Every job write reaches every gateway, alone or with the rest of its turn
      // (shared/job-changes-batch.ts): with no stream open, no event objects are made.
      [ENGINE_EVENTS.changes](this: GatewayService, ctx: Context<JobChangesEvent>) {
        this.streams.publishChange(ctx.params);
      },
      [ENGINE_EVENTS.changesBatch](this: GatewayService, ctx: Context<JobChangesBatchEvent>) {
        const changes = ctx.params?.changes;
        if (this.streams.size === 0 || !Array.isArray(changes)) return;
        for (const change of changes) this.streams.publishChange(change);
      },
      [PROFILE_ACTIVATED_EVENT](this: GatewayService, ctx: Context<ProfileActivatedEvent>) {
        this.activeCookieName = ctx.params.cookieName || DEFAULT_COOKIE;
      },
      // The profiles service may start after the gateway: read the active profile when it appears.
      "$services.changed"(this: GatewayService) {
        this.refreshCookieName();
      },
    },

    methods: {
      /** A plain query string is split here (query-string.ts); any other goes to moleculer-web's qs. */
      parseQueryString(this: GatewayService, req: Req): { query: Record<string, unknown>; url: string } {
        const url = req.url ?? "";
        const at = url.indexOf("?", 1);
        if (at === -1) return { query: {}, url };
        const query = plainQuery(url.substring(at + 1));
        if (query) return { query, url: url.substring(0, at) };
        return (ApiGateway as any).methods.parseQueryString.call(this, req);
      },
      /** moleculer-web's alias scan, with answers for paths without parameters remembered (alias-memo.ts). */
      resolveAlias(this: GatewayService, url: string, method = "GET") {
        return this.aliasMemo.resolve((this as any).aliases, url, method, (u, m) =>
          (ApiGateway as any).methods.resolveAlias.call(this, u, m),
        );
      },
      /**
       * moleculer-web's colours the status and times every answer before it looks at its settings;
       * ours turn its response log off (logResponse and logResponseData null: our access log is the
       * request listener in `started`), so nothing is built for a line never written.
       */
      logResponse(): void {},
      /**
       * JSON.stringify, with texts the store keeps for read-only answers spliced in
       * (shared/frozen-json.ts); a large answer is then written in slices (large-answers.ts).
       */
      encodeResponse(this: GatewayService, _req: Req, res: ServerResponse, data: unknown): string {
        const text = jsonTextOf(data);
        endInSlices(res, text);
        return text;
      },
      /** Event streams take their own path (see sendEventStream); everything else moleculer-web's. */
      sendResponse(this: GatewayService, req: Req, res: ServerResponse, data: unknown, action: unknown) {
        if (isEventStream(data)) {
          const requestId = req.$ctx?.requestID;
          return sendEventStream(res, data, requestId ? { "X-Request-ID": String(requestId) } : {});
        }
        return (ApiGateway as any).methods.sendResponse.call(this, req, res, data, action);
      },
      /** Replaces moleculer-web's, which logs stacks and error data (possibly secrets) for every 5xx. */
      errorHandler(this: GatewayService, req: Req, res: ServerResponse, err: unknown) {
        sendError.call(this, req, res, err);
      },
      /** The session cookie's name: the active profile's `authenticationProps.cookieName`, default `token`. */
      cookieName(this: GatewayService): string {
        return this.activeCookieName ?? DEFAULT_COOKIE;
      },
      async refreshCookieName(this: GatewayService): Promise<void> {
        if (!isActionAvailable(this.broker, "profiles.active")) return;
        try {
          const profile = await callAsPlatform(this.broker, "profiles.active", {});
          this.activeCookieName = profile?.authenticationProps?.cookieName || DEFAULT_COOKIE;
        } catch (err) {
          // Not implemented yet or unreachable: keep the current name.
          this.logger.debug(`active profile unavailable: ${(err as Error).message}`);
        }
      },
      retryAfterSeconds(): number {
        return Math.ceil(config.rateLimitWindowMs / 1000);
      },
      /** The gateway's drain (./drain.ts): app/shutdown.ts calls it before the broker stops. */
      async drain(this: GatewayService): Promise<void> {
        this.streams.close();
        if (this.server) await this.httpDrain.drain(this.server, config.shutdownTimeout);
      },
    },

    created(this: GatewayService) {
      this.callers = new CallerCache(config.authCacheMs);
      this.streams = new EventStreams(config.eventStreams, (caller) =>
        callAsPlatform(this.broker, "accounts.refreshCaller", {
          accountId: caller.accountId,
          ...(caller.sessionId && { sessionId: caller.sessionId }),
        }),
      );
      this.openApiDocument = buildOpenApi(API_VERSION);
      this.httpDrain = new HttpDrain();
      this.aliasMemo = new AliasMemo();
    },

    async stopped(this: GatewayService) {
      clearInterval(this.profileTimer);
      await this.drain();
    },

    async started(this: GatewayService) {
      await this.refreshCookieName();
      // Other nodes learn this gateway's event listeners about a second after it starts: an
      // activation broadcast in that window would be missed, so the active profile is re-read now and then.
      this.profileTimer = setInterval(() => void this.refreshCookieName(), 30_000);
      this.profileTimer.unref();
      // Malformed requests and oversized request heads never reach a route: Node would answer them
      // with an empty body; they get the one error shape like everything else.
      this.server.on("clientError", answerClientError);
      // Node closes a keep-alive connection after 5 s idle; behind a balancer that keeps its own
      // idle connections for 60 s, a request sent as the gateway closes one is lost (a 502). Ours
      // stay open longer than the balancer's (docs/deployment.md#load-balancers); a drain still
      // closes them within a second (./drain.ts).
      this.server.keepAliveTimeout = config.httpKeepAliveTimeoutMs;
      this.httpDrain.attach(this.server);
      // Per request: the drain follows it; metrics count it by route (the alias, never the URL:
      // ids would make labels unbounded); the access log names it without the query string,
      // which may carry a token.
      const metrics = HttpMetrics.of(this.broker);
      const accessLog = writesDebug(this.logger);
      const logger = this.logger;
      // Done responses come back from the drain's own 'close' listener with their start (no second
      // listener, closure or property per request).
      const timed = metrics !== null || accessLog;
      if (timed)
        this.httpDrain.onAnswered((res, startedAt) => {
          const ms = performance.now() - startedAt;
          const req = (res as ServerResponse & { req: Req }).req;
          metrics?.finished(req.method ?? "", req.$alias?.fullPath ?? "unmatched", res.statusCode, ms);
          if (!accessLog) return;
          const path = (req.url ?? "").split("?")[0];
          logger.debug(
            `${req.method} ${path} ${res.statusCode} ${ms.toFixed(1)}ms ${res.getHeader("X-Request-ID") ?? ""}`,
          );
        });
      this.server.prependListener("request", (req: Req, res: ServerResponse) => {
        req.url = collapseSlashes(req.url);
        // Neither metrics nor an access log (METRICS_PORT=off, LOG_LEVEL above debug): a request is
        // only followed by the drain, with no clock read of its own.
        if (!timed) return this.httpDrain.track(res);
        metrics?.started();
        this.httpDrain.track(res, performance.now());
      });
    },
  });
}

/**
 * Whether measuring a request's params measures its whole body too, so the body need not be
 * walked first: a body operation's params are the body object's members as they are, beside path
 * parameters (buildParams copies one level). Not so for a body the params leave out or wrap
 * (`bodyParam`), a body that is not an object, or a member a path parameter replaces with its text
 * when that member holds an object (it would go unmeasured, and was a 400 before).
 */
function paramsHoldBody(op: Operation, body: unknown, pathParams: Record<string, unknown>): boolean {
  if (!BODY_METHODS.includes(op.method) || op.bodyParam) return false;
  if (body === undefined || body === null || body === "") return true;
  if (!isPlainObject(body)) return false;
  for (const name in pathParams) {
    const member = body[name];
    if (member !== null && typeof member === "object") return false;
  }
  return true;
}

/** The client's `Idempotency-Key` (400 when malformed), if it sent one. */
function clientIdempotencyKey(req: IncomingMessage): string | undefined {
  const given = req.headers["idempotency-key"];
  if (given === undefined) return undefined;
  if (typeof given !== "string" || !IDEMPOTENCY_KEY.test(given))
    throw invalidField("Idempotency-Key", "Idempotency-Key must be 1 to 255 visible ASCII characters");
  return given;
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace"];

/**
 * Whether any of the logger's appenders keeps debug lines. Moleculer filters by level only after
 * the caller has built the line, so the access log builds its line only when one will be kept.
 * A per-module level map, or an appender we cannot read, counts as keeping them.
 */
function writesDebug(logger: unknown): boolean {
  const appenders = (logger as { appenders?: { opts?: { level?: unknown } }[] }).appenders;
  if (!Array.isArray(appenders)) return true;
  return appenders.some(({ opts }) => {
    const level = opts?.level;
    return typeof level !== "string" || LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf("debug");
  });
}

/**
 * Runs of `/` in the path become one before routing: a client joining `base + "/" + "/path"` sends
 * `//path`, and the real product's clients do. The query string is left as it came.
 */
export function collapseSlashes(url: string | undefined): string | undefined {
  if (!url) return url;
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  if (!path.includes("//")) return url;
  return path.replace(/\/{2,}/g, "/") + (q === -1 ? "" : url.slice(q));
}

export default createGatewayService;
