"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.FAILED_ADAPTERS_HEADER = void 0;
exports.find = find;
/**
 * Operation 15, POST /mop/deviceObjects: the Device objects of every adapter that can list devices
 * (or the one `options.entity` names), whose name holds `options.filter` (case-insensitive), sorted
 * by name, paged by `start` / `limit`. The adapters are asked at once; one that fails, times out
 * (DEVICE_LOOKUP_TIMEOUT_MS) or is stopped does not fail the lookup: its devices are left out and
 * the `X-Failed-Adapters` response header names it with the reason (the body stays the spec's
 * array, which clients read as is).
 */
const contracts_1 = require("../../shared/contracts");
const paging_1 = require("../../shared/paging");
const inventory_1 = require("./inventory");
exports.FAILED_ADAPTERS_HEADER = "X-Failed-Adapters";
/** A short, header-safe reason: the error's type, never its message (which may quote upstream text). */
function reasonOf(err) {
    const type = String(err?.type ?? err?.code ?? err?.name ?? "error");
    return type.replace(/[^A-Za-z0-9_.-]/g, "").slice(0, 64) || "error";
}
async function find(ctx) {
    const { start = 0, limit, entity, filter, sort } = ctx.params.options;
    const sources = await (0, contracts_1.call)(ctx, "adapters.deviceSources", entity === undefined ? {} : { entity });
    const failed = [];
    const devicesOf = async (source) => {
        if (source.stopped) {
            failed.push(`${source.name} (ADAPTER_STOPPED)`);
            return [];
        }
        try {
            if (source.kind === "inventory")
                return await (0, inventory_1.inventoryOf)(this, source);
            return await (0, contracts_1.call)(ctx, "adapters.listDevices", { name: source.name }, { timeout: this.lookupTimeoutMs });
        }
        catch (err) {
            failed.push(`${source.name} (${reasonOf(err)})`);
            this.logger.warn(`device lookup: adapter '${source.name}' left out: ${reasonOf(err)}`);
            return [];
        }
    };
    let found = (await Promise.all(sources.map(devicesOf))).flat();
    if (filter) {
        const needle = filter.toLowerCase();
        found = found.filter((d) => d.name.toLowerCase().includes(needle));
    }
    const direction = sort?.[0]?.name ?? 1;
    found.sort((a, b) => direction * (a.name.localeCompare(b.name) || a.host.localeCompare(b.host)));
    if (failed.length > 0)
        ctx.meta.$responseHeaders = {
            ...ctx.meta.$responseHeaders,
            [exports.FAILED_ADAPTERS_HEADER]: failed.sort().join(", "),
        };
    return found.slice(start, start + (0, paging_1.pageLimit)(limit));
}
//# sourceMappingURL=lookup.js.map