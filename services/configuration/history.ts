/**
 * Compliance history (spec operation 11): the totals of stored device reports, newest first, filtered
 * by tree, version, node path, devices and backups; `limit` as every list (shared/paging.ts). Each
 * entry carries exactly the spec's Compliance history entry members.
 */
import type { ComplianceHistoryEntry } from "../../shared/contracts/resources";
import { pageLimit } from "../../shared/paging";
import { asReport } from "./batches";
import { timeRange } from "./lists";
import type { ConfigurationService, Ctx } from "./types";

export async function complianceHistory(this: ConfigurationService, ctx: Ctx<"complianceHistory">) {
  const { treeId, version, nodePath, devices, backups, limit } = ctx.params.options;
  const docs = await this.reports.history(
    { treeId, version, nodePath, devices, backupIds: backups },
    pageLimit(limit),
  );
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

/**
 * `GET /configuration_manager/compliance_reports`: a page of stored device reports, newest first,
 * without their issues and remediation, by device, tree (version, node), batch and time.
 */
export async function listReports(this: ConfigurationService, ctx: Ctx<"listReports">) {
  const { deviceName, treeId, version, nodePath, batchId, from, to, skip = 0 } = ctx.params;
  const limit = pageLimit(ctx.params.limit);
  const { results, total } = await this.reports.page(
    { deviceName, treeId, version, nodePath, batchId, timestamp: timeRange(from, to) },
    skip,
    limit,
  );
  return {
    results: results.map((d) => ({ ...asReport(d), backupId: d.backupId ?? null })),
    total,
    skip,
    limit,
  };
}
