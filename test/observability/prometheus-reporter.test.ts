/**
 * The Prometheus reporter with label text kept per series (shared/observability/prometheus-reporter.ts)
 * writes Moleculer's reporter's text to the byte: two brokers, the same updates, one scrape each
 * before and after more updates (the second scrape answered from kept label text).
 */
import { ServiceBroker } from "moleculer";
import { PrometheusReporter } from "../../shared/observability/prometheus-reporter";

function broker(reporter: unknown): ServiceBroker {
  const b = new ServiceBroker({
    nodeID: "prom-node",
    logger: false,
    metrics: { enabled: true, reporter: [reporter as never] },
  });
  b.metrics.register({ type: "counter", name: "t.requests.total", labelNames: ["route", "status"] } as any);
  b.metrics.register({ type: "gauge", name: "t.active" } as any);
  b.metrics.register({ type: "info", name: "t.version", labelNames: ["part"] } as any);
  b.metrics.register({
    type: "histogram",
    name: "t.time",
    labelNames: ["route"],
    buckets: [1, 2.5, 10],
    quantiles: [0.5, 0.99],
    unit: "millisecond",
  } as any);
  return b;
}

function update(b: ServiceBroker, round: number): void {
  b.metrics.increment("t.requests.total", { route: "/a", status: 200 }, round);
  b.metrics.increment("t.requests.total", { route: 'odd "quoted" \\ route', status: 500 });
  b.metrics.set("t.active", round);
  b.metrics.set("t.version", `v${round}`, { part: "core" });
  for (const v of [0.5, 2, 7, 40]) b.metrics.observe("t.time", v * round, { route: "/a" });
}

async function scrape(b: ServiceBroker): Promise<string> {
  const port = (b.metrics as any).reporter[0].server.address().port;
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return text
    .split("\n")
    .filter((line) => /^(# (HELP|TYPE) )?t_/.test(line))
    .join("\n");
}

test("the same text as Moleculer's Prometheus reporter, scrape after scrape", async () => {
  const moleculer = broker({ type: "Prometheus", options: { port: 0 } });
  const ours = broker(new PrometheusReporter({ port: 0 }));
  await moleculer.start();
  await ours.start();
  try {
    for (const round of [1, 2, 3]) {
      update(moleculer, round);
      update(ours, round);
      const expected = await scrape(moleculer);
      expect(expected).toContain(
        `t_version{namespace="",nodeID="prom-node",part="core",value="v${round}"} 1`,
      );
      expect(expected).toContain('route="odd \\"quoted\\" \\\\ route"');
      expect(expected).toContain('t_time_bucket{namespace="",nodeID="prom-node",route="/a",le="+Inf"}');
      expect(expected).toContain('t_time{namespace="",nodeID="prom-node",route="/a",quantile="0.99"}');
      expect(await scrape(ours)).toBe(expected);
    }
  } finally {
    await moleculer.stop();
    await ours.stop();
  }
});
