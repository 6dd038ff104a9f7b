/**
 * The gateway's per-request metrics (platform.http.requests.total, .request.time, .requests.active)
 * with their series bound once per route (docs/operations-guide.md#cost).
 *
 * Going through `count`/`observe`/`gauge` (./metrics.ts) a request built two label objects and
 * walked a map per label for each of its three updates, and read a BigInt clock twice. Here a
 * request finds its route's series with two map lookups (method, then route: the alias's path,
 * a bounded set) and its status's with one more; the clock is `performance.now()`. Same metrics,
 * same labels, same values: the series are made by `seriesOf`, exactly as before.
 */
import type { ServiceBroker } from "moleculer";
import { PLATFORM_METRICS } from "./metrics";
import { metricOf, seriesOf, type MoleculerMetric, type Series } from "./series";

interface RouteSeries {
  time: Series;
  /** By status code: a handful per route. */
  byStatus: Map<number, Series>;
}

export class HttpMetrics {
  private inFlight = 0;
  private readonly active: Series;
  private readonly routes = new Map<string, Map<string, RouteSeries>>();

  private constructor(
    private readonly requests: MoleculerMetric,
    private readonly time: MoleculerMetric,
    active: MoleculerMetric,
  ) {
    this.active = seriesOf(active, undefined);
  }

  /** The broker's HTTP metrics, or null when metrics are off (nothing to measure). */
  static of(broker: ServiceBroker): HttpMetrics | null {
    const requests = metricOf(broker, PLATFORM_METRICS.httpRequests.name);
    const time = metricOf(broker, PLATFORM_METRICS.httpTime.name);
    const active = metricOf(broker, PLATFORM_METRICS.httpActive.name);
    return requests && time && active ? new HttpMetrics(requests, time, active) : null;
  }

  /** A request arrived: one more in flight. */
  started(): void {
    this.active.set(++this.inFlight);
  }

  /** A request was answered (or its connection closed): counted and timed by route and status. */
  finished(method: string, route: string, status: number, ms: number): void {
    this.active.set(--this.inFlight);
    const r = this.routeSeries(method, route);
    let total = r.byStatus.get(status);
    if (total === undefined)
      r.byStatus.set(status, (total = seriesOf(this.requests, { method, route, status })));
    total.add(1);
    r.time.observe(ms);
  }

  private routeSeries(method: string, route: string): RouteSeries {
    let byRoute = this.routes.get(method);
    if (byRoute === undefined) this.routes.set(method, (byRoute = new Map()));
    let r = byRoute.get(route);
    if (r === undefined)
      byRoute.set(route, (r = { time: seriesOf(this.time, { method, route }), byStatus: new Map() }));
    return r;
  }
}
