"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.TARGET_KEYS = void 0;
exports.isVirtual = isVirtual;
exports.isProfiling = isProfiling;
exports.toAdapter = toAdapter;
/** Keys (lowercased, letters and digits only) that name where an adapter connects to. */
exports.TARGET_KEYS = ["host", "hostname", "hosts", "url", "uri", "baseurl", "address", "endpoint"];
function isVirtual(settings) {
    return !Object.entries(settings ?? {}).some(([key, value]) => exports.TARGET_KEYS.includes(key.toLowerCase().replace(/[^a-z0-9]/g, "")) &&
        value !== null &&
        value !== "" &&
        !(Array.isArray(value) && value.length === 0));
}
function isProfiling(loggerProps) {
    const file = loggerProps?.metrics_filename;
    return typeof file === "string" && file.trim() !== "";
}
/** An adapter as every answer carries it: the stored instance plus `profiling` and `virtual`. */
function toAdapter(doc) {
    return {
        ...doc,
        profiling: isProfiling(doc.loggerProps),
        virtual: isVirtual(doc.properties.properties),
    };
}
//# sourceMappingURL=documents.js.map