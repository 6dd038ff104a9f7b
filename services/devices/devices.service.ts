/**
 * devices: device lookup for change procedures (spec operation 15; docs/orchestrator.md#device-lookup).
 * It asks the adapters service which adapters can list devices, then gathers their devices: an
 * orchestrator's over the bus (the adapters service talks to the orchestrator), an inventory
 * adapter's from its own collection.
 *
 * Its collection: ./inventory.repository.ts.
 */
import type { Context } from "moleculer";
import { devices as contract } from "../../shared/contracts/devices";
import { ADAPTER_DELETED_EVENT, type AdapterDeletedEvent } from "../../shared/contracts/events";
import { configOf } from "../../shared/runtime";
import { contractActions, storeMixin, typedService } from "../../shared/service";
import { deleteInventoryDevice, listInventory, putInventoryDevice } from "./inventory";
import { InventoryRepository } from "./inventory.repository";
import { find, type DevicesService } from "./lookup";

export default typedService<DevicesService>({
  name: contract.name,
  mixins: [storeMixin],

  actions: contractActions<typeof contract.name, typeof contract.actions, DevicesService>(contract, {
    find,
    listInventory,
    putInventoryDevice,
    deleteInventoryDevice,
  }),

  events: {
    /** A deleted adapter's inventory goes with it (a re-created adapter has a new _id, so it starts empty either way). */
    async [ADAPTER_DELETED_EVENT](this: DevicesService, ctx: Context<AdapterDeletedEvent>) {
      // Events skip params validation: without an id, `{adapterId: undefined}` would match every
      // device on MongoDB (the driver drops undefined); the store refuses it, and so does this.
      const id = ctx.params?.id;
      if (typeof id !== "string" || id === "") {
        this.logger.warn(`${ADAPTER_DELETED_EVENT} without an adapter id: no inventory removed`);
        return;
      }
      await this.inventory.removeAdapter(id);
    },
  },

  created() {
    this.lookupTimeoutMs = configOf(this.broker).adapters.deviceLookupTimeoutMs;
  },

  async started() {
    this.inventory = new InventoryRepository(this.store);
    await this.inventory.ensureIndexes();
  },
});
