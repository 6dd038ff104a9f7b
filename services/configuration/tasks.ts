/**
 * The configuration manager's workflow tasks (in the task catalog through their contracts' task
 * metadata), beside `createBackup`: one device checked at once against a node, answering compliant,
 * totals, score, issues and the remediation text (`checkCompliance`), or only whether it complies
 * and the remediation (`remediate`), so a workflow can back up, check, branch and hand the fix to a
 * person. Nothing is stored: a batch (`runCompliance`) is what records history.
 */
import { latestBackups } from "./backups";
import { checker, loadBackup } from "./check";
import { invalidField } from "../../shared/errors";
import type { ConfigurationService, Ctx } from "./types";

type DeviceCheck = Ctx<"checkCompliance">["params"];

export async function checkCompliance(this: ConfigurationService, ctx: Ctx<"checkCompliance">) {
  return checkDevice.call(this, ctx.params);
}

export async function remediate(this: ConfigurationService, ctx: Ctx<"remediate">) {
  const { deviceName, backupId, compliant, remediation } = await checkDevice.call(this, ctx.params);
  return { deviceName, backupId, compliant, remediation };
}

/** One device's latest (or named) backup against the node's effective spec. */
async function checkDevice(this: ConfigurationService, params: DeviceCheck) {
  const { treeId, version, nodePath, deviceName } = params;
  const check = await checker.call(this, treeId, version);
  const spec = await check.specOf(nodePath);
  let backupId = params.backupId;
  if (!backupId) {
    backupId = (await latestBackups.call(this, [deviceName])).get(deviceName);
    if (!backupId) throw invalidField("deviceName", `No backup for device '${deviceName}'.`, "noBackup");
  }
  const backup = await loadBackup.call(this, backupId);
  if (backup.deviceName !== deviceName)
    throw invalidField(
      "backupId",
      `Backup ${backupId} is of device '${backup.deviceName}', not '${deviceName}'.`,
    );
  return { deviceName, backupId, ...(await check.check(spec, backup.config)) };
}
