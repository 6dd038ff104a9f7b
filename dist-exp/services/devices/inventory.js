"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.INVENTORY = void 0;
exports.inventoryOf = inventoryOf;
exports.listInventory = listInventory;
exports.putInventoryDevice = putInventoryDevice;
exports.deleteInventoryDevice = deleteInventoryDevice;
/**
 * Inventory adapters: an adapter instance of type `Inventory` whose devices the platform keeps,
 * managed through GET/PUT/DELETE /adapters/:adapter/devices[/:name]. Devices are stored under the
 * adapter's `_id` (asked of the adapters service on each write), so a deleted and re-created
 * adapter of the same name does not inherit the old devices. A PUT is one upsert on the unique
 * (adapterId, name) key: two writers of one device leave one device, the last write.
 */
const contracts_1 = require("../../shared/contracts");
const errors_1 = require("../../shared/errors");
const paging_1 = require("../../shared/paging");
const text_1 = require("../../shared/text");
exports.INVENTORY = "inventory_devices";
/** An inventory adapter's devices answered by one lookup at most (a lookup pages within them). */
const MAX_LOOKUP = 100_000;
function toDevice(doc) {
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
async function inventoryAdapter(ctx) {
    const [source] = await (0, contracts_1.call)(ctx, "adapters.deviceSources", { entity: ctx.params.adapter });
    if (source.kind !== "inventory")
        throw (0, errors_1.invalidField)("adapter", `Adapter '${source.name}' is not an inventory adapter`, "adapterType");
    return source;
}
async function inventoryOf(service, source) {
    const docs = await service.store
        .collection(exports.INVENTORY)
        .find({ adapterId: source.id }, { sort: { name: 1 }, limit: MAX_LOOKUP });
    return docs.map(toDevice);
}
async function listInventory(ctx) {
    const source = await inventoryAdapter(ctx);
    const { start = 0, limit } = ctx.params;
    const docs = await this.store
        .collection(exports.INVENTORY)
        .find({ adapterId: source.id }, { sort: { name: 1 }, skip: start, limit: (0, paging_1.pageLimit)(limit) });
    return docs.map(toDevice);
}
async function putInventoryDevice(ctx) {
    const source = await inventoryAdapter(ctx);
    const p = ctx.params;
    const now = (0, text_1.nowIso)();
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
        .collection(exports.INVENTORY)
        .findOneAndUpdate({ adapterId: source.id, name: p.name }, { $set: fields, $setOnInsert: { "_meta.created": now } }, { upsert: true });
    return toDevice(doc);
}
async function deleteInventoryDevice(ctx) {
    const source = await inventoryAdapter(ctx);
    const gone = await this.store
        .collection(exports.INVENTORY)
        .deleteOne({ adapterId: source.id, name: ctx.params.name });
    if (gone === 0)
        throw new errors_1.NotFoundError("Device", ctx.params.name);
    return { status: "OK", message: `Device '${ctx.params.name}' deleted from adapter '${source.name}'` };
}
//# sourceMappingURL=inventory.js.map