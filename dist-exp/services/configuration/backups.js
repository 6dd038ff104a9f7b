"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.createBackup = createBackup;
exports.getBackup = getBackup;
exports.latestBackups = latestBackups;
const errors_1 = require("../../shared/errors");
const text_1 = require("../../shared/text");
const config_tree_1 = require("./config-tree");
const types_1 = require("./types");
async function createBackup(ctx) {
    const { deviceName, config, description = "" } = ctx.params;
    const lines = config.split("\n").length;
    if (lines > config_tree_1.MAX_CONFIG_LINES)
        throw (0, errors_1.invalidField)("config", `A backup holds at most ${config_tree_1.MAX_CONFIG_LINES} lines.`, "count");
    const stored = await this.store
        .collection(types_1.BACKUPS)
        .insertOne({ deviceName, description, config, timestamp: (0, text_1.nowIso)() });
    const { config: _text, ...summary } = stored;
    return { ...summary, lines };
}
async function getBackup(ctx) {
    const backup = await this.store.collection(types_1.BACKUPS).findOne({ _id: ctx.params.id });
    if (!backup)
        throw new errors_1.NotFoundError("Backup", ctx.params.id);
    return backup;
}
/** The latest backup id of each device (absent devices are missing from the map). */
async function latestBackups(devices) {
    const latest = new Map();
    const backups = this.store.collection(types_1.BACKUPS);
    for (const deviceName of devices) {
        const found = await backups.findOne({ deviceName }, { sort: { timestamp: -1, _id: -1 }, projection: { _id: 1 } });
        if (found)
            latest.set(deviceName, found._id);
    }
    return latest;
}
//# sourceMappingURL=backups.js.map