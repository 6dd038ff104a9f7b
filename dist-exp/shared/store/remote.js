"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.PAGE_BYTES = exports.RemoteBackend = exports.DUPLICATE_KEY = void 0;
/**
 * RemoteBackend: the Store interface as calls to the `store` service, which holds the embedded
 * store in its own process. Every method is exactly one call, so each stays atomic over there.
 */
const request_scope_1 = require("../observability/request-scope");
const types_1 = require("./types");
/** The error type the store service gives a DuplicateKeyError on the wire. */
exports.DUPLICATE_KEY = "DUPLICATE_KEY";
class RemoteBackend {
    broker;
    backend = "remote";
    service;
    discoveryTimeout;
    discovered;
    constructor(broker, options = {}) {
        this.broker = broker;
        this.service = options.service ?? "store";
        this.discoveryTimeout = options.discoveryTimeout ?? 10_000;
    }
    collection(name) {
        const call = (method, params) => this.call(method, { collection: name, ...params });
        return new RemoteCollection(name, call);
    }
    async ping() {
        // No waiting for discovery here: readiness must answer "not yet" rather than hang.
        await this.broker.call(`${this.service}.ping`);
    }
    /** The broker belongs to the caller; there is nothing of ours to release. */
    async close() { }
    async call(method, params) {
        // A service starting alongside the store's node would otherwise fail its first call with "not found".
        this.discovered ??= this.broker.waitForServices(this.service, this.discoveryTimeout).catch((err) => {
            this.discovered = undefined;
            throw err;
        });
        await this.discovered;
        try {
            // A child of the action being run, when there is one: the store's spans join its trace.
            const current = (0, request_scope_1.currentContext)();
            const parent = current?.broker === this.broker ? current : undefined;
            const action = `${this.service}.${method}`;
            return parent
                ? await parent.call(action, params)
                : await this.broker.call(action, params);
        }
        catch (err) {
            const e = err;
            if (e?.type === exports.DUPLICATE_KEY)
                throw new types_1.DuplicateKeyError(e.data?.collection ?? "", e.data?.key ?? {});
            throw err;
        }
    }
}
exports.RemoteBackend = RemoteBackend;
/** The JSON a page of a remote find may carry: well inside NATS's default 1 MiB message limit. */
exports.PAGE_BYTES = 768 * 1024;
class RemoteCollection {
    name;
    call;
    constructor(name, call) {
        this.name = name;
        this.call = call;
    }
    /**
     * Page by page (`store.findPage`), each answer within PAGE_BYTES of JSON: one bus message has a
     * size limit (NATS: 1 MiB by default), and a find of large documents (config backups) would pass
     * it. Pages follow `skip`; a write between pages can shift them, as with any cursor.
     */
    async find(filter, options = {}) {
        const out = [];
        const skip = options.skip ?? 0;
        for (;;) {
            const left = options.limit === undefined ? undefined : options.limit - out.length;
            if (left !== undefined && left <= 0)
                return out;
            const page = await this.call("findPage", {
                filter,
                options: { ...options, skip: skip + out.length, ...(left !== undefined && { limit: left }) },
                maxBytes: exports.PAGE_BYTES,
            });
            out.push(...page.docs);
            if (!page.more)
                return out;
        }
    }
    findOne(filter, options) {
        return this.call("findOne", { filter, options });
    }
    count(filter) {
        return this.call("count", { filter });
    }
    insertOne(doc) {
        return this.call("insertOne", { doc });
    }
    insertMany(docs) {
        return this.call("insertMany", { docs });
    }
    updateOne(filter, update, options) {
        return this.call("updateOne", { filter, update, options });
    }
    updateMany(filter, update) {
        return this.call("updateMany", { filter, update });
    }
    findOneAndUpdate(filter, update, options) {
        return this.call("findOneAndUpdate", { filter, update, options });
    }
    findOneAndDelete(filter) {
        return this.call("findOneAndDelete", { filter });
    }
    deleteOne(filter) {
        return this.call("deleteOne", { filter });
    }
    deleteMany(filter) {
        return this.call("deleteMany", { filter });
    }
    aggregate(pipeline) {
        return this.call("aggregate", { pipeline });
    }
    async createIndex(spec) {
        await this.call("createIndex", { spec });
    }
}
//# sourceMappingURL=remote.js.map