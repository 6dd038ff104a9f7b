/**
 * Operation 15, POST /mop/deviceObjects: the Device objects of every adapter that can list devices
 * (or the one `options.entity` names), whose name holds `options.filter` (case-insensitive), sorted
 * by name, paged by `start` / `limit`. The adapters are asked at once; one that fails, times out
 * (DEVICE_LOOKUP_TIMEOUT_MS) or is stopped does not fail the lookup: its devices are left out and
 * the `X-Failed-Adapters` response header names it with the reason (the body stays the spec's
 * array, which clients read as is). When every adapter asked failed, there is no answer to give:
 * `200 []` would say "no such device", so the lookup fails naming them (docs/orchestrator.md#device-lookup):
 * 503 ADAPTER_STOPPED when each was stopped, 504 TIMEOUT when each timed out, else 502 BAD_GATEWAY.
 */
import { Errors } from "moleculer";
import { call } from "../../shared/contracts";
import type { DeviceSource } from "../../shared/contracts/adapters";
import type { devices as contract } from "../../shared/contracts/devices";
import type { Device } from "../../shared/contracts/resources";
import { pageLimit } from "../../shared/paging";
import type { InventoryRepository } from "./inventory.repository";
import type { HandlerContext, PlatformService } from "../../shared/service";
import { inventoryOf } from "./inventory";

/** `this` of the devices service: what devices.service.ts adds to a platform service. */
export type DevicesService = PlatformService<{ lookupTimeoutMs: number; inventory: InventoryRepository }>;

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

export const FAILED_ADAPTERS_HEADER = "X-Failed-Adapters";

/** A short, header-safe reason: the error's type, never its message (which may quote upstream text). */
function reasonOf(err: any): string {
  const type = String(err?.type ?? err?.code ?? err?.name ?? "error");
  return type.replace(/[^A-Za-z0-9_.-]/g, "").slice(0, 64) || "error";
}

export async function find(this: DevicesService, ctx: Ctx<"find">): Promise<Device[]> {
  const { start = 0, limit, entity, filter, sort } = ctx.params.options;
  const sources = await call(ctx, "adapters.deviceSources", entity === undefined ? {} : { entity });
  const failed: { adapter: string; reason: string }[] = [];
  const devicesOf = async (source: DeviceSource): Promise<Device[]> => {
    if (source.stopped) {
      failed.push({ adapter: source.name, reason: "ADAPTER_STOPPED" });
      return [];
    }
    try {
      if (source.kind === "inventory") return await inventoryOf(this, source);
      return await call(
        ctx,
        "adapters.listDevices",
        { name: source.name },
        { timeout: this.lookupTimeoutMs },
      );
    } catch (err) {
      failed.push({ adapter: source.name, reason: reasonOf(err) });
      this.logger.warn(`device lookup: adapter '${source.name}' left out: ${reasonOf(err)}`);
      return [];
    }
  };
  let found = (await Promise.all(sources.map(devicesOf))).flat();
  if (sources.length > 0 && failed.length === sources.length) throw everyAdapterFailed(failed);
  if (filter) {
    const needle = filter.toLowerCase();
    found = found.filter((d) => d.name.toLowerCase().includes(needle));
  }
  const direction = sort?.[0]?.name ?? 1;
  found.sort((a, b) => direction * (a.name.localeCompare(b.name) || a.host.localeCompare(b.host)));
  if (failed.length > 0)
    ctx.meta.$responseHeaders = {
      ...ctx.meta.$responseHeaders,
      [FAILED_ADAPTERS_HEADER]: failed
        .map(({ adapter, reason }) => `${adapter} (${reason})`)
        .sort()
        .join(", "),
    };
  return found.slice(start, start + pageLimit(limit));
}

/** The lookup's error when no adapter answered: the adapters and their reasons, in `data.adapters`. */
function everyAdapterFailed(failed: { adapter: string; reason: string }[]): Error {
  const adapters = [...failed].sort((a, b) => a.adapter.localeCompare(b.adapter));
  const named = adapters.map(({ adapter, reason }) => `${adapter} (${reason})`).join(", ");
  const data = { adapters };
  if (adapters.every((f) => f.reason === "ADAPTER_STOPPED"))
    return new Errors.MoleculerError(
      `No adapter to ask for devices is running: ${named}`,
      503,
      "ADAPTER_STOPPED",
      data,
    );
  if (adapters.every((f) => f.reason === "REQUEST_TIMEOUT"))
    return new Errors.MoleculerError(
      `No adapter answered the device lookup in time: ${named}`,
      504,
      "TIMEOUT",
      data,
    );
  return new Errors.MoleculerError(
    `Every adapter asked for devices failed: ${named}`,
    502,
    "BAD_GATEWAY",
    data,
  );
}
