/**
 * Pre-bound series (shared/observability/series.ts) against Moleculer's registry: the same
 * sequence of updates, one broker through `broker.metrics.increment/set/observe`, the other through
 * `seriesOf`, gives the same /metrics text (Prometheus reporter, same node id).
 */
import { MetricReporters, ServiceBroker } from "moleculer";
import { seriesOf, type MoleculerMetric } from "../../shared/observability/series";

const BUCKETS = [1, 2.5, 5, 10, 25];

function broker(): ServiceBroker {
  const b = new ServiceBroker({
    nodeID: "series-node",
    logger: false,
    metrics: { enabled: true, reporter: [{ type: "Prometheus", options: { port: 0 } }] },
  });
  b.metrics.register({
    type: "counter",
    name: "test.requests.total",
    labelNames: ["route", "status"],
  } as any);
  b.metrics.register({ type: "gauge", name: "test.active" } as any);
  b.metrics.register({ type: "gauge", name: "test.up", labelNames: ["adapter"] } as any);
  b.metrics.register({
    type: "histogram",
    name: "test.time",
    labelNames: ["route"],
    buckets: BUCKETS,
    unit: "millisecond",
  } as any);
  return b;
}

type Update =
  | ["inc", string, Record<string, string | number> | undefined, number]
  | ["set", string, Record<string, string | number> | undefined, number]
  | ["obs", string, Record<string, string | number> | undefined, number];

const SEQUENCE: Update[] = [
  ["inc", "test.requests.total", { route: "/a", status: 200 }, 1],
  ["inc", "test.requests.total", { route: "/a", status: 200 }, 1],
  ["inc", "test.requests.total", { route: "/a", status: 404 }, 1],
  // A string and a number of the same digits are different series for Moleculer too.
  ["inc", "test.requests.total", { route: "/a", status: "200" }, 1],
  ["inc", "test.requests.total", { route: "/b", status: 200, extra: "ignored" }, 3],
  ["inc", "test.requests.total", { route: "/b", status: 200 }, 0],
  ["set", "test.active", undefined, 1],
  ["inc", "test.active", undefined, 1],
  ["inc", "test.active", undefined, -1],
  ["set", "test.active", undefined, 1],
  ["set", "test.up", { adapter: "nso" }, 1],
  ["set", "test.up", { adapter: "nso" }, 0],
  ["set", "test.up", { adapter: "ansible" }, 1],
  // On a bound, between bounds, below the first, above the last, zero, negative, fractional.
  ...[1, 2.5, 3, 0.2, 10, 26, 0, -1, 4.99, 25, 1000, 2.5000001].map((v): Update => [
    "obs",
    "test.time",
    { route: v > 5 ? "/slow" : "/fast" },
    v,
  ]),
];

async function scrape(b: ServiceBroker): Promise<string> {
  const reporter = (b.metrics as any).reporter[0];
  const text = await (await fetch(`http://127.0.0.1:${reporter.server.address().port}/metrics`)).text();
  return text
    .split("\n")
    .filter((line) => /^(# (HELP|TYPE) )?test_/.test(line))
    .join("\n");
}

let viaRegistry: ServiceBroker;
let viaSeries: ServiceBroker;
beforeEach(async () => {
  viaRegistry = broker();
  viaSeries = broker();
  await viaRegistry.start();
  await viaSeries.start();
});
afterEach(async () => {
  await viaRegistry.stop();
  await viaSeries.stop();
});

function applyViaRegistry(b: ServiceBroker, [op, name, labels, value]: Update): void {
  if (op === "inc") b.metrics.increment(name, labels, value);
  else if (op === "set") b.metrics.set(name, value, labels);
  else b.metrics.observe(name, value, labels);
}

function applyViaSeries(b: ServiceBroker, [op, name, labels, value]: Update): void {
  const series = seriesOf(b.metrics.getMetric(name) as unknown as MoleculerMetric, labels);
  if (op === "inc") series.add(value);
  else if (op === "set") series.set(value);
  else series.observe(value);
}

test("pre-bound series give the same /metrics text as Moleculer's registry", async () => {
  for (const update of SEQUENCE) {
    applyViaRegistry(viaRegistry, update);
    applyViaSeries(viaSeries, update);
  }
  const expected = await scrape(viaRegistry);
  expect(expected).toContain('route="/fast",le="2.5"} 5');
  expect(await scrape(viaSeries)).toBe(expected);
});

test("a series updates its item in place after the first update, and binds again after a clear", async () => {
  const metric = viaSeries.metrics.getMetric("test.requests.total") as unknown as MoleculerMetric;
  const series = seriesOf(metric, { route: "/c", status: 200 });
  series.add();
  const item = metric.values.get('"/c"|200')!;
  series.add(2);
  expect(metric.values.get('"/c"|200')).toBe(item);
  expect(item.value).toBe(3);
  // The same labels find the same series (no new object per update).
  expect(seriesOf(metric, { route: "/c", status: 200 })).toBe(series);
  (metric as any).clear();
  series.add();
  expect(metric.values.get('"/c"|200')!.value).toBe(1);
});

test("an update between two scrapes shows in the second (the metric is marked changed)", async () => {
  const metric = viaSeries.metrics.getMetric("test.requests.total") as unknown as MoleculerMetric;
  const series = seriesOf(metric, { route: "/d", status: 200 });
  series.add();
  expect(await scrape(viaSeries)).toContain('route="/d",status="200"} 1');
  series.add(4);
  expect(await scrape(viaSeries)).toContain('route="/d",status="200"} 5');
  const time = seriesOf(viaSeries.metrics.getMetric("test.time") as unknown as MoleculerMetric, {
    route: "/d",
  });
  time.observe(3);
  expect(await scrape(viaSeries)).toContain(
    'test_time_bucket{namespace="",nodeID="series-node",route="/d",le="+Inf"} 1',
  );
  time.observe(30);
  expect(await scrape(viaSeries)).toContain(
    'test_time_bucket{namespace="",nodeID="series-node",route="/d",le="+Inf"} 2',
  );
});

test("a reporter that follows changes gets every bound update, as from Moleculer's registry", async () => {
  const seen: [string, unknown, unknown][] = [];
  class Following extends MetricReporters.Base {
    override metricChanged(metric: { name: string }, value: unknown, labels: unknown): void {
      seen.push([metric.name, value, labels]);
    }
  }
  const b = new ServiceBroker({
    nodeID: "following-node",
    logger: false,
    metrics: { enabled: true, reporter: [new Following({}) as never] },
  });
  b.metrics.register({ type: "counter", name: "test.follow", labelNames: ["route"] } as any);
  await b.start();
  try {
    const series = seriesOf(b.metrics.getMetric("test.follow") as unknown as MoleculerMetric, {
      route: "/e",
    });
    series.add(); // first update: through Moleculer
    series.add(2); // bound: in place
    expect(seen.filter(([name]) => name === "test.follow")).toEqual([
      ["test.follow", 1, { route: "/e" }],
      ["test.follow", 3, { route: "/e" }],
    ]);
  } finally {
    await b.stop();
  }
});
