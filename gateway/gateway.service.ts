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
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context, ServiceSchema } from "moleculer";
import ApiGateway, { type ApiSettingsSchema } from "moleculer-web";
import { call, operations, type Operation } from "../shared/contracts";
import type { Access, Role } from "../shared/contracts/define";
import type { PlatformConfig } from "../shared/config";
import { ForbiddenError, UnauthorizedError } from "../shared/errors";
import { contractActions, isActionAvailable, type PlatformMeta } from "../shared/service";
import { gateway as contract } from "../shared/contracts/gateway";
import { CallerCache, readCredentials } from "./auth";
import { EventStreams, isEventStream, sendEventStream } from "./event-stream";
import {
  ENGINE_EVENTS,
  PROFILE_ACTIVATED_EVENT,
  SESSIONS_REVOKED_EVENT,
  type JobChangedEvent,
  type ProfileActivatedEvent,
  type SessionsRevokedEvent,
  type TaskChangedEvent,
} from "../shared/contracts/events";
import { toErrorBody } from "./error-response";
import { buildOpenApi } from "./openapi";
import { buildParams } from "./request-params";
import { applySessionEffect } from "./session-cookie";
import { API_VERSION, PLATFORM_VERSION } from "../shared/version";

import { Errors } from "moleculer";

const DEFAULT_COOKIE = "token";

type Req = IncomingMessage & {
  body?: unknown;
  query?: Record<string, unknown>;
  parsedUrl?: string;
  $params?: Record<string, unknown>;
  $ctx?: Context;
  _body?: boolean;
};

/** The one role table: may a caller with these roles call a route with this access? */
export function mayCall(access: Access, roles: readonly Role[]): boolean {
  if (access === "public" || access === "authenticated") return true;
  return roles.includes("admin") || access.some((r) => roles.includes(r));
}

const REQUEST_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

function hasBody(req: IncomingMessage): boolean {
  return req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
}

const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;

function sendError(this: any, req: Req, res: ServerResponse, err: any): void {
  const requestId = (req.$ctx?.requestID as string | undefined) ?? undefined;
  const body = toErrorBody(err, requestId);
  if (body.code >= 500 && body.code !== 503 && body.code !== 501) {
    this.logger.error(
      `${req.method} ${req.parsedUrl ?? ""} -> ${body.code} ${body.type} [${requestId}]: ${err?.message}`,
    );
  }
  if (res.headersSent) return void res.end();
  if (body.code === 429) res.setHeader("Retry-After", String(this.retryAfterSeconds()));
  if (requestId) res.setHeader("X-Request-ID", requestId);
  res.writeHead(body.code, { "Content-Type": "application/json; charset=utf-8" });
  res.end(JSON.stringify(body));
}

function aliasesOf(ops: Operation[]): Record<string, string> {
  return Object.fromEntries(ops.map((op) => [`${op.method} ${op.path}`, op.action]));
}

