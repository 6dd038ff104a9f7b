"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.isInventory = exports.DEAD_AFTER = exports.HEALTH = void 0;
exports.checkSoon = checkSoon;
exports.runCheck = runCheck;
exports.healthPass = healthPass;
exports.healthOf = healthOf;
const metrics_1 = require("../../../shared/observability/metrics");
const types_1 = require("../../../shared/store/types");
const text_1 = require("../../../shared/text");
const breaker_1 = require("../orchestrator/breaker");
const proxy_1 = require("../orchestrator/proxy");
const target_1 = require("../orchestrator/target");
exports.HEALTH = "adapter_health";
/** Failed checks in a row after which an adapter's state is DEAD (it stays checked, and recovers). */
exports.DEAD_AFTER = 3;
const isInventory = (doc) => String(doc.properties.type).toLowerCase() === "inventory";
exports.isInventory = isInventory;
/** Why an adapter is not checked, or undefined when it is. */
function notChecked(doc) {
    if ((0, target_1.isOrchestrator)(doc))
        return undefined;
    if ((0, exports.isInventory)(doc))
        return "an inventory adapter has no connection: its devices are kept by the platform";
    return `the platform has no connection check for adapter type '${doc.properties.type}'`;
}
/** Asks for a check on the next pass of any replica. */
async function checkSoon(service, name) {
    await service.store
        .collection(exports.HEALTH)
        .updateOne({ _id: name }, { $set: { nextCheckAt: 0 } }, { upsert: true });
}
/** Checks one adapter now and stores the outcome. */
async function runCheck(service, doc) {
    const health = service.store.collection(exports.HEALTH);
    const started = Date.now();
    let error = null;
    let latencyMs = null;
    try {
        const target = (0, target_1.targetOf)(doc, service.secretKey);
        const reply = await (0, proxy_1.probe)(target, target.health.path);
        latencyMs = Date.now() - started;
        if (reply.status >= 500)
            error = `the orchestrator answered ${reply.status}`;
        else if (reply.status === 401 || reply.status === 403)
            error = `the orchestrator refused the adapter's credentials (${reply.status})`;
        else
            (0, breaker_1.recordSuccess)(doc.name);
    }
    catch (err) {
        error = String(err?.message ?? err);
    }
    const now = (0, text_1.nowIso)();
    const update = error
        ? {
            $set: {
                "connection.state": "OFFLINE",
                "connection.lastCheck": now,
                "connection.lastError": error,
                "connection.latencyMs": latencyMs,
            },
            $inc: { failures: 1 },
        }
        : {
            $set: {
                "connection.state": "ONLINE",
                "connection.lastCheck": now,
                "connection.lastSuccess": now,
                "connection.lastError": null,
                "connection.latencyMs": latencyMs,
                failures: 0,
            },
        };
    return (await health.findOneAndUpdate({ _id: doc.name }, update, { upsert: true }));
}
/**
 * Claims the adapter's due check for this replica: true when this replica won it. The claim moves
 * `nextCheckAt` one interval on, so a replica that dies mid-check costs one interval, no more.
 */
async function claimCheck(service, name, intervalMs, now) {
    const health = service.store.collection(exports.HEALTH);
    const next = now + intervalMs;
    if (await health.findOneAndUpdate({ _id: name, nextCheckAt: { $lte: now } }, { $set: { nextCheckAt: next } }))
        return true;
    if (await health.findOne({ _id: name }, { projection: { _id: 1 } }))
        return false;
    try {
        await health.insertOne({ _id: name, nextCheckAt: next });
        return true;
    }
    catch (err) {
        if (err instanceof types_1.DuplicateKeyError)
            return false;
        throw err;
    }
}
/** One pass of this replica's timer: every running orchestrator adapter whose check is due. */
async function healthPass(service) {
    const now = Date.now();
    const docs = await service.adapters().collection.find({ state: { $ne: "STOPPED" } }, { limit: 1000 });
    const due = [];
    for (const doc of docs) {
        if (!(0, target_1.isOrchestrator)(doc))
            continue;
        let intervalMs;
        try {
            intervalMs = (0, target_1.targetOf)(doc, service.secretKey).health.intervalMs;
        }
        catch {
            intervalMs = 60_000; // no host: checked (and found OFFLINE) at the default pace
        }
        if (await claimCheck(service, doc.name, intervalMs, now))
            due.push(doc);
    }
    await Promise.all(due.map((doc) => runCheck(service, doc)));
    await reportUp(service, docs.filter(target_1.isOrchestrator));
}
/** Every replica reports every orchestrator adapter's last check, so any scrape sees them all. */
async function reportUp(service, docs) {
    if (!service.broker.isMetricsEnabled() || docs.length === 0)
        return;
    const checks = await service.store
        .collection(exports.HEALTH)
        .find({ _id: { $in: docs.map((d) => d.name) } });
    for (const check of checks)
        if (check.connection)
            (0, metrics_1.gauge)(service.broker, "adapterUp", check.connection.state === "ONLINE" ? 1 : 0, { adapter: check._id });
}
/** The real product's health entry for an adapter and its stored check. */
function healthOf(doc, check) {
    const type = String(doc.properties.type);
    const base = { id: doc.name, package_id: doc.model ?? `adapter-${type.toLowerCase()}`, type };
    if (doc.state === "STOPPED")
        return { ...base, state: "STOPPED", connection: { state: "OFFLINE", reason: "the adapter is stopped" } };
    const reason = notChecked(doc);
    if (reason)
        return { ...base, state: "RUNNING", connection: { state: "NOT_CHECKED", reason } };
    if (!check?.connection)
        return { ...base, state: "RUNNING", connection: { state: "NOT_CHECKED", reason: "not checked yet" } };
    const failures = check.failures ?? 0;
    return {
        ...base,
        state: failures >= exports.DEAD_AFTER ? "DEAD" : "RUNNING",
        connection: { ...check.connection, failures },
    };
}
//# sourceMappingURL=checks.js.map