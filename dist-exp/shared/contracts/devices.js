"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.devices = void 0;
/**
 * devices: device lookup for change procedures (spec operation 15) over every adapter that can list
 * devices, and the devices of inventory adapters, kept by the platform (docs/orchestrator.md#device-lookup).
 */
const define_1 = require("./define");
const schema_1 = require("./schema");
const resources_1 = require("./resources");
const adapterName = { type: "string", min: 1, max: 128, pattern: /^[A-Za-z0-9._ -]+$/ };
const deviceName = { type: "string", min: 1, max: 255, pattern: /^[^\s/\\?#%]+$/ };
const text = (max) => ({ type: "string", max, optional: true });
exports.devices = (0, define_1.defineService)("devices", {
    find: {
        params: {
            options: {
                type: "object",
                strict: "remove",
                props: {
                    start: (0, schema_1.int)(0),
                    limit: (0, schema_1.int)(1),
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
        result: (0, schema_1.returns)((0, schema_1.arrayOf)(resources_1.deviceSchema)),
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
            description: "Operation 15 as a task: the Device objects of every orchestrator and inventory adapter whose name holds `options.filter` (case-insensitive); an adapter that fails is left out (docs/orchestrator.md#device-lookup).",
            location: "Application",
            variables: { incoming: { options: { filter: "", limit: 25 } }, outgoing: { devices: null } },
        },
    },
    listInventory: {
        params: { adapter: adapterName, start: (0, schema_1.int)(0), limit: (0, schema_1.int)(1) },
        result: (0, schema_1.returns)((0, schema_1.arrayOf)(resources_1.deviceSchema)),
        http: {
            method: "GET",
            path: "/adapters/:adapter/devices",
            access: define_1.SUPPORT_READ,
            summary: "The devices of an inventory adapter",
        },
    },
    putInventoryDevice: {
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
        result: (0, schema_1.returns)(resources_1.deviceSchema),
        http: {
            method: "PUT",
            path: "/adapters/:adapter/devices/:name",
            access: define_1.SUPPORT_WRITE,
            summary: "Create or replace a device of an inventory adapter",
        },
    },
    deleteInventoryDevice: {
        params: { adapter: adapterName, name: deviceName },
        result: (0, schema_1.returns)(resources_1.messageSchema),
        http: {
            method: "DELETE",
            path: "/adapters/:adapter/devices/:name",
            access: define_1.SUPPORT_WRITE,
            summary: "Delete a device of an inventory adapter",
        },
    },
});
//# sourceMappingURL=devices.js.map