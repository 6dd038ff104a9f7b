/**
 * An orchestrator's devices for operation 15 (docs/orchestrator.md#device-lookup): its device list
 * over the REST API (`devicesPath`, default `/api/running/devices/device`; RESTCONF paths work too)
 * and its device groups (`deviceGroupsPath`; a failure there leaves `groups` empty rather than
 * failing the lookup), mapped to the spec's Device object.
 */
import type { adapters as contract, DeviceSource } from "../../../shared/contracts/adapters";
import type { Device } from "../../../shared/contracts/resources";
import { invalidField } from "../../../shared/errors";
import type { HandlerContext } from "../../../shared/service";
import type { StoredAdapter } from "../documents";
import type { AdaptersService } from "../handlers";
import { isInventory } from "../health/checks";
import { runningTarget } from "./handlers";
import { exchangeGuarded, send } from "./proxy";
import { isOrchestrator } from "./target";

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;
type Json = Record<string, any>;

/** `obj[name]`, or the member named `<module>:<name>` (NSO prefixes top-level members with their module). */
function member(obj: unknown, name: string): any {
  if (!obj || typeof obj !== "object") return undefined;
  if (name in obj) return (obj as Json)[name];
  const key = Object.keys(obj).find((k) => k.endsWith(`:${name}`));
  return key === undefined ? undefined : (obj as Json)[key];
}

/** The first list named `name` in the body: `{collection: {x:name: [..]}}`, `{x:name: [..]}` or `{x:devices: {name: [..]}}`. */
export function listIn(body: unknown, name: string, depth = 0): Json[] {
  if (!body || typeof body !== "object" || depth > 4) return [];
  const direct = member(body, name);
  if (Array.isArray(direct)) return direct.filter((d) => d && typeof d === "object");
  for (const value of Object.values(body)) {
    const found = listIn(value, name, depth + 1);
    if (found.length > 0) return found;
  }
  return [];
}

/** `device-type {cli {ned-id "cisco-ios-cli-6.42:cisco-ios-cli-6.42"}}` -> ["cli", "cisco-ios-cli-6.42"]. */
function deviceType(raw: Json): [string, string] {
  const types = member(raw, "device-type");
  if (!types || typeof types !== "object") return ["", ""];
  const kind = Object.keys(types)[0] ?? "";
  const nedId = member(types[kind], "ned-id");
  const ned = typeof nedId === "string" ? nedId.slice(nedId.lastIndexOf(":") + 1) : "";
  return [kind.slice(kind.lastIndexOf(":") + 1), ned];
}

export function toDevice(raw: Json, adapter: string, groups: Map<string, string[]>): Device {
  const [kind, ned] = deviceType(raw);
  const text = (v: unknown) => (v === undefined || v === null ? "" : String(v));
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

export async function listDevices(this: AdaptersService, ctx: Ctx<"listDevices">): Promise<Device[]> {
  const target = await runningTarget(this, ctx.params.name);
  const [list, groupReply] = await Promise.all([
    send(target, { method: "GET", path: target.devices.path, accept: target.devices.accept }),
    exchangeGuarded(target, {
      method: "GET",
      path: target.devices.groupsPath,
      accept: target.devices.accept,
    }).catch(() => undefined),
  ]);
  const groups = new Map<string, string[]>();
  if (groupReply && groupReply.status < 300)
    for (const group of listIn(groupReply.body, "device-group")) {
      const members = member(group, "device-name");
      for (const device of Array.isArray(members) ? members : [])
        groups.set(String(device), [...(groups.get(String(device)) ?? []), String(group.name)]);
    }
  return listIn(list.body, "device").map((raw) => toDevice(raw, target.name, groups));
}

function sourceOf(doc: StoredAdapter): DeviceSource | undefined {
  const kind = isOrchestrator(doc) ? "orchestrator" : isInventory(doc) ? "inventory" : undefined;
  return kind && { name: doc.name, id: doc._id, kind, stopped: doc.state === "STOPPED" };
}

/** Adapters that can list devices; `entity` narrows to one (404 unknown, 400 when it cannot list devices). */
export async function deviceSources(
  this: AdaptersService,
  ctx: Ctx<"deviceSources">,
): Promise<DeviceSource[]> {
  const { entity } = ctx.params;
  if (entity === undefined)
    return (await this.adapters.list()).map(sourceOf).filter((s): s is DeviceSource => !!s);
  const source = sourceOf(await this.adapters.get(entity));
  if (!source)
    throw invalidField(
      "options.entity",
      `Adapter '${entity}' cannot list devices (not an orchestrator or inventory adapter)`,
      "adapterType",
    );
  return [source];
}
