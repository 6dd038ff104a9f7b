"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.healthEntries = healthEntries;
exports.healthList = healthList;
exports.healthGet = healthGet;
exports.checkHealth = checkHealth;
const health_query_1 = require("../../../shared/health-query");
const target_1 = require("../orchestrator/target");
const checks_1 = require("./checks");
/** Each adapter's health, joined with its stored check. */
async function healthEntries(service, docs) {
    const checks = await service.store
        .collection(checks_1.HEALTH)
        .find({ _id: { $in: docs.map((d) => d.name) } });
    const byName = new Map(checks.map((c) => [c._id, c]));
    return docs.map((doc) => (0, checks_1.healthOf)(doc, byName.get(doc.name)));
}
async function healthList(ctx) {
    return (0, health_query_1.healthPage)(await healthEntries(this, await this.adapters().list()), ctx.params);
}
async function healthGet(ctx) {
    const [entry] = await healthEntries(this, [await this.adapters().get(ctx.params.name)]);
    return { results: [entry], total: 1 };
}
async function checkHealth(ctx) {
    const doc = await this.adapters().get(ctx.params.name);
    if (doc.state !== "STOPPED" && (0, target_1.isOrchestrator)(doc))
        await (0, checks_1.runCheck)(this, doc);
    return (await healthEntries(this, [doc]))[0];
}
//# sourceMappingURL=handlers.js.map