export function createGatewayService(config: PlatformConfig): ServiceSchema {
  const ops = operations();
  const byAction = new Map(ops.map((op) => [op.action, op]));

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
            methods: ["GET", "POST", "PUT", "DELETE", "OPTIONS"],
            allowedHeaders: ["Content-Type", "Authorization", "X-Request-ID"],
            exposedHeaders: ["X-Request-ID", "Retry-After"],
            credentials: !config.corsOrigins.includes("*"),
            maxAge: 600,
          }
        : undefined,
    routes: [
      {
        path: "/",
        mappingPolicy: "restrict",
        autoAliases: false,
        aliases: aliasesOf(ops),
        bodyParsers: {
          json: { limit: config.bodyLimit, strict: true, type: ["application/json", "application/*+json"] },
          urlencoded: false,
        },
        callOptions: { timeout: config.requestTimeout },
        rateLimit:
          config.rateLimit > 0
            ? {
                window: config.rateLimitWindowMs,
                limit: config.rateLimit,
                headers: true,
                key: (req: IncomingMessage) => req.socket.remoteAddress ?? "unknown",
              }
            : undefined,
        async onBeforeCall(
          this: any,
          ctx: Context<unknown, PlatformMeta>,
          _route: unknown,
          req: Req,
          _res: ServerResponse,
          alias: any,
        ) {
          const op = byAction.get(alias.action)!;
          if (
            (op.method === "POST" || op.method === "PUT") &&
            hasBody(req) &&
            !JSON_TYPE.test(req.headers["content-type"] ?? "")
          ) {
            throw new Errors.MoleculerClientError(
              "Request body must be JSON (Content-Type: application/json)",
              415,
              "UNSUPPORTED_MEDIA_TYPE",
            );
          }
          if (op.access !== "public") {
            const credentials = readCredentials(req, this.cookieName());
            if (!credentials) throw new UnauthorizedError();
            const caller = await this.callers.resolve(ctx, credentials);
            if (!mayCall(op.access, caller.roles)) throw new ForbiddenError();
            ctx.meta.caller = caller;
          }
          req.$params = buildParams(op, req, alias.match(req.parsedUrl) || {});
        },
        async onAfterCall(
          this: any,
          ctx: Context<unknown, PlatformMeta>,
          _route: unknown,
          req: Req,
          _res: ServerResponse,
          data: any,
        ) {
          const op = byAction.get((req as any).$alias.action)!;
          return applySessionEffect(op.session, this.cookieName(), ctx.meta, data);
        },
        onError(this: any, req: Req, res: ServerResponse, err: unknown) {
          sendError.call(this, req, res, err);
        },
      },
    ],
    onError(this: any, req: Req, res: ServerResponse, err: unknown) {
      sendError.call(this, req, res, err);
    },
  };

  return {
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
      ...contractActions(contract, {
        health() {
          return { status: "ok" as const };
        },
        async ready(ctx) {
          const checks: Record<string, string> = {};
          if (this.broker.transit) checks.bus = this.broker.transit.connected ? "ok" : "disconnected";
          for (const service of new Set(ops.map((op) => op.service))) {
            if (service === "gateway") continue;
            const sample = ops.find((op) => op.service === service)!.action;
            checks[service] = isActionAvailable(this.broker, sample) ? "ok" : "unavailable";
          }
          if (checks.accounts === "ok") {
            try {
              await call(ctx, "accounts.listGroups", {}, { timeout: 2000, meta: {} });
              checks.store = "ok";
            } catch {
              checks.store = "unreachable";
            }
          }
          const failing = Object.entries(checks).filter(([, v]) => v !== "ok");
          if (failing.length > 0) {
            throw new Errors.MoleculerError(
              `Not ready: ${failing.map(([k, v]) => `${k} ${v}`).join(", ")}`,
              503,
              "SERVICE_UNAVAILABLE",
              { checks },
            );
          }
          return { status: "ready" as const, checks };
        },
        openapi() {
          return this.openApiDocument;
        },
        version() {
          return { platform: PLATFORM_VERSION, api: API_VERSION };
        },
        events(ctx) {
          return this.streams.open(ctx.meta.caller!);
        },
      }),
    },

    events: {
      [SESSIONS_REVOKED_EVENT](this: any, ctx: Context<SessionsRevokedEvent>) {
        this.callers.revoke(ctx.params.sessionIds);
      },
      [ENGINE_EVENTS.job](this: any, ctx: Context<JobChangedEvent>) {
        this.streams.publish("job", ctx.params);
      },
      [ENGINE_EVENTS.task](this: any, ctx: Context<TaskChangedEvent>) {
        this.streams.publish("task", ctx.params);
      },
      [PROFILE_ACTIVATED_EVENT](this: any, ctx: Context<ProfileActivatedEvent>) {
        this.activeCookieName = ctx.params.cookieName || DEFAULT_COOKIE;
      },
      // The profiles service may start after the gateway: read the active profile when it appears.
      "$services.changed"(this: any) {
        this.refreshCookieName();
      },
    },

    methods: {
      /** Event streams take their own path (see sendEventStream); everything else moleculer-web's. */
      sendResponse(this: any, req: Req, res: ServerResponse, data: unknown, action: unknown) {
        if (isEventStream(data)) {
          const requestId = req.$ctx?.requestID;
          return sendEventStream(res, data, requestId ? { "X-Request-ID": String(requestId) } : {});
        }
        return (ApiGateway as any).methods.sendResponse.call(this, req, res, data, action);
      },
      /** Replaces moleculer-web's, which logs stacks and error data (possibly secrets) for every 5xx. */
      errorHandler(this: any, req: Req, res: ServerResponse, err: unknown) {
        sendError.call(this, req, res, err);
      },
      /** The session cookie's name: the active profile's `authenticationProps.cookieName`, default `token`. */
      cookieName(this: any): string {
        return this.activeCookieName ?? DEFAULT_COOKIE;
      },
      async refreshCookieName(this: any): Promise<void> {
        if (!isActionAvailable(this.broker, "profiles.active")) return;
        try {
          const profile = await call(this.broker, "profiles.active", {});
          this.activeCookieName = profile?.authenticationProps?.cookieName || DEFAULT_COOKIE;
        } catch (err) {
          // Not implemented yet or unreachable: keep the current name.
          this.logger.debug(`active profile unavailable: ${(err as Error).message}`);
        }
      },
      retryAfterSeconds(): number {
        return Math.ceil(config.rateLimitWindowMs / 1000);
      },
    },

    created(this: any) {
      this.callers = new CallerCache(config.authCacheMs);
      this.streams = new EventStreams();
      this.openApiDocument = buildOpenApi(API_VERSION);
    },

    stopped(this: any) {
      clearInterval(this.profileTimer);
      this.streams.close();
    },

    async started(this: any) {
      await this.refreshCookieName();
      // Other nodes learn this gateway's event listeners about a second after it starts: an
      // activation broadcast in that window would be missed, so the active profile is re-read now and then.
      this.profileTimer = setInterval(() => void this.refreshCookieName(), 30_000);
      this.profileTimer.unref();
      // Access log without query strings: they may carry a token.
      this.server.prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
        const start = process.hrtime.bigint();
        res.once("finish", () => {
          const ms = Number(process.hrtime.bigint() - start) / 1e6;
          const path = (req.url ?? "").split("?")[0];
          this.logger.debug(
            `${req.method} ${path} ${res.statusCode} ${ms.toFixed(1)}ms ${res.getHeader("X-Request-ID") ?? ""}`,
          );
        });
      });
    },
  };
}

export default createGatewayService;
