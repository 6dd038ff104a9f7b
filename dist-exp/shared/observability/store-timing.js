"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.timedStore = timedStore;
const metrics_1 = require("./metrics");
const TIMED = new Set([
    "find",
    "findOne",
    "count",
    "insertOne",
    "insertMany",
    "updateOne",
    "updateMany",
    "findOneAndUpdate",
    "findOneAndDelete",
    "deleteOne",
    "deleteMany",
    "aggregate",
]);
function timedCollection(collection, broker) {
    return new Proxy(collection, {
        get(target, prop, receiver) {
            const value = Reflect.get(target, prop, receiver);
            if (typeof prop !== "string" || !TIMED.has(prop) || typeof value !== "function")
                return value;
            return (...args) => {
                const started = performance.now();
                const labels = (outcome) => ({ operation: prop, collection: target.name, outcome });
                return value.apply(target, args).then((result) => {
                    (0, metrics_1.observe)(broker, "storeTime", performance.now() - started, labels("ok"));
                    return result;
                }, (err) => {
                    (0, metrics_1.observe)(broker, "storeTime", performance.now() - started, labels("error"));
                    throw err;
                });
            };
        },
    });
}
function timedStore(store, broker) {
    if (!broker.isMetricsEnabled())
        return store;
    const collections = new Map();
    return new Proxy(store, {
        get(target, prop, receiver) {
            if (prop !== "collection")
                return Reflect.get(target, prop, receiver);
            return (name) => {
                let c = collections.get(name);
                if (!c)
                    collections.set(name, (c = timedCollection(target.collection(name), broker)));
                return c;
            };
        },
    });
}
//# sourceMappingURL=store-timing.js.map