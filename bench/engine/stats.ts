/** Small statistics for the engine bench. */

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export interface Latency {
  count: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export function latency(values: number[]): Latency {
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    count: values.length,
    p50Ms: round(percentile(values, 50)),
    p99Ms: round(percentile(values, 99)),
    maxMs: round(values.length ? Math.max(...values) : NaN),
  };
}
