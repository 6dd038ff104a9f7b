/**
 * What Moleculer counts of a call, for one label set, on pre-bound series (./series.ts): how many
 * began (a counter), how many are under way (a gauge) and how long each took (a histogram). The
 * action calls (./action-metrics.ts) and the events a handler receives (./event-metrics.ts) are
 * counted this way, each with its own three metrics.
 */
import { performance } from "node:perf_hooks";
import type { ServiceBroker } from "moleculer";
import { metricOf, Series, type Labels } from "./series";

/** The names of a call's three metrics: begun (total), under way (active), time. */
export interface CallMetricNames {
  total: string;
  active: string;
  time: string;
}

export class CallSeries {
  private readonly total: Series;
  private readonly active: Series;
  private readonly time: Series;

  /** Bound to the broker's metrics of these names (metrics must be on), for these labels. */
  constructor(broker: ServiceBroker, names: CallMetricNames, labels: Labels) {
    const of = (metric: string) => new Series(metricOf(broker, metric)!, labels);
    this.total = of(names.total);
    this.active = of(names.active);
    this.time = of(names.time);
  }

  /** A call begins: counted and under way. Answers its start, for `ended`. */
  began(): number {
    this.total.add(1);
    this.active.add(1);
    return performance.now();
  }

  /** The call begun at `start` has ended (answered or failed): its time kept, no longer under way. */
  ended(start: number): void {
    this.time.observe(performance.now() - start);
    this.active.add(-1);
  }
}
