"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.clientWithRoles = void 0;
exports.withStore = withStore;
exports.insert = insert;
exports.fieldsOf = fieldsOf;
exports.shuffled = shuffled;
/** Helpers of the search suites: the platform's store for seeding, clients with given roles. */
const runtime_1 = require("../../shared/runtime");
var platform_1 = require("./platform");
Object.defineProperty(exports, "clientWithRoles", { enumerable: true, get: function () { return platform_1.clientWithRoles; } });
/** The broker running the search service (the platform itself in-process). */
function searchHost(platform) {
    const members = platform.members ?? [];
    return (members.find((m) => m.broker.getLocalService("search")) ?? platform).broker;
}
/**
 * Runs `fn` with the store exactly as the search service sees it (its broker's store: embedded
 * in-process, the store service over the bus in the NATS shape): the way to seed collections whose
 * owning service may not have its create operation yet, and to see what a rejected call left behind.
 */
async function withStore(platform, fn) {
    const broker = searchHost(platform);
    const store = await (0, runtime_1.acquireStore)(broker);
    try {
        return await fn(store);
    }
    finally {
        await store.close();
    }
}
function insert(platform, collection, docs) {
    return withStore(platform, (store) => store.collection(collection).insertMany(docs));
}
/** The `field`s of a 400 VALIDATION_ERROR's items. */
function fieldsOf(reply) {
    return (reply.body?.data ?? []).map((d) => d.field);
}
/** Fisher-Yates with a fixed seed: stored order must not be what the answer's order relies on. */
function shuffled(items, seed = 7) {
    const out = [...items];
    let s = seed;
    for (let i = out.length - 1; i > 0; i--) {
        s = (s * 1103515245 + 12345) % 2 ** 31;
        const j = s % (i + 1);
        [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
}
//# sourceMappingURL=search.js.map