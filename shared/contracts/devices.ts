/**
 * devices: device lookup for change procedures (spec operation 15) over every adapter that can list
 * devices, and the devices of inventory adapters, kept by the platform (docs/orchestrator.md#device-lookup).
 */
import { defineService, SUPPORT_READ, SUPPORT_WRITE } from "./define";
import { arrayOf, int, integer, returns, shape } from "./schema";
import { deviceSchema, messageSchema } from "./resources";

const adapterName = { type: "string", min: 1, max: 128, pattern: /^[A-Za-z0-9._ -]+$/ } as const;
const deviceName = { type: "string", min: 1, max: 255, pattern: /^[^\s/\\?#%]+$/ } as const;
const text = (max: number) => ({ type: "string", max, optional: true }) as const;

export const devices = defineService("devices", {
  find: {
    idempotent: "repeatable",
    params: {
      options: {
        type: "object",
        strict: "remove",
        props: {
          start: int(0),
          limit: int(1),
          entity: { ...adapterName, optional: true },
          filter: { type: "string", max: 255, optional: true },
          sort: {
            type: "array",
            optional: true,
            max: 1,
            items: { type: "object", strict: "remove", props: { name: { type: "enum", values: [1, -1] } } },
          },
        },
      },
    },
    result: returns(arrayOf(deviceSchema)),
    // When every adapter asked failed (one that failed among others is named in X-Failed-Adapters).
    errors: {
      502: "BAD_GATEWAY: every adapter asked failed (data: {adapters: [{adapter, reason}]})",
      503: "ADAPTER_STOPPED: every adapter asked is stopped (data: {adapters})",
      504: "TIMEOUT: every adapter asked timed out (DEVICE_LOOKUP_TIMEOUT_MS; data: {adapters})",
    },
    http: {
      method: "POST",
      path: "/mop/deviceObjects",
      access: ["admin", "engineering", "support"],
      spec: 15,
      summary: "Devices whose name matches the options",
    },
    task: {
      displayName: "Device lookup",
      summary: "Find devices by name across every adapter that lists devices",
      description:
        "Operation 15 as a task: the Device objects of every orchestrator and inventory adapter whose name holds `options.filter` (case-insensitive); an adapter that fails is left out (docs/orchestrator.md#device-lookup).",
      location: "Application",
      variables: { incoming: { options: { filter: "", limit: 25 } }, outgoing: { devices: null } },
    },
  },
  listInventory: {
    params: {
      adapter: adapterName,
      skip: int(0),
      start: { ...int(0), description: "The same as `skip` (the name operation 15 uses)" },
      limit: int(1),
    },
    result: returns(shape({ results: arrayOf(deviceSchema), total: integer, skip: integer, limit: integer })),
    http: {
      method: "GET",
      path: "/adapters/:adapter/devices",
      access: SUPPORT_READ,
      summary: "A page of an inventory adapter's devices, {results, total, skip, limit}",
    },
  },
  putInventoryDevice: {
    idempotent: "keyed",
    params: {
      adapter: adapterName,
      name: deviceName,
      address: { type: "string", min: 1, max: 255 },
      port: { type: "number", integer: true, min: 1, max: 65535, optional: true, convert: true },
      authgroup: text(255),
      "device-type": text(64),
      ned: text(255),
      admin: { type: "boolean", optional: true },
      groups: { type: "array", items: { type: "string", min: 1, max: 255 }, max: 100, optional: true },
    },
    result: returns(deviceSchema),
    http: {
      method: "PUT",
      path: "/adapters/:adapter/devices/:name",
      access: SUPPORT_WRITE,
      summary: "Create or replace a device of an inventory adapter",
    },
  },
  deleteInventoryDevice: {
    idempotent: "keyed",
    params: { adapter: adapterName, name: deviceName },
    result: returns(messageSchema),
    http: {
      method: "DELETE",
      path: "/adapters/:adapter/devices/:name",
      access: SUPPORT_WRITE,
      summary: "Delete a device of an inventory adapter",
    },
  },
});
