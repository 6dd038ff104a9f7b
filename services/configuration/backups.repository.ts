/**
 * Collection `config_backups`: devices' config texts as they were at a time:
 * { _id, deviceName, description, config, timestamp }. Lists read them newest first, by device or
 * by time; compliance reads a device's latest.
 */
import type { Backup } from "../../shared/contracts/configuration";
import { index, Repository } from "../../shared/store/repository";
import type { Filter } from "../../shared/store/types";

export type StoredBackup = Backup;
export type BackupSummary = Omit<StoredBackup, "config">;

/** What a backup list filters on; the members given all hold. */
export interface BackupQuery {
  deviceName?: string;
  /** Backups of these devices only. */
  devices?: string[];
  /** These backups only. */
  ids?: string[];
  /** A range on `timestamp` (lists.ts#timeRange). */
  timestamp?: Record<string, string>;
}

export class BackupsRepository extends Repository<StoredBackup> {
  readonly collectionName = "config_backups";
  /** The lists' queries: newest first, by device, or by time alone. */
  readonly indexes = [index({ deviceName: 1, timestamp: -1 }), index({ timestamp: -1 })];

  create(fields: Omit<StoredBackup, "_id">): Promise<StoredBackup> {
    return this.docs.insertOne({ _id: this.newId(), ...fields });
  }

  byId(id: string): Promise<StoredBackup | null> {
    return this.docs.findOne({ _id: id });
  }

  /** A backup without its text. */
  summaryById(id: string): Promise<BackupSummary | null> {
    return this.docs.findOne({ _id: id }, { projection: { config: 0 } });
  }

  /** The backups of these ids that exist, with their text. */
  byIds(ids: string[]): Promise<StoredBackup[]> {
    return ids.length > 0 ? this.docs.find({ _id: { $in: ids } }) : Promise.resolve([]);
  }

  /** A page of backups without their text, newest first, and how many match. */
  async page(
    query: BackupQuery,
    skip: number,
    limit: number,
  ): Promise<{ results: BackupSummary[]; total: number }> {
    const { results, total } = await this.findPage(filterOf(query), {
      sort: { timestamp: -1, _id: -1 },
      skip,
      limit,
      projection: { config: 0 },
      readOnly: true,
    });
    return { results, total };
  }

  /** Id, device and time of every backup of these devices (latestBackups picks each device's newest). */
  stampsOf(devices: string[]): Promise<Pick<StoredBackup, "_id" | "deviceName" | "timestamp">[]> {
    return this.docs.find(
      { deviceName: { $in: devices } },
      { projection: { _id: 1, deviceName: 1, timestamp: 1 } },
    );
  }
}

function filterOf(query: BackupQuery): Filter {
  const filter: Filter = {};
  const and: Filter[] = [];
  if (query.deviceName) filter.deviceName = query.deviceName;
  if (query.devices) and.push({ deviceName: { $in: query.devices } });
  if (query.ids) filter._id = { $in: query.ids };
  if (query.timestamp) filter.timestamp = query.timestamp;
  if (and.length > 0) filter.$and = and;
  return filter;
}
