/**
 * The platform's replacements for Moleculer's internal Metrics and Tracing middlewares
 * (shared/observability/internal-middlewares.ts): the chain keeps Moleculer's order, and the
 * per-action metrics through pre-bound series give the /metrics text Moleculer's own middleware
 * gives for the same calls (local, nested, from another service, failing, remote callers aside).
 */
import { Errors, ServiceBroker, type BrokerOptions, type ServiceSchema } from "moleculer";
import { brokerOptions } from "../../app/broker-options";
import { loadConfig } from "../../shared/config";
import {
  MOLECULER_INTERNAL_MIDDLEWARES,
  withInternalMiddlewares,
} from "../../shared/observability/internal-middlewares";
import { registerPlatformMetrics } from "../../shared/observability/metrics";

const SERVICES: ServiceSchema[] = [
  {
    name: "inner",
    actions: {
      echo: (ctx) => ctx.params,
      fail: () => {
        throw new Errors.MoleculerClientError("nope", 409, "CONFLICT");
      },
    },
  },
  {
    name: "outer",
    version: 2,
    actions: {
      twice: async (ctx) => [await ctx.call("inner.echo", { a: 1 }), await ctx.call("inner.echo", { a: 2 })],
      failing: (ctx) => ctx.call("inner.fail"),
    },
  },
];

async function started(options: BrokerOptions): Promise<ServiceBroker> {
  const broker = new ServiceBroker({
    nodeID: "metrics-node",
    logger: false,
    metrics: { enabled: true, reporter: [{ type: "Prometheus", options: { port: 0 } }] },
    ...options,
  });
  registerPlatformMetrics(broker);
  for (const schema of SERVICES) broker.createService(schema);
  await broker.start();
  return broker;
}

async function calls(broker: ServiceBroker): Promise<void> {
  for (let i = 0; i < 3; i++) await broker.call("inner.echo", { i });
  await broker.call("v2.outer.twice");
  await broker.call("v2.outer.twice");
  await expect(broker.call("inner.fail")).rejects.toThrow("nope");
  await expect(broker.call("v2.outer.failing")).rejects.toThrow("nope");
}

/**
 * The scrape's lines of the metrics named `<family>...`, but for the latency values of `latency`
 * (the sums and buckets vary by run; the +Inf bucket, a count, stays).
 */
