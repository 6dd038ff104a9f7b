"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.create = create;
exports.list = list;
exports.get = get;
exports.remove = remove;
const text_1 = require("../../shared/text");
const events_1 = require("../../shared/contracts/events");
const credentials_1 = require("./credentials");
const documents_1 = require("./documents");
const checks_1 = require("./health/checks");
const handlers_1 = require("./health/handlers");
const health_query_1 = require("../../shared/health-query");
const breaker_1 = require("./orchestrator/breaker");
const connections_1 = require("./orchestrator/connections");
async function create(ctx) {
    // `isEncrypted` is not taken from the request: it says what the stored instance holds.
    const { name, type, properties, loggerProps, model } = ctx.params.properties;
    const settings = properties.properties;
    const now = (0, text_1.nowIso)();
    const doc = {
        name,
        type,
        description: ctx.params.description ?? "",
        tags: [...new Set(ctx.params.tags ?? [])],
        properties: {
            ...properties,
            ...(settings !== undefined && { properties: (0, credentials_1.sealCredentials)(this.secretKey, settings) }),
        },
        ...(loggerProps !== undefined && { loggerProps }),
        isEncrypted: (0, credentials_1.holdsCredentials)(settings),
        ...(model !== undefined && { model }),
        _meta: { created: now, updated: now, createdBy: ctx.meta.caller?.accountId ?? "system" },
    };
    const stored = await this.adapters().insert(doc);
    await (0, checks_1.checkSoon)(this, name);
    return { status: "OK", message: `Adapter '${name}' created`, data: (0, documents_1.toAdapter)(stored) };
}
/**
 * GET /adapters in the real product's shape (docs/compatibility.md#adapters): `{results: [{metadata,
 * data}], total}`, `data` the adapter as a read answers it, `metadata` its health entry (id,
 * package_id, state, connection), with the health reads' query (`equals`/`equalsField`, paging, sort).
 */
async function list(ctx) {
    const docs = await this.adapters().list();
    const byName = new Map(docs.map((d) => [d.name, d]));
    const page = (0, health_query_1.healthPage)(await (0, handlers_1.healthEntries)(this, docs), ctx.params);
    return {
        results: page.results.map((metadata) => ({ metadata, data: (0, documents_1.toAdapter)(byName.get(metadata.id)) })),
        total: page.total,
    };
}
/** The adapter with its lifecycle `state` and the last check's `connection` (docs/orchestrator.md#health). */
async function get(ctx) {
    const doc = await this.adapters().get(ctx.params.name);
    const [health] = await (0, handlers_1.healthEntries)(this, [doc]);
    return { ...(0, documents_1.toAdapter)(doc), state: health.state, connection: health.connection };
}
async function remove(ctx) {
    const doc = await this.adapters().remove(ctx.params.name);
    await this.store.collection(checks_1.HEALTH).deleteOne({ _id: doc.name });
    (0, connections_1.dropPool)(doc.name);
    (0, breaker_1.resetCircuit)(doc.name);
    const event = { name: doc.name, id: doc._id };
    this.broker.broadcast(events_1.ADAPTER_DELETED_EVENT, event);
    return { status: "OK", message: `Adapter '${ctx.params.name}' deleted` };
}
//# sourceMappingURL=handlers.js.map