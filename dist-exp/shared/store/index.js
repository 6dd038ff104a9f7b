"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __exportStar = (this && this.__exportStar) || function(m, exports) {
    for (var p in m) if (p !== "default" && !Object.prototype.hasOwnProperty.call(exports, p)) __createBinding(exports, m, p);
};
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.DUPLICATE_KEY = void 0;
exports.chooseBackend = chooseBackend;
exports.createStore = createStore;
exports.openEmbeddedStore = openEmbeddedStore;
/**
 * createStore: the one way services get a Store. Backends opened here are shared per process
 * (one embedded store per data directory, one Mongo client per URL and database) and
 * reference-counted: each caller gets its own handle and its close() releases only that handle.
 */
const node_path_1 = __importDefault(require("node:path"));
const backend_1 = require("./embedded/backend");
const mongo_1 = require("./mongo");
const remote_1 = require("./remote");
__exportStar(require("./types"), exports);
var remote_2 = require("./remote");
Object.defineProperty(exports, "DUPLICATE_KEY", { enumerable: true, get: function () { return remote_2.DUPLICATE_KEY; } });
function chooseBackend(config, opts) {
    if (config.storeBackend)
        return config.storeBackend;
    if (config.mongoUrl)
        return "mongo";
    return opts.hostsStoreService ? "embedded" : "remote";
}
async function createStore(config, opts) {
    switch (chooseBackend(config, opts)) {
        case "embedded":
            return openEmbeddedStore(config.dataDir, { fsync: config.storeFsync });
        case "mongo": {
            const url = config.mongoUrl;
            if (!url)
                throw new Error("STORE=mongo needs MONGO_URL");
            return acquire(`mongo:${url}#${config.mongoDb}`, () => mongo_1.MongoBackend.connect(url, config.mongoDb));
        }
        case "remote":
            if (!opts.broker)
                throw new Error("the remote store needs a service broker");
            return new remote_1.RemoteBackend(opts.broker);
    }
}
/** The process-wide embedded store of `dataDir`; the store service and its neighbours share it. */
function openEmbeddedStore(dataDir, options = {}) {
    const resolved = node_path_1.default.resolve(dataDir);
    return acquire(`embedded:${resolved}`, async () => new backend_1.EmbeddedBackend({ dataDir: resolved, ...options }));
}
const shared = new Map();
async function acquire(key, open) {
    for (;;) {
        let entry = shared.get(key);
        if (!entry) {
            entry = open().then((store) => ({ store, refs: 0 }));
            shared.set(key, entry);
            entry.catch(() => shared.delete(key));
        }
        const s = await entry;
        // The last holder may have closed it while we waited: then open afresh.
        if (shared.get(key) !== entry)
            continue;
        s.refs++;
        return handle(s, async () => {
            if (--s.refs > 0)
                return;
            shared.delete(key);
            await s.store.close();
        });
    }
}
function handle(s, release) {
    let released = false;
    return {
        backend: s.store.backend,
        collection: (name) => {
            if (released)
                throw new Error("store handle is closed");
            return s.store.collection(name);
        },
        ping: async () => {
            if (released)
                throw new Error("store handle is closed");
            await s.store.ping();
        },
        close: async () => {
            if (released)
                return;
            released = true;
            await release();
        },
    };
}
//# sourceMappingURL=index.js.map