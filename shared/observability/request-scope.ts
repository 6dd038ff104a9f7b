/**
 * The action being run, for code that has no `ctx` in hand: a middleware runs every local action
 * inside an AsyncLocalStorage scope holding its context. Log lines read the request id from it
 * (./logging.ts); the remote store calls the store service as a child of it, so those calls join
 * the request's trace instead of starting traces of their own.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Context, Middleware } from "moleculer";

const scope = new AsyncLocalStorage<Context>();

/** The context of the action this code runs under, if any. */
export function currentContext(): Context | undefined {
  return scope.getStore();
}

export function requestScopeMiddleware(): Middleware {
  return {
    name: "RequestScope",
    localAction(handler: (ctx: Context) => unknown) {
      return function inRequestScope(ctx: Context) {
        return scope.run(ctx, () => handler(ctx));
      };
    },
  } as unknown as Middleware;
}
