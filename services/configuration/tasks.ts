/**
 * The workflow task of the configuration manager (in the task catalog through its contract's task
 * metadata): one device checked at once against a node, answering compliant, totals, score, issues
 * and the remediation text, so a workflow can back up, check and branch on the result. Nothing is
 * stored: a batch (`runCompliance`) is what records history.
 */
import { latestBackups } from "./backups";
import { checker, checkText, loadBackup } from "./check";
import { invalidField } from "../../shared/errors";
import type { ConfigurationService, Ctx } from "./types";

export async function checkCompliance(this: ConfigurationService, ctx: Ctx<"checkCompliance">) {
  const { treeId, version, nodePath, deviceName } = ctx.params;
  const check = await checker.call(this, treeId, version);
  const spec = await check.specOf(nodePath);
  let backupId = ctx.params.backupId;
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
  return { deviceName, backupId, ...checkText(check.reader, spec, backup.config) };
}
