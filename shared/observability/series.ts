/**
 * Pre-bound metric series: one label set of one Moleculer metric, resolved once and kept.
 *
 * Moleculer's registry finds a series on every update by building a string from its label values
 * (`hashingLabels`) and looking it up, and a histogram turns each bucket bound into a property
 * name again on every observation. Updated on every action call and HTTP request, that was most of
 * what metrics cost a request (docs/operations-guide.md#cost). A `Series` makes its first update
 * through Moleculer, so the series is created exactly as before, keeps the item Moleculer made,
 * and from then on updates that item in place: the same fields, the same values, the same
 * change notification (`notifierOf`), hence the same /metrics text.
 *
 * Metrics with per-item rate meters or sliding-window quantiles always go through Moleculer (the
 * platform registers its hot metrics without them: ./metrics.ts).
 */
import { coarseNow } from "./coarse-clock";
import { MetricReporters, type ServiceBroker } from "moleculer";

export type Labels = Record<string, string | number | boolean | null | undefined>;

/** The fields of a Moleculer metric item this module updates (moleculer/src/metrics/types). */
interface Item {
  value: number;
  timestamp: number;
  sum: number;
  count: number;
  lastValue: number | null;
  bucketValues?: BucketValues;
}

/** What a Moleculer metric (gauge, counter or histogram) offers. */
export interface MoleculerMetric {
  type: string;
  name: string;
  labelNames: string[];
  values: Map<string, Item>;
  unit?: string;
  description?: string;
  buckets?: number[];
  quantiles?: number[];
  rate?: boolean;
  increment(labels: Labels | undefined, value: number): Item;
  set(value: number, labels: Labels | undefined): Item;
  observe(value: number, labels: Labels | undefined): Item;
  changed(value: unknown, labels: Labels | undefined): void;
  setDirty(): void;
  registry: { dirty?: boolean; reporter?: { metricChanged: unknown }[] };
}

/** Moleculer's base reporter's `metricChanged`: it does nothing (Prometheus keeps it). */
const IGNORES_CHANGES = (MetricReporters.Base.prototype as { metricChanged: unknown }).metricChanged;

/**
 * What an update tells Moleculer. `changed` marks the metric dirty (its next snapshot is rebuilt)
 * and hands the change to every reporter, through a closure allocated per update; the Prometheus
 * reporter ignores it (it reads the registry when scraped). When every reporter of the registry
 * ignores changes, the update only marks the metric dirty, as `changed` would.
 */
function notifierOf(metric: MoleculerMetric): (value: unknown, labels: Labels | undefined) => void {
  const reporters = metric.registry.reporter;
  if (reporters && reporters.every((r) => r.metricChanged === IGNORES_CHANGES))
    return () => {
      metric.setDirty();
      metric.registry.dirty = true;
    };
  return (value, labels) => metric.changed(value, labels);
}

/**
 * The time an update stamps on its item: Moleculer reads the clock on every update. Nothing the
 * platform exports shows it (the Prometheus text has no timestamps), so bound series read a clock
 * that ticks once a second (./coarse-clock.ts).
 */
const now = coarseNow;

/** Where a histogram item's bucket counts really are, once a series has bound it. */
const COUNTS = Symbol("bucketCounts");
type BucketValues = Record<string, number> & { [COUNTS]?: Float64Array };

/**
 * Moleculer keeps a histogram item's bucket counts in an object keyed by the bounds: integer keys
 * make it a dictionary of elements, and each `+= 1` costs about 150 ns (2 µs an observation with
 * the platform's 14 buckets, measured on the bench machine). The bound item gets, in its place, an
 * object of accessors over a Float64Array: Moleculer still reads and writes `bucketValues[bound]`
 * (a scrape, its own `observe`), and a series adds to the array.
 */
function countsOf(item: Item, bounds: number[], keys: string[]): Float64Array {
  const current = item.bucketValues!;
  const bound = current[COUNTS];
  if (bound) return bound;
  const counts = new Float64Array(bounds.length);
  const values = {} as BucketValues;
  keys.forEach((key, i) => {
    counts[i] = current[key] ?? 0;
    Object.defineProperty(values, key, {
      enumerable: true,
      get: () => counts[i],
      set: (v: number) => {
        counts[i] = v;
      },
    });
  });
  Object.defineProperty(values, COUNTS, { value: counts });
  item.bucketValues = values;
  return counts;
}

