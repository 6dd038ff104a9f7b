/**
 * Pre-bound metric series: one label set of one Moleculer metric, resolved once and kept.
 *
 * Moleculer's registry finds a series on every update by building a string from its label values
 * (`hashingLabels`) and looking it up, and a histogram turns each bucket bound into a property
 * name again on every observation. Updated on every action call and HTTP request, that was most of
 * what metrics cost a request (docs/operations-guide.md#cost). A `Series` makes its first update
 * through Moleculer, so the series is created exactly as before, and keeps the item Moleculer made.
 * When no reporter follows changes (the platform's Prometheus reporter reads the registry when
 * scraped), later updates wait in the series as a few sums and are folded into the item whenever
 * Moleculer reads or updates the metric (`foldsFor`): an update touches no item, metric or
 * registry and walks no buckets. Otherwise each update changes the item in place and notifies as
 * Moleculer does (`notifierOf`). Either way: the same fields, the same values, hence the same
 * /metrics text (test/observability/series.test.ts checks it against Moleculer alone, updates,
 * resets, clears and reads mixed).
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
  get(labels: Labels | undefined): Item | undefined;
  changed(value: unknown, labels: Labels | undefined): void;
  setDirty(): void;
  registry: { dirty?: boolean; reporter?: { metricChanged: unknown }[] };
}

/** Moleculer's base reporter's `metricChanged`: it does nothing (Prometheus keeps it). */
const IGNORES_CHANGES = (MetricReporters.Base.prototype as { metricChanged: unknown }).metricChanged;

/** Whether every reporter of the metric's registry ignores changes (it reads the registry when asked). */
const changesIgnored = (metric: MoleculerMetric): boolean =>
  (metric.registry.reporter ?? []).every((r) => r.metricChanged === IGNORES_CHANGES);

/**
 * What an update tells Moleculer. `changed` marks the metric dirty (its next snapshot is rebuilt)
 * and hands the change to every reporter, through a closure allocated per update; the Prometheus
 * reporter ignores it (it reads the registry when scraped). When every reporter of the registry
 * ignores changes, the update only marks the metric dirty, as `changed` would.
 */
