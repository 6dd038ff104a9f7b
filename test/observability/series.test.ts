/**
 * Pre-bound series (shared/observability/series.ts) against Moleculer's registry: the same
 * sequence of updates, one broker through `broker.metrics.increment/set/observe`, the other through
 * `seriesOf`, gives the same /metrics text (Prometheus reporter, same node id).
 */
import { MetricReporters, ServiceBroker } from "moleculer";
import { seriesOf, type MoleculerMetric } from "../../shared/observability/series";
import { seeded } from "../support/random-docs";

const BUCKETS = [1, 2.5, 5, 10, 25];

/** A reporter that follows changes: beside it, series update their items at once (no deferral). */
class Following extends MetricReporters.Base {
  override metricChanged(): void {}
}

function broker(following = false): ServiceBroker {
  const b = new ServiceBroker({
    nodeID: "series-node",
    logger: false,
    metrics: {
      enabled: true,
      reporter: [
        { type: "Prometheus", options: { port: 0 } },
        ...(following ? [new Following({}) as never] : []),
      ],
    },
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
  // Read through Moleculer (which folds the series' waiting updates in): the same item, updated.
  expect(metric.get({ route: "/c", status: 200 })).toBe(item);
  expect(item.value).toBe(3);
  // The same labels find the same series (no new object per update).
  expect(seriesOf(metric, { route: "/c", status: 200 })).toBe(series);
  (metric as any).clear();
  series.add();
  expect(metric.values.get('"/c"|200')!.value).toBe(1);
});

test("a bound update waits in its series until the metric is read (no item touched per update)", async () => {
  const metric = viaSeries.metrics.getMetric("test.time") as unknown as MoleculerMetric;
  const series = seriesOf(metric, { route: "/w" });
  series.observe(3); // the first update, through Moleculer: makes the item
  const item = metric.values.get('"/w"')!;
  series.observe(30);
  series.observe(0.5);
  // The raw map is not a read: count, last value and buckets wait (the sum is added in order).
  expect([item.count, item.lastValue, item.sum]).toEqual([1, 3, 33.5]);
  const read = metric.get({ route: "/w" })!;
  expect([read.count, read.lastValue, read.sum]).toEqual([3, 0.5, 33.5]);
  expect({ ...read.bucketValues }).toEqual({ "1": 1, "2.5": 1, "5": 2, "10": 2, "25": 2 });
});

/** Every metric's items as Moleculer lists them, without the update stamps (ours tick once a second). */
function listed(b: ServiceBroker): unknown {
  return (b.metrics.list({ includes: "test.**" }) as unknown as { values: { timestamp?: number }[] }[]).map(
    (metric) => ({ ...metric, values: metric.values.map(({ timestamp: _t, ...item }) => item) }),
  );
}

/**
 * 3,000 random steps on two brokers, one through Moleculer's registry only, the other through
 * series with a fifth of its updates through the registry; resets, clears and reads mixed in,
 * compared at every read and by the /metrics text at the end.
 */
async function mixedSteps(viaRegistry: ServiceBroker, viaSeries: ServiceBroker): Promise<void> {
  const next = seeded(26);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)];
  const ROUTES = ["/a", "/b"];
  const VALUES = [0, 0.2, 1, 2.5, 3, 4.99, 5, 7.25, 25, 26, -1, 1000];
  let reads = 0;
  for (let step = 0; step < 3000; step++) {
    const route = pick(ROUTES);
    const roll = next();
    let update: Update | null = null;
    if (roll < 0.25)
      update = ["inc", "test.requests.total", { route, status: pick([200, 404]) }, pick([1, 2, 0])];
    else if (roll < 0.4) update = ["inc", "test.active", undefined, pick([1, -1, 2, 0.1, -0.7])];
    else if (roll < 0.5) update = ["set", "test.active", undefined, pick([0, 1, 2, 0.3])];
    else if (roll < 0.55) update = ["set", "test.up", { adapter: pick(["nso", "ansible"]) }, pick([0, 1])];
    else if (roll < 0.8) update = ["obs", "test.time", { route }, pick(VALUES)];
    if (update) {
      applyViaRegistry(viaRegistry, update);
      // One update in five goes through Moleculer on the series' broker too.
      if (next() < 0.2) applyViaRegistry(viaSeries, update);
      else applyViaSeries(viaSeries, update);
      continue;
    }
    if (roll < 0.83) {
      const name = pick(["test.requests.total", "test.active", "test.time"]);
      const labels =
        name === "test.time" ? { route } : name === "test.active" ? undefined : { route, status: 200 };
      viaRegistry.metrics.reset(name, labels as never);
      viaSeries.metrics.reset(name, labels as never);
    } else if (roll < 0.85) {
      const name = pick(["test.requests.total", "test.time"]);
      viaRegistry.metrics.resetAll(name);
      viaSeries.metrics.resetAll(name);
    } else if (roll < 0.86) {
      const name = pick(["test.requests.total", "test.active", "test.time"]);
      (viaRegistry.metrics.getMetric(name) as any).clear();
      (viaSeries.metrics.getMetric(name) as any).clear();
    } else if (roll < 0.93) {
      reads++;
      expect(listed(viaSeries)).toEqual(listed(viaRegistry));
    } else {
      const get = (b: ServiceBroker) => {
        const metric = b.metrics.getMetric("test.time") as unknown as MoleculerMetric;
        const { timestamp: _t, ...item } = metric.get({ route }) ?? {};
        return item;
      };
      reads++;
      expect(get(viaSeries)).toEqual(get(viaRegistry));
    }
  }
  expect(reads).toBeGreaterThan(300);
  expect(listed(viaSeries)).toEqual(listed(viaRegistry));
  expect(await scrape(viaSeries)).toBe(await scrape(viaRegistry));
}

test("series updates mixed with Moleculer's own updates, resets, clears and reads: what Moleculer alone gives", () =>
  mixedSteps(viaRegistry, viaSeries));

test("the same beside a reporter that follows changes (each update in its item at once)", async () => {
  const [registryOnly, withSeries] = [broker(true), broker(true)];
  await registryOnly.start();
  await withSeries.start();
  try {
    await mixedSteps(registryOnly, withSeries);
  } finally {
    await registryOnly.stop();
    await withSeries.stop();
  }
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