export class Series {
  private item: Item | undefined;
  /** The map `item` came from: Moleculer's `clear()` replaces it, and the series binds again. */
  private from: Map<string, Item> | undefined;
  /** The item's bucket counts (histograms); Moleculer's `reset` gives the item new ones. */
  private counts: Float64Array | undefined;
  private countsOf: BucketValues | undefined;
  /** Only plain items are updated in place; rate meters and quantiles need Moleculer's code. */
  private readonly plain: boolean;
  /** The bucket bounds as Moleculer's item keys them (`bucketValues[2.5]` is `bucketValues["2.5"]`). */
  private readonly bucketKeys: string[];
  /** Bound with the item: reporters are made when the registry starts, before any update. */
  private notify: (value: unknown, labels: Labels | undefined) => void = () => {};

  constructor(
    readonly metric: MoleculerMetric,
    readonly labels: Labels | undefined,
  ) {
    this.plain = !metric.rate && !metric.quantiles;
    this.bucketKeys = (metric.buckets ?? []).map(String);
  }

  private bound(): Item | undefined {
    return this.plain && this.from === this.metric.values ? this.item : undefined;
  }

  private keep(item: Item): void {
    this.item = item;
    this.from = this.metric.values;
    this.notify = notifierOf(this.metric);
  }

  /** Counter or gauge: adds `by` (negative for a gauge going down). */
  add(by = 1): void {
    const item = this.bound();
    if (!item) return this.keep(this.metric.increment(this.labels, by));
    // Moleculer's `set` leaves an unchanged item alone (timestamp included) and notifies nothing.
    if (by === 0) return;
    item.value += by;
    item.timestamp = now();
    this.notify(item.value, this.labels);
  }

  /** Gauge: sets the value. */
  set(value: number): void {
    const item = this.bound();
    if (!item) return this.keep(this.metric.set(value, this.labels));
    if (item.value == value) return;
    item.value = value;
    item.timestamp = now();
    this.notify(value, this.labels);
  }

  /** Histogram: records one value. */
  observe(value: number): void {
    const item = this.bound();
    if (!item) return this.keep(this.metric.observe(value, this.labels));
    item.timestamp = now();
    item.sum += value;
    item.count++;
    item.lastValue = value;
    const buckets = this.metric.buckets;
    if (item.bucketValues && buckets) {
      if (item.bucketValues !== this.countsOf) {
        this.counts = countsOf(item, buckets, this.bucketKeys);
        this.countsOf = item.bucketValues;
      }
      const counts = this.counts!;
      // Buckets are cumulative and sorted: every bound from the first one >= value counts it.
      let i = 0;
      while (i < buckets.length && !(value <= buckets[i])) i++;
      for (; i < buckets.length; i++) counts[i] += 1;
    }
    this.notify(value, this.labels);
  }
}

type Tree = Map<unknown, Tree | Series>;
const trees = new WeakMap<MoleculerMetric, Tree | Series>();

/**
 * The series of `metric` for these labels, found by its label values in `labelNames` order
 * (one map per label, no string built) and made on first use. Labels not in `labelNames` are
 * ignored, as Moleculer ignores them.
 */
export function seriesOf(metric: MoleculerMetric, labels: Labels | undefined): Series {
  const names = metric.labelNames;
  if (names.length === 0) {
    let s = trees.get(metric) as Series | undefined;
    if (!s) trees.set(metric, (s = new Series(metric, labels)));
    return s;
  }
  let node = trees.get(metric) as Tree | undefined;
  if (!node) trees.set(metric, (node = new Map()));
  const last = names.length - 1;
  for (let i = 0; i < last; i++) {
    const key = labels?.[names[i]];
    let next = node.get(key) as Tree | undefined;
    if (!next) node.set(key, (next = new Map()));
    node = next;
  }
  const key = labels?.[names[last]];
  let s = node.get(key) as Series | undefined;
  // The first labels seen are kept for the series: an object of its own, never the caller's.
  if (!s) node.set(key, (s = new Series(metric, labels && { ...labels })));
  return s;
}

/** The broker's metric of this name, typed for `seriesOf`; undefined when metrics are off. */
export function metricOf(broker: ServiceBroker, name: string): MoleculerMetric | undefined {
  if (!broker.isMetricsEnabled()) return undefined;
  return (broker.metrics.getMetric(name) as unknown as MoleculerMetric | null) ?? undefined;
}
