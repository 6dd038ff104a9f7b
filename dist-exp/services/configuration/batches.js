"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.runCompliance = runCompliance;
exports.sweepInBackground = sweepInBackground;
exports.sweep = sweep;
exports.getBatch = getBatch;
exports.asReport = asReport;
exports.listBatchReports = listBatchReports;
exports.getReport = getReport;
/**
 * Compliance batches (docs/configuration-manager.md#batches): `runCompliance` stores a batch of
 * targets (device, node, backup) and answers its id at once; the run happens in the background, in
 * whichever replica claims it. Nothing about a run lives in a process: a claim is a lease in the
 * batch document (compare-and-set on `leaseUntil`), progress (`done`) and totals advance by
 * compare-and-set on the `done` the claimer read, and reports are unique per (batch, device). A
 * replica that dies mid-run stops renewing its lease; when it runs out, any replica resumes the batch
 * at `done`, and a report the dead replica had already written is kept, not written twice.
 */
const promises_1 = require("node:timers/promises");
const errors_1 = require("../../shared/errors");
const paging_1 = require("../../shared/paging");
const text_1 = require("../../shared/text");
const types_1 = require("../../shared/store/types");
const backups_1 = require("./backups");
const check_1 = require("./check");
const trees_1 = require("./trees");
const types_2 = require("./types");
const ZERO = { errors: 0, warnings: 0, infos: 0, passes: 0 };
async function runCompliance(ctx) {
    const { treeId, version, nodePath = trees_1.ROOT_NODE, devices, backups } = ctx.params;
    await trees_1.requireVersion.call(this, treeId, version);
    await trees_1.nodeChain.call(this, treeId, version, nodePath);
    const targets = await targetsOf.call(this, treeId, version, nodePath, devices, backups);
    const batch = await this.store.collection(types_2.BATCHES).insertOne({
        treeId,
        version,
        nodePath,
        state: "queued",
        targets,
        done: 0,
        totals: { ...ZERO },
        claimedBy: null,
        leaseUntil: 0,
        created: (0, text_1.nowIso)(),
        finished: null,
        error: null,
    });
    // This replica starts at once; the others would find it on their next sweep anyway.
    setImmediate(() => sweepInBackground.call(this));
    return { batchId: batch._id, devices: targets.length };
}
/** Named backups, named devices (their latest backup), or else the devices assigned at and under the node. */
async function targetsOf(treeId, version, nodePath, devices, backupIds) {
    const targets = new Map();
    for (const id of new Set(backupIds ?? [])) {
        const backup = await this.store
            .collection(types_2.BACKUPS)
            .findOne({ _id: id }, { projection: { config: 0 } });
        if (!backup)
            throw new errors_1.NotFoundError("Backup", id);
        targets.set(backup.deviceName, { deviceName: backup.deviceName, nodePath, backupId: id });
    }
    let wanted;
    if (devices)
        wanted = devices.map((deviceName) => ({ deviceName, nodePath }));
    else if (backupIds)
        wanted = [];
    else
        wanted = await assignedDevices.call(this, treeId, version, nodePath);
    wanted = wanted.filter((w) => !targets.has(w.deviceName));
    const latest = await backups_1.latestBackups.call(this, [...new Set(wanted.map((w) => w.deviceName))]);
    const without = wanted.filter((w) => !latest.has(w.deviceName)).map((w) => w.deviceName);
    if (without.length > 0)
        throw (0, errors_1.invalidField)("devices", `No backup for device(s): ${without.slice(0, 20).join(", ")}.`, "noBackup");
    for (const w of wanted)
        targets.set(w.deviceName, { ...w, backupId: latest.get(w.deviceName) });
    if (targets.size === 0)
        throw (0, errors_1.invalidField)("devices", `Node '${nodePath}' and the nodes under it have no devices assigned; name devices or backups.`, "empty");
    return [...targets.values()];
}
async function assignedDevices(treeId, version, nodePath) {
    const nodes = await this.store
        .collection(types_2.NODES)
        .find({ treeId, version }, { projection: { path: 1, devices: 1 }, sort: { path: 1 } });
    return nodes
        .filter((n) => n.path === nodePath || n.path.startsWith(`${nodePath}/`))
        .flatMap((n) => n.devices.map((deviceName) => ({ deviceName, nodePath: n.path })));
}
/**
 * Whether this replica is leaving: its service stopping, or its broker (which turns `started` off
 * the moment a stop begins, before services stop) — so a batch is handed back at once.
 */
