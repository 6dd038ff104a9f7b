/**
 * Backups (docs/configuration-manager.md#backups): a device's config text as it was at a time, with
 * an id. Compliance reads a device's latest backup unless the caller names backups. The text is
 * parsed when stored only to refuse what no parser could read (over the line or depth bounds).
 */
import type { Backup, ComplianceBatch, TreeNode } from "../../shared/contracts/configuration";
import { invalidField, NotFoundError } from "../../shared/errors";
import { pageLimit } from "../../shared/paging";
import { nowIso } from "../../shared/text";
import { MAX_CONFIG_LINES } from "./config-tree";
import { timeRange } from "./lists";
import { BACKUPS, BATCHES, NODES, type ConfigurationService, type Ctx } from "./types";

export async function createBackup(this: ConfigurationService, ctx: Ctx<"createBackup">) {
  const { deviceName, config, description = "" } = ctx.params;
  const lines = config.split("\n").length;
  if (lines > MAX_CONFIG_LINES)
    throw invalidField("config", `A backup holds at most ${MAX_CONFIG_LINES} lines.`, "count");
  const stored = await this.store
    .collection<Backup>(BACKUPS)
    .insertOne({ deviceName, description, config, timestamp: nowIso() });
  const { config: _text, ...summary } = stored;
  return { ...summary, lines };
}

export async function getBackup(this: ConfigurationService, ctx: Ctx<"getBackup">) {
  const backup = await this.store.collection<Backup>(BACKUPS).findOne({ _id: ctx.params.id });
  if (!backup) throw new NotFoundError("Backup", ctx.params.id);
  return backup;
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
  const filter: Record<string, unknown> = {};
  const and: Record<string, unknown>[] = [];
  if (deviceName) filter.deviceName = deviceName;
  if (treeId) {
    const nodes = await this.store
      .collection<TreeNode>(NODES)
      .find({ treeId, ...(version && { version }) }, { projection: { devices: 1 } });
    and.push({ deviceName: { $in: [...new Set(nodes.flatMap((n) => n.devices))] } });
  }
  if (batchId) {
    const batch = await this.store
      .collection<ComplianceBatch>(BATCHES)
      .findOne({ _id: batchId }, { projection: { targets: 1 } });
    const ids = (batch?.targets ?? []).flatMap((t) => (t.backupId ? [t.backupId] : []));
    filter._id = { $in: ids };
  }
  const timestamp = timeRange(from, to);
  if (timestamp) filter.timestamp = timestamp;
  if (and.length > 0) filter.$and = and;
  const backups = this.store.collection<Backup>(BACKUPS);
  const [results, total] = await Promise.all([
    backups.find(filter, {
      sort: { timestamp: -1, _id: -1 },
      skip,
      limit,
      projection: { config: 0 },
      readOnly: true,
    }),
    backups.count(filter),
  ]);
  return { results, total, skip, limit };
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
  const found = await this.store
    .collection<Backup>(BACKUPS)
    .find({ deviceName: { $in: devices } }, { projection: { _id: 1, deviceName: 1, timestamp: 1 } });
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
