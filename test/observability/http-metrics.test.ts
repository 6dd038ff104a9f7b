/**
 * The gateway's per-request metrics with their series bound per route
 * (shared/observability/http-metrics.ts): the same requests give the same /metrics text as the
 * platform's generic `count`/`observe`/`gauge` path they replace.
 */
import { ServiceBroker } from "moleculer";
import { HttpMetrics } from "../../shared/observability/http-metrics";
import {
  count,
  gauge,
  metricsOptions,
  observe,
  registerPlatformMetrics,
} from "../../shared/observability/metrics";

function broker(): ServiceBroker {
  const b = new ServiceBroker({ nodeID: "http-node", logger: false, metrics: metricsOptions(0) });
  registerPlatformMetrics(b);
  return b;
}

async function scrape(b: ServiceBroker): Promise<string> {
  const port = (b.metrics as any).reporter[0].server.address().port;
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return text
    .split("\n")
    .filter((line) => /^(# (HELP|TYPE) )?platform_http_/.test(line))
    .join("\n");
}

/** [method, route, status, ms], in the order they finish; two in flight at a time. */
const REQUESTS: [string, string, number, number][] = [
  ["GET", "/user-management/accounts", 200, 0.4],
  ["GET", "/user-management/accounts", 200, 3],
  ["GET", "/user-management/accounts", 401, 1],
  ["POST", "/user-management/accounts", 200, 12],
  ["GET", "unmatched", 404, 0.1],
  ["GET", "/whoami", 200, 2.5],
  ["GET", "/user-management/accounts", 200, 2600],
];

let a: ServiceBroker;
let b: ServiceBroker;
beforeEach(async () => {
  a = broker();
  b = broker();
  await a.start();
  await b.start();
});
afterEach(async () => {
  await a.stop();
  await b.stop();
});

test("bound HTTP series give the text the generic path gives, in flight included", async () => {
  let active = 0;
  const bound = HttpMetrics.of(b)!;
  gauge(a, "httpActive", ++active);
  bound.started();
  for (const [method, route, status, ms] of REQUESTS) {
    gauge(a, "httpActive", ++active);
    bound.started();
    gauge(a, "httpActive", --active);
    count(a, "httpRequests", { method, route, status });
    observe(a, "httpTime", ms, { method, route });
    bound.finished(method, route, status, ms);
  }
  const expected = await scrape(a);
  expect(expected).toContain(
    'platform_http_requests_total{namespace="",nodeID="http-node",method="GET",route="/user-management/accounts",status="200"} 3',
  );
  expect(expected).toContain('platform_http_requests_active{namespace="",nodeID="http-node"} 1');
  expect(await scrape(b)).toBe(expected);
});

test("no HTTP metrics without metrics", () => {
  expect(HttpMetrics.of(new ServiceBroker({ logger: false, metrics: metricsOptions(null) }))).toBeNull();
});
