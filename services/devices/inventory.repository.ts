/**
 * Collection `inventory_devices`: the devices of inventory adapters, one document per (adapter's
 * `_id`, device name): { _id, adapterId, adapter (its name), name, address, port, authgroup,
 * deviceType, ned, admin, groups, _meta: {created, updated} }.
 */
import { index, Repository } from "../../shared/store/repository";

export interface StoredDevice {
  _id: string;
  adapterId: string;
  adapter: string;
  name: string;
  address: string;
  port: string;
  authgroup: string;
  deviceType: string;
  ned: string;
  admin: boolean;
  groups: string[];
  _meta: { created: string; updated: string };
}

/** A device's fields as a PUT writes them (the key and the audit fields aside). */
export type DeviceFields = Omit<StoredDevice, "_id" | "adapterId" | "name" | "_meta">;

export class InventoryRepository extends Repository<StoredDevice> {
  readonly collectionName = "inventory_devices";
  /** One device per name per adapter; also serves every read, which is by adapter, ordered by name. */
  readonly indexes = [index({ adapterId: 1, name: 1 }, { unique: true })];

  /** An adapter's devices by name, a page of them (`limit` always set: an adapter may hold 100,000). */
  pageOfAdapter(adapterId: string, skip: number, limit: number): Promise<StoredDevice[]> {
    return this.docs.find({ adapterId }, { sort: { name: 1 }, skip, limit });
  }

  countOfAdapter(adapterId: string): Promise<number> {
    return this.docs.count({ adapterId });
  }

  /** Writes the device as one upsert on its unique key: two writers leave one device, the last write. */
  async put(adapterId: string, name: string, fields: DeviceFields, now: string): Promise<StoredDevice> {
    const doc = await this.docs.findOneAndUpdate(
      { adapterId, name },
      { $set: { ...fields, "_meta.updated": now }, $setOnInsert: { "_meta.created": now } },
      { upsert: true },
    );
    // An upsert answering "after" always has a document.
    return doc!;
  }

  /** True when the device was there. */
  async remove(adapterId: string, name: string): Promise<boolean> {
    return (await this.docs.deleteOne({ adapterId, name })) > 0;
  }

  /** A deleted adapter's devices; `adapterId` must be a real id (a missing one is refused by the store, never a match-all). */
  removeAdapter(adapterId: string): Promise<number> {
    return this.docs.deleteMany({ adapterId });
  }
}
