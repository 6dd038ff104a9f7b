"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.listIn = listIn;
exports.toDevice = toDevice;
exports.listDevices = listDevices;
exports.deviceSources = deviceSources;
const errors_1 = require("../../../shared/errors");
const checks_1 = require("../health/checks");
const handlers_1 = require("./handlers");
const proxy_1 = require("./proxy");
const target_1 = require("./target");
/** `obj[name]`, or the member named `<module>:<name>` (NSO prefixes top-level members with their module). */
function member(obj, name) {
    if (!obj || typeof obj !== "object")
        return undefined;
    if (name in obj)
        return obj[name];
    const key = Object.keys(obj).find((k) => k.endsWith(`:${name}`));
    return key === undefined ? undefined : obj[key];
}
/** The first list named `name` in the body: `{collection: {x:name: [..]}}`, `{x:name: [..]}` or `{x:devices: {name: [..]}}`. */
function listIn(body, name, depth = 0) {
    if (!body || typeof body !== "object" || depth > 4)
        return [];
    const direct = member(body, name);
    if (Array.isArray(direct))
        return direct.filter((d) => d && typeof d === "object");
    for (const value of Object.values(body)) {
        const found = listIn(value, name, depth + 1);
        if (found.length > 0)
            return found;
    }
    return [];
}
/** `device-type {cli {ned-id "cisco-ios-cli-6.42:cisco-ios-cli-6.42"}}` -> ["cli", "cisco-ios-cli-6.42"]. */
function deviceType(raw) {
    const types = member(raw, "device-type");
    if (!types || typeof types !== "object")
        return ["", ""];
    const kind = Object.keys(types)[0] ?? "";
    const nedId = member(types[kind], "ned-id");
    const ned = typeof nedId === "string" ? nedId.slice(nedId.lastIndexOf(":") + 1) : "";
    return [kind.slice(kind.lastIndexOf(":") + 1), ned];
}
function toDevice(raw, adapter, groups) {
    const [kind, ned] = deviceType(raw);
    const text = (v) => (v === undefined || v === null ? "" : String(v));
    const name = text(raw.name);
    return {
        name,
        address: text(member(raw, "address")),
        port: text(member(raw, "port")),
        authgroup: text(member(raw, "authgroup")),
        "device-type": kind,
        ned,
        admin: member(member(raw, "state"), "admin-state") === "unlocked",
        host: adapter,
        groups: groups.get(name) ?? [],
    };
}
async function listDevices(ctx) {
    const target = await (0, handlers_1.runningTarget)(this, ctx.params.name);
    const [list, groupReply] = await Promise.all([
        (0, proxy_1.send)(target, { method: "GET", path: target.devices.path, accept: target.devices.accept }),
        (0, proxy_1.exchangeGuarded)(target, {
            method: "GET",
            path: target.devices.groupsPath,
            accept: target.devices.accept,
        }).catch(() => undefined),
    ]);
    const groups = new Map();
    if (groupReply && groupReply.status < 300)
        for (const group of listIn(groupReply.body, "device-group")) {
            const members = member(group, "device-name");
            for (const device of Array.isArray(members) ? members : [])
                groups.set(String(device), [...(groups.get(String(device)) ?? []), String(group.name)]);
        }
    return listIn(list.body, "device").map((raw) => toDevice(raw, target.name, groups));
}
function sourceOf(doc) {
    const kind = (0, target_1.isOrchestrator)(doc) ? "orchestrator" : (0, checks_1.isInventory)(doc) ? "inventory" : undefined;
    return kind && { name: doc.name, id: doc._id, kind, stopped: doc.state === "STOPPED" };
}
/** Adapters that can list devices; `entity` narrows to one (404 unknown, 400 when it cannot list devices). */
async function deviceSources(ctx) {
    const { entity } = ctx.params;
    if (entity === undefined)
        return (await this.adapters().list()).map(sourceOf).filter((s) => !!s);
    const source = sourceOf(await this.adapters().get(entity));
    if (!source)
        throw (0, errors_1.invalidField)("options.entity", `Adapter '${entity}' cannot list devices (not an orchestrator or inventory adapter)`, "adapterType");
    return [source];
}
//# sourceMappingURL=devices.js.map