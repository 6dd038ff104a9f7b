"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.storeMixin = void 0;
exports.contractActions = contractActions;
exports.isActionAvailable = isActionAvailable;
exports.typedService = typedService;
exports.typedMixin = typedMixin;
const schema_1 = require("./contracts/schema");
const errors_1 = require("./errors");
const runtime_1 = require("./runtime");
/** The handler of an action whose implementation belongs to a later issue: answers 501. */
function placeholder(action) {
    const handler = () => {
        throw new errors_1.NotImplementedError(action);
    };
    return Object.assign(handler, { notImplemented: true });
}
function contractActions(contract, handlers) {
    const actions = {};
    for (const [name, def] of Object.entries(contract.actions)) {
        const handler = handlers[name];
        const action = `${contract.name}.${name}`;
        actions[name] = {
            params: def.params,
            // Only routed actions are published to the gateway; the rest are for other services.
            visibility: def.http ? "published" : "public",
            handler: handler ? withNullRule(def.params, handler) : placeholder(action),
            ...(def.task && { task: def.task }),
        };
    }
    return actions;
}
/** The handler, after the one rule for null on optional fields (dropNullOptionals). */
function withNullRule(props, handler) {
    return function (ctx) {
        (0, schema_1.dropNullOptionals)(props, ctx.params);
        return handler.call(this, ctx);
    };
}
/** Gives a service `this.store` (its handle on the broker's store) from `started` to `stopped`. */
exports.storeMixin = {
    async started() {
        this.store = await (0, runtime_1.acquireStore)(this.broker);
    },
    async stopped() {
        await this.store?.close();
    },
};
/** Is some node up that serves this action right now? */
function isActionAvailable(broker, action) {
    const endpoints = broker.registry.getActionEndpoints(action);
    return endpoints !== undefined && endpoints !== null && endpoints.hasAvailable();
}
/**
 * A service's schema with `this` typed as `TThis` in its methods and lifecycle handlers (Moleculer's
 * ServiceSchema generics), handed to the broker as a plain ServiceSchema (the registry in app/ holds
 * schemas of many `this` types).
 */
function typedService(schema) {
    return schema;
}
/** A mixin whose hooks and methods see `this` as `TThis` (as typedService does for a schema). */
function typedMixin(mixin) {
    return mixin;
}
//# sourceMappingURL=service.js.map