"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.pageWithin = pageWithin;
/**
 * The `store` service: serves this process's embedded store to other processes (RemoteBackend),
 * one action per Collection method. Internal only: `public` keeps the gateway from exposing it.
 */
const moleculer_1 = require("moleculer");
const runtime_1 = require("../../shared/runtime");
const backend_1 = require("../../shared/store/embedded/backend");
const store_1 = require("../../shared/store");
/** A stored document's bound, plus the levels of the call that carries it (filter, update, list). */
const STORE_CALL_LIMITS = {
    maxDepth: backend_1.STORED_DOCUMENT_LIMITS.maxDepth + 4,
    maxNodes: backend_1.STORED_DOCUMENT_LIMITS.maxNodes,
};
const optionalObject = { type: "object", optional: true };
/**
 * The documents of `docs` that fit in `maxBytes` of JSON (at least one), and whether some were left.
 * A bus message has a size limit (NATS: 1 MiB by default): a large find is answered page by page.
 */
function pageWithin(docs, maxBytes) {
    const page = [];
    let bytes = 0;
    for (const doc of docs) {
        const size = JSON.stringify(doc).length;
        if (page.length > 0 && bytes + size > maxBytes)
            break;
        page.push(doc);
        bytes += size;
    }
    return { docs: page, more: page.length < docs.length };
}
/** An action running one Collection method on `params.collection`. */
function collectionAction(params, run) {
    const action = {
        visibility: "public",
        // Stored documents wrap inputs in levels of their own: the store keeps its own, wider bound.
        inputLimits: STORE_CALL_LIMITS,
        params: { collection: { type: "string", empty: false }, ...params },
        async handler(ctx) {
            if (!this.store)
                throw new moleculer_1.Errors.MoleculerRetryableError("store is not open yet", 503, "STORE_NOT_READY");
            try {
                return await run(this.store.collection(ctx.params.collection), ctx.params);
            }
            catch (err) {
                // Errors cross the bus as plain data: name the type so RemoteBackend can rebuild the class.
                if (err instanceof store_1.DuplicateKeyError) {
                    throw new moleculer_1.Errors.MoleculerClientError(err.message, 409, store_1.DUPLICATE_KEY, {
                        collection: err.collection,
                        key: err.key,
                    });
                }
                throw err;
            }
        },
    };
    return action;
}
const storeService = {
    name: "store",
    actions: {
        find: collectionAction({ filter: optionalObject, options: optionalObject }, (c, p) => c.find(p.filter, p.options)),
        findPage: collectionAction({
            filter: optionalObject,
            options: optionalObject,
            maxBytes: { type: "number", integer: true, min: 1024, max: 64 * 1024 * 1024 },
        }, async (c, p) => pageWithin(await c.find(p.filter, p.options), p.maxBytes)),
        findOne: collectionAction({ filter: optionalObject, options: optionalObject }, (c, p) => c.findOne(p.filter ?? {}, p.options)),
        count: collectionAction({ filter: optionalObject }, (c, p) => c.count(p.filter)),
        insertOne: collectionAction({ doc: "object" }, (c, p) => c.insertOne(p.doc)),
        insertMany: collectionAction({ docs: { type: "array", items: "object" } }, (c, p) => c.insertMany(p.docs)),
        updateOne: collectionAction({ filter: "object", update: "object", options: optionalObject }, (c, p) => c.updateOne(p.filter, p.update, p.options)),
        updateMany: collectionAction({ filter: "object", update: "object" }, (c, p) => c.updateMany(p.filter, p.update)),
        findOneAndUpdate: collectionAction({ filter: "object", update: "object", options: optionalObject }, (c, p) => c.findOneAndUpdate(p.filter, p.update, p.options)),
        findOneAndDelete: collectionAction({ filter: "object" }, (c, p) => c.findOneAndDelete(p.filter)),
        deleteOne: collectionAction({ filter: "object" }, (c, p) => c.deleteOne(p.filter)),
        deleteMany: collectionAction({ filter: "object" }, (c, p) => c.deleteMany(p.filter)),
        aggregate: collectionAction({ pipeline: { type: "array", items: "object" } }, (c, p) => c.aggregate(p.pipeline)),
        createIndex: collectionAction({ spec: "object" }, (c, p) => c.createIndex(p.spec)),
        ping: {
            visibility: "public",
            async handler() {
                if (!this.store)
                    throw new moleculer_1.Errors.MoleculerRetryableError("store is not open yet", 503, "STORE_NOT_READY");
                await this.store.ping();
                return { ok: true };
            },
        },
    },
    async started() {
        // The broker's config, not the process environment: tests run several brokers in one process.
        const config = (0, runtime_1.configOf)(this.broker);
        this.store = await (0, store_1.openEmbeddedStore)(config.dataDir, { fsync: config.storeFsync });
    },
    async stopped() {
        await this.store?.close();
        this.store = undefined;
    },
};
exports.default = storeService;
//# sourceMappingURL=store.service.js.map