function notifierOf(metric: MoleculerMetric): (value: unknown, labels: Labels | undefined) => void {
  if (changesIgnored(metric))
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

/**
 * What the deferred series of one metric share: those with updates not yet in their items, and
 * every one bound (a `clear` unbinds them all).
 */
interface Folds {
  waiting: Series[];
  bound: Series[];
}
const foldsOf = new WeakMap<MoleculerMetric, Folds>();

/** Moleculer's methods that read a metric's items or change them: each folds the waiting updates first. */
const FOLD_FIRST = [
  "snapshot",
  "get",
  "increment",
  "decrement",
  "set",
  "observe",
  "reset",
  "resetAll",
  "clear",
] as const;

/**
 * The metric's folds, its methods wrapped the first time: whoever reads the metric (a scrape, the
 * `$node.metrics` action, `get`) or updates it through Moleculer sees every update made before.
 */
function foldsFor(metric: MoleculerMetric): Folds {
  const folds = foldsOf.get(metric);
  if (folds) return folds;
  const made: Folds = { waiting: [], bound: [] };
  foldsOf.set(metric, made);
  const methods = metric as unknown as Record<string, unknown>;
  for (const name of FOLD_FIRST) {
    const original = methods[name];
    if (typeof original !== "function") continue;
    methods[name] = function foldFirst(this: unknown, ...args: unknown[]) {
      foldWaiting(metric, made);
      const answer = (original as (...a: unknown[]) => unknown).apply(this, args);
      // A new map of items: every series binds again (through Moleculer) on its next update.
      if (name === "clear") for (const series of made.bound.splice(0)) series.unbind();
      return answer;
    };
  }
  return made;
}

function foldWaiting(metric: MoleculerMetric, folds: Folds): void {
  if (folds.waiting.length === 0) return;
  const waiting = folds.waiting;
  folds.waiting = [];
  let changed = false;
  for (const series of waiting) {
    series.listed = false;
    if (series.fold()) changed = true;
  }
  // As Moleculer's `changed` marks it: the next snapshot is made afresh.
  if (changed) {
    metric.setDirty();
    metric.registry.dirty = true;
  }
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
  private readonly bounds: number[];
  /** Bound with the item: reporters are made when the registry starts, before any update. */
  private notify: (value: unknown, labels: Labels | undefined) => void = () => {};

  /**
   * Deferred: bound, plain, and no reporter follows changes. Its updates then wait here and are
   * put into the item when Moleculer reads or updates the metric (`foldsFor`): an update is a few
   * sums on this object, with no item, metric or registry touched and no bucket walked.
   */
  private deferred = false;
  private folds: Folds | undefined;
  /** In its metric's waiting list (until that list is folded; folding one series alone leaves it). */
  listed = false;
  /** Counter or gauge: added since the last fold, after `setTo` when `hasSet`. */
  private delta = 0;
  private hasSet = false;
  private setTo = 0;
  /** Histogram: observations since the last fold, the last one, and each one's bucket (the first
   * bound it is at most; index `bounds.length` for above them all). Not cumulative until folded. */
  private observed = 0;
  private last = 0;
  private readonly inBucket: Float64Array;
  /** The (coarse) time of the last update, the item's stamp when folded. */
  private stamp = 0;

  constructor(
    readonly metric: MoleculerMetric,
    readonly labels: Labels | undefined,
  ) {
    this.plain = !metric.rate && !metric.quantiles;
    this.bounds = metric.buckets ?? [];
    this.bucketKeys = this.bounds.map(String);
    this.inBucket = new Float64Array(metric.type === "histogram" ? this.bounds.length + 1 : 0);
  }

  private bound(): Item | undefined {
    return this.plain && this.from === this.metric.values ? this.item : undefined;
  }

  private keep(item: Item): void {
    this.item = item;
    this.from = this.metric.values;
    this.notify = notifierOf(this.metric);
    if (this.plain && !this.deferred && changesIgnored(this.metric)) {
      this.folds = foldsFor(this.metric);
      this.folds.bound.push(this);
      this.deferred = true;
    }
  }

  /** After the metric's `clear`: the item is gone; the next update goes through Moleculer. */
  unbind(): void {
    this.item = undefined;
    this.from = undefined;
    this.deferred = false;
  }

  private wait(): void {
    this.stamp = now();
    if (this.listed) return;
    this.listed = true;
    this.folds!.waiting.push(this);
  }

  /** The waiting updates put into the item, in Moleculer's terms; whether it changed. */
  fold(): boolean {
    const item = this.item!;
    let changed = false;
    if (this.hasSet) {
      item.value = this.setTo;
      this.hasSet = false;
      changed = true;
    }
    if (this.delta !== 0) {
      item.value += this.delta;
      this.delta = 0;
      changed = true;
    }
    if (this.observed !== 0) {
      item.count += this.observed;
      item.lastValue = this.last;
      this.observed = 0;
      if (item.bucketValues && this.bounds.length > 0) {
        const counts = this.countsFor(item);
        // Cumulative, as Moleculer counts: a value is in every bucket from the first bound >= it.
        let running = 0;
        for (let i = 0; i < counts.length; i++) {
          running += this.inBucket[i];
          counts[i] += running;
        }
      }
      this.inBucket.fill(0);
      changed = true;
    }
    if (changed) item.timestamp = this.stamp;
    return changed;
  }

  private countsFor(item: Item): Float64Array {
    if (item.bucketValues !== this.countsOf) {
      this.counts = countsOf(item, this.bounds, this.bucketKeys);
      this.countsOf = item.bucketValues;
    }
    return this.counts!;
  }

  /** Counter or gauge: adds `by` (negative for a gauge going down). */
  add(by = 1): void {
    // Whole steps to a whole value only: then their sum is exact, and adding it at the fold is
    // adding them one by one (0.3 + 1 - 1 is not 0.3 + 0 in floating point).
    if (this.deferred && (by | 0) === by && Number.isInteger(this.hasSet ? this.setTo : this.item!.value)) {
      if (by === 0) return;
      this.delta += by;
      return this.wait();
    }
    // This series' waiting updates first, in order (the item's are Moleculer's terms).
    if (this.listed) this.fold();
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
    if (this.deferred) {
      // Moleculer's `set` leaves an unchanged item alone: compared with the value folding would give.
      if ((this.hasSet ? this.setTo : this.item!.value) + this.delta == value) return;
      this.hasSet = true;
      this.setTo = value;
      this.delta = 0;
      return this.wait();
    }
    const item = this.bound();
    if (!item) return this.keep(this.metric.set(value, this.labels));
    if (item.value == value) return;
    item.value = value;
    item.timestamp = now();
    this.notify(value, this.labels);
  }

  /** Histogram: records one value. */
  observe(value: number): void {
    if (this.deferred) {
      // The sum in the item at once, in order: a float sum depends on the order of its terms.
      this.item!.sum += value;
      this.observed++;
      this.last = value;
      const bounds = this.bounds;
      let i = 0;
      while (i < bounds.length && !(value <= bounds[i])) i++;
      if (i < this.inBucket.length) this.inBucket[i]++;
      return this.wait();
    }
    const item = this.bound();
    if (!item) return this.keep(this.metric.observe(value, this.labels));
    item.timestamp = now();
    item.sum += value;
    item.count++;
    item.lastValue = value;
    const bounds = this.bounds;
    if (item.bucketValues && bounds.length > 0) {
      const counts = this.countsFor(item);
      // Buckets are cumulative and sorted: every bound from the first one >= value counts it.
      let i = 0;
      while (i < bounds.length && !(value <= bounds[i])) i++;
      for (; i < bounds.length; i++) counts[i] += 1;
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
