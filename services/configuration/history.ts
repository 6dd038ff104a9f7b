/**
 * Compliance history (spec operation 11): the totals of stored device reports, newest first, filtered
 * by tree, version, node path, devices and backups; `limit` as every list (shared/paging.ts). Each
 * entry carries exactly the spec's Compliance history entry members.
 */
import type { ComplianceHistoryEntry } from "../../shared/contracts/resources";
import { pageLimit } from "../../shared/paging";
import { REPORTS, type ConfigurationService, type Ctx } from "./types";

export async function complianceHistory(this: ConfigurationService, ctx: Ctx<"complianceHistory">) {
  const { treeId, version, nodePath, devices, backups, limit } = ctx.params.options;
  const filter: Record<string, unknown> = {};
  if (treeId) filter.treeId = treeId;
  if (version) filter.version = version;
  if (nodePath) filter.nodePath = nodePath;
  if (devices) filter.deviceName = { $in: devices };
  if (backups) filter.backupId = { $in: backups };
  const docs = await this.store.collection(REPORTS).find(filter, {
    sort: { timestamp: -1, _id: -1 },
    limit: pageLimit(limit),
    projection: { batchId: 1, treeId: 1, version: 1, nodePath: 1, deviceName: 1, timestamp: 1, totals: 1 },
  });
  return docs.map((d): ComplianceHistoryEntry => ({
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
