"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.tracked = exports.clientWithRoles = void 0;
exports.adminClient = adminClient;
exports.expectNoPlaintext = expectNoPlaintext;
exports.platformKey = platformKey;
exports.expectSealed = expectSealed;
exports.withStore = withStore;
exports.fieldsOf = fieldsOf;
exports.listenersKnown = listenersKnown;
const secrets_1 = require("../../shared/secrets");
const runtime_1 = require("../../shared/runtime");
const remote_1 = require("../../shared/store/remote");
const platform_1 = require("./platform");
var platform_2 = require("./platform");
Object.defineProperty(exports, "clientWithRoles", { enumerable: true, get: function () { return platform_2.clientWithRoles; } });
Object.defineProperty(exports, "tracked", { enumerable: true, get: function () { return platform_2.tracked; } });
async function adminClient(platform, seen = []) {
    return (0, platform_1.tracked)((0, platform_1.client)(platform.baseUrl, await (0, platform_1.login)(platform.baseUrl)), seen);
}
/** Asserts no reply body (whole text, headers aside) holds any of the plaintext secrets. */
function expectNoPlaintext(replies, secrets) {
    expect(replies.length).toBeGreaterThan(0);
    for (const reply of replies)
        for (const secret of secrets)
            expect({ secret, found: reply.text.includes(secret) }).toEqual({ secret, found: false });
}
/** The platform's encryption key (the services' data dir holds it). */
function platformKey(platform) {
    return (0, secrets_1.loadKey)({ dataDir: platform.dataDir, encryptionKey: undefined });
}
/** Asserts `stored` is the stored encrypted form of `plaintext`. */
function expectSealed(platform, stored, plaintext) {
    expect((0, secrets_1.isEncrypted)(stored)).toBe(true);
    expect((0, secrets_1.decrypt)(platformKey(platform), stored)).toBe(plaintext);
}
/**
 * Runs `fn` with the store the catalog services use, for the few checks no operation can reach:
 * in one process the broker's own store; over NATS the `store` service, as the services reach it.
 */
async function withStore(platform, fn) {
    const members = platform.members ?? [platform];
    if (members.length > 1)
        return fn(new remote_1.RemoteBackend(platform.broker));
    const store = await (0, runtime_1.acquireStore)(platform.broker);
    try {
        return await fn(store);
    }
    finally {
        await store.close();
    }
}
/** The `{field, message, type}` items of a 400 VALIDATION_ERROR. */
function fieldsOf(reply) {
    return (reply.body?.data ?? []).map((d) => d.field);
}
/**
 * Does every broker of the platform know that `broker` listens to `event`? Moleculer sends an
 * event only to nodes it knows listen, and a node's listeners reach the others in its INFO packet,
 * sent a debounce interval after its services registered: a broadcast before that misses it.
 */
function listenersKnown(platform, broker, event) {
    const members = platform.members ?? [platform];
    return members.every((m) => m.broker.registry.events.getAllEndpoints(event).some((ep) => ep.id === broker.nodeID));
}
//# sourceMappingURL=catalog.js.map