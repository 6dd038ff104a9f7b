/** `this` of the gateway service: moleculer-web's service plus what gateway.service.ts adds. */
import type { IncomingMessage, Server } from "node:http";
import type { Context, Service } from "moleculer";
import type { CallerCache } from "./auth";
import type { EventStreams } from "./event-stream";

export type GatewayService = Service & {
  /** moleculer-web's HTTP server. */
  server: Server;
  callers: CallerCache;
  streams: EventStreams;
  openApiDocument: Record<string, unknown>;
  httpDrain: import("./drain").HttpDrain;
  aliasMemo: import("./alias-memo").AliasMemo;
  drain(): Promise<void>;
  activeCookieName?: string;
  profileTimer?: NodeJS.Timeout;
  cookieName(): string;
  refreshCookieName(): Promise<void>;
  retryAfterSeconds(): number;
};

export type Req = IncomingMessage & {
  body?: unknown;
  query?: Record<string, unknown>;
  parsedUrl?: string;
  $params?: Record<string, unknown>;
  $ctx?: Context;
  $alias?: { action: string; method: string; path: string; fullPath: string };
  _body?: boolean;
};
