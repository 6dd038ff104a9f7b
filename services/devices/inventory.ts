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
import type { StoredDevice } from "./inventory.repository";

/** An inventory adapter's devices answered by one lookup at most (a lookup pages within them). */
const MAX_LOOKUP = 100_000;

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

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
  const docs = await service.inventory.pageOfAdapter(source.id, 0, MAX_LOOKUP);
  return docs.map(toDevice);
}

/** A page of an inventory adapter's devices, by name, in the project's list shape (`skip`, or `start`). */
export async function listInventory(this: DevicesService, ctx: Ctx<"listInventory">) {
  const source = await inventoryAdapter(ctx);
  const skip = ctx.params.skip ?? ctx.params.start ?? 0;
  const limit = pageLimit(ctx.params.limit);
  const [docs, total] = await Promise.all([
    this.inventory.pageOfAdapter(source.id, skip, limit),
    this.inventory.countOfAdapter(source.id),
  ]);
  return page(docs.map(toDevice), total, skip, limit);
}

export async function putInventoryDevice(this: DevicesService, ctx: Ctx<"putInventoryDevice">) {
  const source = await inventoryAdapter(ctx);
  const p = ctx.params;
  const fields = {
    adapter: source.name,
    address: p.address,
    port: p.port === undefined ? "" : String(p.port),
    authgroup: p.authgroup ?? "",
    deviceType: p["device-type"] ?? "",
    ned: p.ned ?? "",
    admin: p.admin ?? true,
    groups: [...new Set(p.groups ?? [])],
  };
  return toDevice(await this.inventory.put(source.id, p.name, fields, nowIso()));
}

export async function deleteInventoryDevice(this: DevicesService, ctx: Ctx<"deleteInventoryDevice">) {
  const source = await inventoryAdapter(ctx);
  if (!(await this.inventory.remove(source.id, ctx.params.name)))
    throw new NotFoundError("Device", ctx.params.name);
  return { status: "OK", message: `Device '${ctx.params.name}' deleted from adapter '${source.name}'` };
}
