/**
 * Compliance history (spec operation 11): the totals of stored device reports, newest first, filtered
 * by tree, version, node path, devices and backups; `limit` as every list (shared/paging.ts). Each
 * entry carries exactly the spec's Compliance history entry members.
 */
import type { ComplianceHistoryEntry } from "../../shared/contracts/resources";
import { pageLimit } from "../../shared/paging";
import { asReport } from "./batches";
import { timeRange } from "./lists";
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

/** The report members a list answers: the history entry's, and the backup, score and verdict. */
const REPORT_SUMMARY = {
  batchId: 1,
  treeId: 1,
  version: 1,
  nodePath: 1,
  deviceName: 1,
  backupId: 1,
  timestamp: 1,
  totals: 1,
  score: 1,
  compliant: 1,
} as const;

/**
 * `GET /configuration_manager/compliance_reports`: a page of stored device reports, newest first,
 * without their issues and remediation, by device, tree (version, node), batch and time.
 */
export async function listReports(this: ConfigurationService, ctx: Ctx<"listReports">) {
  const { deviceName, treeId, version, nodePath, batchId, from, to, skip = 0 } = ctx.params;
  const limit = pageLimit(ctx.params.limit);
  const filter: Record<string, unknown> = {};
  if (deviceName) filter.deviceName = deviceName;
  if (treeId) filter.treeId = treeId;
  if (version) filter.version = version;
  if (nodePath) filter.nodePath = nodePath;
  if (batchId) filter.batchId = batchId;
  const timestamp = timeRange(from, to);
  if (timestamp) filter.timestamp = timestamp;
  const reports = this.store.collection(REPORTS);
  const [docs, total] = await Promise.all([
    reports.find(filter, { sort: { timestamp: -1, _id: -1 }, skip, limit, projection: REPORT_SUMMARY }),
    reports.count(filter),
  ]);
  return {
    results: docs.map((d) => ({ ...asReport(d), backupId: d.backupId ?? null })),
    total,
    skip,
    limit,
  };
}
