"use strict";
/** Small statistics for the engine bench. */
Object.defineProperty(exports, "__esModule", { value: true });
exports.percentile = percentile;
exports.latency = latency;
function percentile(values, p) {
    if (values.length === 0)
        return NaN;
    const sorted = [...values].sort((a, b) => a - b);
    const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
    return sorted[rank];
}
function latency(values) {
    const round = (x) => Math.round(x * 10) / 10;
    return {
        count: values.length,
        p50Ms: round(percentile(values, 50)),
        p99Ms: round(percentile(values, 99)),
        maxMs: round(values.length ? Math.max(...values) : NaN),
    };
}
//# sourceMappingURL=stats.js.map