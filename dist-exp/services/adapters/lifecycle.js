"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.assertRunning = assertRunning;
exports.stop = stop;
exports.start = start;
exports.restart = restart;
/**
 * Adapter lifecycle: PUT /adapters/:name/stop, /start, /restart (docs/orchestrator.md#lifecycle).
 * The state lives on the stored adapter, which every proxy call reads, so every replica obeys a
 * stop at once. A restart bumps the adapter's `generation`: each replica drops its connection pool
 * for the old generation on its next call (./orchestrator/connections.ts) and re-reads the settings
 * (they are read from the store on every call anyway). Start and restart ask for a health check now.
 */
const moleculer_1 = require("moleculer");
const errors_1 = require("../../shared/errors");
const text_1 = require("../../shared/text");
const checks_1 = require("./health/checks");
const breaker_1 = require("./orchestrator/breaker");
const connections_1 = require("./orchestrator/connections");
/** 503 naming the adapter when it was stopped. */
function assertRunning(doc) {
    if (doc.state === "STOPPED")
        throw new moleculer_1.Errors.MoleculerError(`Adapter '${doc.name}' is stopped`, 503, "ADAPTER_STOPPED", {
            adapter: doc.name,
        });
}
async function setState(service, name, update) {
    const doc = await service
        .adapters()
        .collection.findOneAndUpdate({ name }, { ...update, $set: { ...update.$set, "_meta.updated": (0, text_1.nowIso)() } });
    if (!doc)
        throw new errors_1.NotFoundError("Adapter", name);
    return doc;
}
const answer = (doc, message) => ({
    status: "OK",
    message,
    data: { name: doc.name, state: doc.state ?? "RUNNING" },
});
async function stop(ctx) {
    const doc = await setState(this, ctx.params.name, { $set: { state: "STOPPED" } });
    (0, connections_1.dropPool)(doc.name);
    return answer(doc, `Adapter '${doc.name}' stopped`);
}
async function start(ctx) {
    const doc = await setState(this, ctx.params.name, { $set: { state: "RUNNING" } });
    (0, breaker_1.resetCircuit)(doc.name);
    await (0, checks_1.checkSoon)(this, doc.name);
    return answer(doc, `Adapter '${doc.name}' started`);
}
async function restart(ctx) {
    const doc = await setState(this, ctx.params.name, { $set: { state: "RUNNING" }, $inc: { generation: 1 } });
    (0, connections_1.dropPool)(doc.name);
    (0, breaker_1.resetCircuit)(doc.name);
    await (0, checks_1.checkSoon)(this, doc.name);
    return answer(doc, `Adapter '${doc.name}' restarted`);
}
//# sourceMappingURL=lifecycle.js.map