/**
 * Collection `compliance_reports`: one device's result in one batch, unique per (batch, device):
 * { _id, batchId, treeId, version, nodePath, deviceName, backupId (null: the device had no backup),
 * timestamp, totals, score, compliant, issues, remediation }. Lists read them newest first by time,
 * device, tree (version), batch or node; a batch's reports by device name.
 */
import type { ComplianceReport } from "../../shared/contracts/configuration";
import { index, Repository } from "../../shared/store/repository";
import { DuplicateKeyError, type Filter } from "../../shared/store/types";

export type StoredReport = Omit<ComplianceReport, "id"> & { _id: string };
export type NewReport = Omit<StoredReport, "_id">;
/** A report without its issues and remediation, as lists answer it. */
export type ReportSummary = Omit<StoredReport, "issues" | "remediation">;
export type HistoryRow = Pick<
  StoredReport,
  "_id" | "batchId" | "treeId" | "version" | "nodePath" | "deviceName" | "timestamp" | "totals"
>;

/** What a report list filters on; the members given all hold. */
export interface ReportQuery {
  deviceName?: string;
  devices?: string[];
  backupIds?: string[];
  treeId?: string;
  version?: string;
  nodePath?: string;
  batchId?: string;
  /** A range on `timestamp` (lists.ts#timeRange). */
  timestamp?: Record<string, string>;
}

const SUMMARY = {
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

const HISTORY = {
  batchId: 1,
  treeId: 1,
  version: 1,
  nodePath: 1,
  deviceName: 1,
  timestamp: 1,
  totals: 1,
} as const;

export class ReportsRepository extends Repository<StoredReport> {
  readonly collectionName = "compliance_reports";
  readonly indexes = [
    // One report per device per batch: a resumed batch never writes a device twice.
    index({ batchId: 1, deviceName: 1 }, { unique: true }),
    // The lists' queries: newest first, overall or by device, tree (version), batch or node.
    index({ timestamp: -1 }),
    index({ deviceName: 1, timestamp: -1 }),
    index({ treeId: 1, version: 1, timestamp: -1 }),
    index({ batchId: 1, timestamp: -1 }),
    index({ nodePath: 1, timestamp: -1 }),
  ];

  /**
   * Stores a chunk's reports; those a dead claimer already wrote (same batch and device) stay as they
   * are: the unique (batchId, deviceName) index refuses the second, and the others are stored one by one.
   */
  async storeChunk(reports: NewReport[]): Promise<void> {
    const docs = reports.map((r) => ({ _id: this.newId(), ...r }));
    try {
      await this.docs.insertMany(docs);
    } catch (err) {
      if (!(err instanceof DuplicateKeyError)) throw err;
      for (const doc of docs) {
        try {
          await this.docs.insertOne(doc);
        } catch (inner) {
          if (!(inner instanceof DuplicateKeyError)) throw inner;
        }
      }
    }
  }

  byId(id: string): Promise<StoredReport | null> {
    return this.docs.findOne({ _id: id });
  }

  /** A page of a batch's reports in full, by device name, and how many it has. */
  async pageOfBatch(
    batchId: string,
    skip: number,
    limit: number,
  ): Promise<{ results: StoredReport[]; total: number }> {
    return this.findPage({ batchId }, { sort: { deviceName: 1 }, skip, limit });
  }

  /** A page of report summaries, newest first, and how many match. */
  async page(
    query: ReportQuery,
    skip: number,
    limit: number,
  ): Promise<{ results: ReportSummary[]; total: number }> {
    return this.findPage(filterOf(query), {
      sort: { timestamp: -1, _id: -1 },
      skip,
      limit,
      projection: SUMMARY,
    });
  }

  /** The newest `limit` reports' history members (spec operation 11). */
  history(query: ReportQuery, limit: number): Promise<HistoryRow[]> {
    return this.docs.find(filterOf(query), { sort: { timestamp: -1, _id: -1 }, limit, projection: HISTORY });
  }
}

function filterOf(query: ReportQuery): Filter {
  const filter: Filter = {};
  if (query.deviceName) filter.deviceName = query.deviceName;
  if (query.devices) filter.deviceName = { $in: query.devices };
  if (query.backupIds) filter.backupId = { $in: query.backupIds };
  if (query.treeId) filter.treeId = query.treeId;
  if (query.version) filter.version = query.version;
  if (query.nodePath) filter.nodePath = query.nodePath;
  if (query.batchId) filter.batchId = query.batchId;
  if (query.timestamp) filter.timestamp = query.timestamp;
  return filter;
}
