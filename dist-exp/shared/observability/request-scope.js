"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.currentContext = currentContext;
exports.requestScopeMiddleware = requestScopeMiddleware;
/**
 * The action being run, for code that has no `ctx` in hand: a middleware runs every local action
 * inside an AsyncLocalStorage scope holding its context. Log lines read the request id from it
 * (./logging.ts); the remote store calls the store service as a child of it, so those calls join
 * the request's trace instead of starting traces of their own.
 */
const node_async_hooks_1 = require("node:async_hooks");
const scope = new node_async_hooks_1.AsyncLocalStorage();
/** The context of the action this code runs under, if any. */
function currentContext() {
    return scope.getStore();
}
function requestScopeMiddleware() {
    return {
        name: "RequestScope",
        localAction(handler) {
            return function inRequestScope(ctx) {
                return scope.run(ctx, () => handler(ctx));
            };
        },
    };
}
//# sourceMappingURL=request-scope.js.map