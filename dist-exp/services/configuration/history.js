"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.complianceHistory = complianceHistory;
const paging_1 = require("../../shared/paging");
const types_1 = require("./types");
async function complianceHistory(ctx) {
    const { treeId, version, nodePath, devices, backups, limit } = ctx.params.options;
    const filter = {};
    if (treeId)
        filter.treeId = treeId;
    if (version)
        filter.version = version;
    if (nodePath)
        filter.nodePath = nodePath;
    if (devices)
        filter.deviceName = { $in: devices };
    if (backups)
        filter.backupId = { $in: backups };
    const docs = await this.store.collection(types_1.REPORTS).find(filter, {
        sort: { timestamp: -1, _id: -1 },
        limit: (0, paging_1.pageLimit)(limit),
        projection: { batchId: 1, treeId: 1, version: 1, nodePath: 1, deviceName: 1, timestamp: 1, totals: 1 },
    });
    return docs.map((d) => ({
        id: d._id,
        batchId: d.batchId,
        treeId: d.treeId,
        version: d.version,
        nodePath: d.nodePath,
        deviceName: d.deviceName,
        timestamp: d.timestamp,
        totals: d.totals,
    }));
}
//# sourceMappingURL=history.js.map