"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.checkCompliance = checkCompliance;
exports.remediate = remediate;
/**
 * The configuration manager's workflow tasks (in the task catalog through their contracts' task
 * metadata), beside `createBackup`: one device checked at once against a node, answering compliant,
 * totals, score, issues and the remediation text (`checkCompliance`), or only whether it complies
 * and the remediation (`remediate`), so a workflow can back up, check, branch and hand the fix to a
 * person. Nothing is stored: a batch (`runCompliance`) is what records history.
 */
const backups_1 = require("./backups");
const check_1 = require("./check");
const errors_1 = require("../../shared/errors");
async function checkCompliance(ctx) {
    return checkDevice.call(this, ctx.params);
}
async function remediate(ctx) {
    const { deviceName, backupId, compliant, remediation } = await checkDevice.call(this, ctx.params);
    return { deviceName, backupId, compliant, remediation };
}
/** One device's latest (or named) backup against the node's effective spec. */
async function checkDevice(params) {
    const { treeId, version, nodePath, deviceName } = params;
    const check = await check_1.checker.call(this, treeId, version);
    const spec = await check.specOf(nodePath);
    let backupId = params.backupId;
    if (!backupId) {
        backupId = (await backups_1.latestBackups.call(this, [deviceName])).get(deviceName);
        if (!backupId)
            throw (0, errors_1.invalidField)("deviceName", `No backup for device '${deviceName}'.`, "noBackup");
    }
    const backup = await check_1.loadBackup.call(this, backupId);
    if (backup.deviceName !== deviceName)
        throw (0, errors_1.invalidField)("backupId", `Backup ${backupId} is of device '${backup.deviceName}', not '${deviceName}'.`);
    return { deviceName, backupId, ...(0, check_1.checkText)(check.reader, spec, backup.config) };
}
//# sourceMappingURL=tasks.js.map