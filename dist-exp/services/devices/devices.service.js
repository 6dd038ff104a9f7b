"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
const devices_1 = require("../../shared/contracts/devices");
const events_1 = require("../../shared/contracts/events");
const runtime_1 = require("../../shared/runtime");
const service_1 = require("../../shared/service");
const inventory_1 = require("./inventory");
const lookup_1 = require("./lookup");
exports.default = (0, service_1.typedService)({
    name: devices_1.devices.name,
    mixins: [service_1.storeMixin],
    actions: (0, service_1.contractActions)(devices_1.devices, {
        find: lookup_1.find,
        listInventory: inventory_1.listInventory,
        putInventoryDevice: inventory_1.putInventoryDevice,
        deleteInventoryDevice: inventory_1.deleteInventoryDevice,
    }),
    events: {
        /** A deleted adapter's inventory goes with it (a re-created adapter has a new _id, so it starts empty either way). */
        async [events_1.ADAPTER_DELETED_EVENT](ctx) {
            await this.store.collection(inventory_1.INVENTORY).deleteMany({ adapterId: ctx.params.id });
        },
    },
    created() {
        this.lookupTimeoutMs = (0, runtime_1.configOf)(this.broker).adapters.deviceLookupTimeoutMs;
    },
    async started() {
        await this.store.collection(inventory_1.INVENTORY).createIndex({ keys: { adapterId: 1, name: 1 }, unique: true });
    },
});
//# sourceMappingURL=devices.service.js.map