function leaving(service) {
    return service.stopping || !service.broker.started;
}
/** The timer's and runCompliance's entry: one sweep at a time per replica, failures logged. */
function sweepInBackground() {
    if (this.sweeping || leaving(this))
        return;
    this.sweeping = sweep
        .call(this)
        .catch((err) => this.logger.warn(`compliance sweep failed: ${err.message}`))
        .finally(() => {
        this.sweeping = undefined;
    });
}
/** Claims and runs every batch that is queued or whose claimer's lease ran out. */
async function sweep() {
    let batches = 0;
    while (!leaving(this)) {
        const now = this.clock();
        const claimed = await this.store
            .collection(types_2.BATCHES)
            .findOneAndUpdate({ state: { $in: ["queued", "running"] }, leaseUntil: { $lt: now } }, { $set: { state: "running", claimedBy: this.broker.nodeID, leaseUntil: now + this.limits.leaseMs } }, { sort: { created: 1 } });
        if (!claimed)
            break;
        batches++;
        await runBatch.call(this, claimed);
    }
    return { batches };
}
async function runBatch(batch) {
    const batches = this.store.collection(types_2.BATCHES);
    let check;
    try {
        check = await check_1.checker.call(this, batch.treeId, batch.version);
    }
    catch (err) {
        await batches.updateOne({ _id: batch._id, claimedBy: this.broker.nodeID }, { $set: { state: "error", error: err.message, finished: (0, text_1.nowIso)() } });
        return;
    }
    for (let done = batch.done; done < batch.targets.length;) {
        if (leaving(this)) {
            // Handing the batch back at once: another replica (or this one restarted) resumes at `done`.
            await batches.updateOne({ _id: batch._id, claimedBy: this.broker.nodeID }, { $set: { leaseUntil: 0 } });
            return;
        }
        const chunk = batch.targets.slice(done, done + this.limits.chunk);
        const reports = await checkChunk.call(this, batch, check, chunk);
        await storeReports.call(this, reports);
        const totals = { ...ZERO };
        for (const r of reports)
            for (const k of Object.keys(ZERO))
                totals[k] += r.totals[k];
        const advanced = await batches.findOneAndUpdate({ _id: batch._id, claimedBy: this.broker.nodeID, done }, {
            $set: { done: done + chunk.length, leaseUntil: this.clock() + this.limits.leaseMs },
            $inc: Object.fromEntries(Object.entries(totals).map(([k, v]) => [`totals.${k}`, v])),
        });
        if (!advanced)
            return; // our lease ran out and another replica took the batch over
        done += chunk.length;
        await (0, promises_1.setImmediate)();
    }
    await batches.updateOne({ _id: batch._id, claimedBy: this.broker.nodeID }, { $set: { state: "complete", finished: (0, text_1.nowIso)() } });
}
async function checkChunk(batch, check, chunk) {
    const ids = chunk.map((t) => t.backupId);
    const backups = await this.store.collection(types_2.BACKUPS).find({ _id: { $in: ids } });
    const byId = new Map(backups.map((b) => [b._id, b]));
    const reports = [];
    for (const target of chunk) {
        const backup = byId.get(target.backupId);
        const spec = await check.specOf(target.nodePath).catch(() => null);
        const result = backup && spec
            ? (0, check_1.checkText)(check.reader, spec, backup.config)
            : unreadable(backup ? `node '${target.nodePath}' was deleted` : `backup ${target.backupId} was deleted`);
        reports.push({
            batchId: batch._id,
            treeId: batch.treeId,
            version: batch.version,
            nodePath: target.nodePath,
            deviceName: target.deviceName,
            backupId: target.backupId,
            timestamp: (0, text_1.nowIso)(),
            ...result,
        });
    }
    return reports;
}
function unreadable(reason) {
    return {
        totals: { errors: 1, warnings: 0, infos: 0, passes: 0 },
        score: 0,
        compliant: false,
        issues: [{ kind: "unreadable", severity: "error", specLine: "(config)", path: [], found: reason }],
        remediation: "",
    };
}
/** Inserts a chunk's reports; those a dead claimer already wrote (same batch and device) stay as they are. */
async function storeReports(reports) {
    const collection = this.store.collection(types_2.REPORTS);
    try {
        await collection.insertMany(reports);
    }
    catch (err) {
        if (!(err instanceof types_1.DuplicateKeyError))
            throw err;
        for (const report of reports) {
            try {
                await collection.insertOne(report);
            }
            catch (inner) {
                if (!(inner instanceof types_1.DuplicateKeyError))
                    throw inner;
            }
        }
    }
}
async function getBatch(ctx) {
    const batch = await this.store.collection(types_2.BATCHES).findOne({ _id: ctx.params.batchId });
    if (!batch)
        throw new errors_1.NotFoundError("Compliance batch", ctx.params.batchId);
    const { targets, claimedBy: _c, leaseUntil: _l, ...rest } = batch;
    return { ...rest, devices: targets.length };
}
/** A stored report as answered: `id` for `_id`, as the spec's history entries name it. */
function asReport(doc) {
    const { _id, ...rest } = doc;
    return { id: _id, ...rest };
}
async function listBatchReports(ctx) {
    const { batchId, skip = 0, limit } = ctx.params;
    if (!(await this.store.collection(types_2.BATCHES).findOne({ _id: batchId }, { projection: { _id: 1 } })))
        throw new errors_1.NotFoundError("Compliance batch", batchId);
    const docs = await this.store
        .collection(types_2.REPORTS)
        .find({ batchId }, { sort: { deviceName: 1 }, skip, limit: (0, paging_1.pageLimit)(limit) });
    return docs.map(asReport);
}
async function getReport(ctx) {
    const doc = await this.store.collection(types_2.REPORTS).findOne({ _id: ctx.params.id });
    if (!doc)
        throw new errors_1.NotFoundError("Compliance report", ctx.params.id);
    return asReport(doc);
}
//# sourceMappingURL=batches.js.map