async function scrapeLines(broker: ServiceBroker, family: string, latency: string): Promise<string[]> {
  const reporter = (broker.metrics as any).reporter[0];
  const text = await (await fetch(`http://127.0.0.1:${reporter.server.address().port}/metrics`)).text();
  const varying = new RegExp(`^${latency}_(sum|bucket\\{(?!.*le="\\+Inf"))`);
  return text
    .split("\n")
    .filter((l) => l.replace(/^# (HELP|TYPE) /, "").startsWith(family))
    .filter((l) => !varying.test(l))
    .sort();
}

/** The per-action lines of the scrape. */
const requestMetrics = (broker: ServiceBroker) =>
  scrapeLines(broker, "moleculer_request_", "moleculer_request_time");

test("pre-bound action metrics give the /metrics text of Moleculer's own middleware", async () => {
  const stock = await started({});
  const ours = await started({ internalMiddlewares: false, middlewares: withInternalMiddlewares([]) });
  try {
    await calls(stock);
    await calls(ours);
    const expected = await requestMetrics(stock);
    // The sequence reaches every kind of line: callers, levels, errors, counts.
    expect(expected.join("\n")).toMatch(
      /moleculer_request_total\{.*action="inner.echo".*caller="v2.outer".*\} 4/,
    );
    expect(expected.join("\n")).toMatch(/moleculer_request_levels\{.*level="2".*\} 5/);
    expect(expected.join("\n")).toMatch(/moleculer_request_error_total\{.*errorCode="409".*\}/);
    expect(expected.join("\n")).toMatch(/moleculer_request_active\{.*action="v2.outer.twice".*\} 0/);
    expect(await requestMetrics(ours)).toEqual(expected);
  } finally {
    await stock.stop();
    await ours.stop();
  }
});

/** Services with event handlers: a grouped one, a failing one, one on a pattern, one emitting. */
const EVENT_SERVICES: ServiceSchema[] = [
  {
    name: "listener",
    events: {
      "job.changed": () => undefined,
      "job.*": { group: "watchers", handler: () => undefined },
      "job.failed": () => {
        throw new Error("handler failed");
      },
      // More names than a hook keeps bound (event-metrics.ts MAX_BOUND_SERIES): the rest go Moleculer's way.
      "bulk.*": () => undefined,
    },
  },
  {
    name: "sender",
    actions: { relay: (ctx) => ctx.emit("job.changed", { via: "relay" }) },
  },
];

async function withEvents(options: BrokerOptions): Promise<ServiceBroker> {
  const broker = await started(options);
  for (const schema of EVENT_SERVICES) broker.createService(schema);
  await broker.waitForServices(["listener", "sender"]);
  return broker;
}

async function events(broker: ServiceBroker): Promise<void> {
  for (let i = 0; i < 3; i++) await broker.emit("job.changed", { i });
  await broker.broadcast("job.changed", { b: 1 });
  await broker.broadcastLocal("job.started", {});
  await broker.call("sender.relay");
  await broker.emit("job.failed", {}).catch(() => undefined);
  await broker.broadcast("job.failed", {}).catch(() => undefined);
  for (let i = 0; i < 1_010; i++) await broker.emit(`bulk.${i}`, {});
  await broker.emit("bulk.1009", {});
  await new Promise((resolve) => setImmediate(resolve));
}

/** The per-event lines of the scrape. */
const eventMetrics = (broker: ServiceBroker) =>
  scrapeLines(broker, "moleculer_event_", "moleculer_event_received_time");

test("pre-bound event metrics give the /metrics text of Moleculer's own middleware", async () => {
  const stock = await withEvents({});
  const ours = await withEvents({ internalMiddlewares: false, middlewares: withInternalMiddlewares([]) });
  try {
    await events(stock);
    await events(ours);
    const expected = await eventMetrics(stock);
    const all = expected.join("\n");
    // The sequence reaches every kind of line: sent by kind, received by group and caller, errors.
    expect(all).toMatch(/moleculer_event_emit_total\{.*event="job.changed".*\} 4/);
    expect(all).toMatch(/moleculer_event_broadcast_total\{.*event="job.failed".*\} 1/);
    expect(all).toMatch(/moleculer_event_broadcast_local_total\{.*event="job.started".*\} 1/);
    expect(all).toMatch(/moleculer_event_received_total\{.*caller="sender".*\} 1/);
    expect(all).toMatch(/moleculer_event_received_total\{.*group="watchers".*event="job.started".*\} 1/);
    expect(all).toMatch(/moleculer_event_received_error_total\{.*event="job.failed".*\} 2/);
    expect(all).toMatch(/moleculer_event_received_active\{.*event="job.changed".*\} 0/);
    expect(all).toMatch(/moleculer_event_emit_total\{.*event="bulk.1009".*\} 2/);
    expect(all).toMatch(/moleculer_event_received_total\{.*event="bulk.1009".*\} 2/);
    expect(all).toMatch(/moleculer_event_received_active\{.*event="bulk.1009".*\} 0/);
    expect(all).toMatch(/moleculer_event_received_time_bucket\{.*event="job.changed".*le="\+Inf"\} 4/);
    expect(await eventMetrics(ours)).toEqual(expected);

    // And the platform's hooks are the ones in the chain: a known event sent and received again
    // updates its bound series, asking Moleculer's registry nothing (Moleculer's own hooks do).
    const eventUpdates = async (broker: ServiceBroker) => {
      const registry = broker.metrics as unknown as Record<string, (name: string) => unknown>;
      const spies = ["increment", "decrement", "timer"].map((m) => jest.spyOn(registry, m));
      try {
        await broker.emit("job.changed", { again: true });
        await new Promise((resolve) => setImmediate(resolve));
        return spies
          .flatMap((s) => s.mock.calls.map(([name]) => name))
          .filter((n) => /event/.test(String(n)));
      } finally {
        for (const s of spies) s.mockRestore();
      }
    };
    expect(await eventUpdates(stock)).not.toEqual([]);
    expect(await eventUpdates(ours)).toEqual([]);
  } finally {
    await stock.stop();
    await ours.stop();
  }
});

test("the platform's broker has Moleculer's internal middlewares, in Moleculer's order, after its own", () => {
  const names = (b: ServiceBroker) => ((b as any).middlewares.list as { name?: string }[]).map((m) => m.name);
  const stock = new ServiceBroker({ logger: false });
  const config = loadConfig({ DATA_DIR: "/nonexistent", LOG_LEVEL: "warn", METRICS_PORT: "off" });
  const platform = new ServiceBroker({ ...brokerOptions(config), logger: false });
  // Moleculer leaves out what is not configured (no cacher here): a subsequence of the full list.
  expect(names(stock)).toEqual(MOLECULER_INTERNAL_MIDDLEWARES.filter((n) => names(stock).includes(n)));
  expect(names(stock)).toEqual(expect.arrayContaining(["Tracing", "Metrics"]));
  expect(names(platform).slice(-names(stock).length)).toEqual(names(stock));
});
