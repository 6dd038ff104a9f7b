/**
 * Backups (docs/configuration-manager.md#backups): a device's config text as it was at a time, with
 * an id. Compliance reads a device's latest backup unless the caller names backups. The text is
 * parsed when stored only to refuse what no parser could read (over the line or depth bounds).
 */
import { invalidField, NotFoundError } from "../../shared/errors";
import { page, pageLimit } from "../../shared/paging";
import { nowIso } from "../../shared/text";
import { MAX_CONFIG_LINES } from "./config-tree";
import { timeRange } from "./lists";
import { withId } from "./answers";
import type { BackupQuery } from "./backups.repository";
import type { ConfigurationService, Ctx } from "./types";

export async function createBackup(this: ConfigurationService, ctx: Ctx<"createBackup">) {
  const { deviceName, config, description = "" } = ctx.params;
  const lines = config.split("\n").length;
  if (lines > MAX_CONFIG_LINES)
    throw invalidField("config", `A backup holds at most ${MAX_CONFIG_LINES} lines.`, "count");
  const stored = await this.backups.create({ deviceName, description, config, timestamp: nowIso() });
  const { config: _text, ...summary } = stored;
  return { ...withId(summary), lines };
}

export async function getBackup(this: ConfigurationService, ctx: Ctx<"getBackup">) {
  const backup = await this.backups.byId(ctx.params.id);
  if (!backup) throw new NotFoundError("Backup", ctx.params.id);
  return withId(backup);
}

/**
 * `GET /configuration_manager/backups`: a page of backups without their text, newest first. The
 * filters meet: a device; the devices assigned to a tree's nodes (in one version, or any); the
 * backups a batch checked; a time range. A tree or batch that does not exist matches nothing, as
 * any filter that matches nothing: an empty page, not a 404.
 */
export async function listBackups(this: ConfigurationService, ctx: Ctx<"listBackups">) {
  const { deviceName, treeId, version, batchId, from, to, skip = 0 } = ctx.params;
  const limit = pageLimit(ctx.params.limit);
  const query: BackupQuery = { timestamp: timeRange(from, to) };
  if (deviceName) query.deviceName = deviceName;
  if (treeId) query.devices = await this.nodes.devicesOfTree(treeId, version);
  if (batchId) query.ids = await this.batches.backupIdsOf(batchId);
  const { results, total } = await this.backups.page(query, skip, limit);
  return page(results.map(withId), total, skip, limit);
}

/**
 * The latest backup id of each device (absent devices are missing from the map): one read for all
 * of them (ids and times only), not one per device, so a batch of thousands of devices costs one
 * pass over the backups, on the loop every caller shares.
 */
export async function latestBackups(
  this: ConfigurationService,
  devices: string[],
): Promise<Map<string, string>> {
  const found = await this.backups.stampsOf(devices);
  const latest = new Map<string, { _id: string; timestamp: string }>();
  for (const backup of found) {
    const best = latest.get(backup.deviceName);
    // Newest timestamp first, then the highest id (as a sort on {timestamp: -1, _id: -1} would).
    if (
      !best ||
      backup.timestamp > best.timestamp ||
      (backup.timestamp === best.timestamp && backup._id > best._id)
    )
      latest.set(backup.deviceName, backup);
  }
  return new Map([...latest].map(([device, backup]) => [device, backup._id]));
}
