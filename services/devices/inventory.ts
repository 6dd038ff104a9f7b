/**
 * Inventory adapters: an adapter instance of type `Inventory` whose devices the platform keeps,
 * managed through GET/PUT/DELETE /adapters/:adapter/devices[/:name]. Devices are stored under the
 * adapter's `_id` (asked of the adapters service on each write), so a deleted and re-created
 * adapter of the same name does not inherit the old devices. A PUT is one upsert on the unique
 * (adapterId, name) key: two writers of one device leave one device, the last write.
 */
import { call } from "../../shared/contracts";
import type { DeviceSource } from "../../shared/contracts/adapters";
import type { devices as contract } from "../../shared/contracts/devices";
import type { Device } from "../../shared/contracts/resources";
import { invalidField, NotFoundError } from "../../shared/errors";
import { page, pageLimit } from "../../shared/paging";
import type { HandlerContext } from "../../shared/service";
import { nowIso } from "../../shared/text";
import type { DevicesService } from "./lookup";

export const INVENTORY = "inventory_devices";
/** An inventory adapter's devices answered by one lookup at most (a lookup pages within them). */
const MAX_LOOKUP = 100_000;

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

interface StoredDevice {
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

function toDevice(doc: StoredDevice): Device {
  return {
    name: doc.name,
    address: doc.address,
    port: doc.port,
    authgroup: doc.authgroup,
    "device-type": doc.deviceType,
    ned: doc.ned,
    admin: doc.admin,
    host: doc.adapter,
    groups: doc.groups,
  };
}

/** The inventory adapter named `name`: 404 when there is none, 400 when it is another type. */
async function inventoryAdapter(ctx: Ctx<"listInventory" | "putInventoryDevice" | "deleteInventoryDevice">) {
  const [source] = await call(ctx, "adapters.deviceSources", { entity: ctx.params.adapter });
  if (source.kind !== "inventory")
    throw invalidField("adapter", `Adapter '${source.name}' is not an inventory adapter`, "adapterType");
  return source;
}

export async function inventoryOf(service: DevicesService, source: DeviceSource): Promise<Device[]> {
  const docs = await service.store
    .collection<StoredDevice>(INVENTORY)
    .find({ adapterId: source.id }, { sort: { name: 1 }, limit: MAX_LOOKUP });
  return docs.map(toDevice);
}

/** A page of an inventory adapter's devices, by name, in the project's list shape (`skip`, or `start`). */
export async function listInventory(this: DevicesService, ctx: Ctx<"listInventory">) {
  const source = await inventoryAdapter(ctx);
  const skip = ctx.params.skip ?? ctx.params.start ?? 0;
  const limit = pageLimit(ctx.params.limit);
  const devices = this.store.collection<StoredDevice>(INVENTORY);
  const [docs, total] = await Promise.all([
    devices.find({ adapterId: source.id }, { sort: { name: 1 }, skip, limit }),
    devices.count({ adapterId: source.id }),
  ]);
  return page(docs.map(toDevice), total, skip, limit);
}

export async function putInventoryDevice(this: DevicesService, ctx: Ctx<"putInventoryDevice">) {
  const source = await inventoryAdapter(ctx);
  const p = ctx.params;
  const now = nowIso();
  const fields = {
    adapter: source.name,
    address: p.address,
    port: p.port === undefined ? "" : String(p.port),
    authgroup: p.authgroup ?? "",
    deviceType: p["device-type"] ?? "",
    ned: p.ned ?? "",
    admin: p.admin ?? true,
    groups: [...new Set(p.groups ?? [])],
    "_meta.updated": now,
  };
  const doc = await this.store
    .collection<StoredDevice>(INVENTORY)
    .findOneAndUpdate(
      { adapterId: source.id, name: p.name },
      { $set: fields, $setOnInsert: { "_meta.created": now } },
      { upsert: true },
    );
  return toDevice(doc!);
}

export async function deleteInventoryDevice(this: DevicesService, ctx: Ctx<"deleteInventoryDevice">) {
  const source = await inventoryAdapter(ctx);
  const gone = await this.store
    .collection(INVENTORY)
    .deleteOne({ adapterId: source.id, name: ctx.params.name });
  if (gone === 0) throw new NotFoundError("Device", ctx.params.name);
  return { status: "OK", message: `Device '${ctx.params.name}' deleted from adapter '${source.name}'` };
}
