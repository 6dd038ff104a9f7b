/**
 * GET /metrics on the metrics port after a known sequence of requests and a job: the gateway's
 * per-route counts, Moleculer's per-action counts and errors, jobs and tasks by status, store
 * operations, the bus gauge and process metrics, in Prometheus text.
 */
import { auto, chain, createWorkflow, taskService, waitForJob } from "../support/engine-fixtures";
import { metricsUrl, sample } from "../support/metrics";
import { client, usePlatform } from "../support/platform";

const env = usePlatform();

beforeAll(async () => {
  env.platform.broker.createService(taskService("metricstest").schema);
});

test("the scrape counts what was done, by route, action, status and collection", async () => {
  for (let i = 0; i < 3; i++)
    expect((await env.admin.get("/user-management/accounts?limit=1")).status).toBe(200);
  expect((await env.admin.get("/no/such/route")).status).toBe(404);
  expect((await client(env.platform.baseUrl, "wrong-token").get("/whoami")).status).toBe(401);
  await createWorkflow(
    env.admin,
    env.platform.broker,
    chain("metrics-flow", [["t1", auto("metricstest", "echo", { value: 1 })]]),
  );
  const started = await env.admin.post("/operations-manager/jobs/start", {
    workflow: "metrics-flow",
    options: {},
  });
  expect(started.status).toBe(200);
  expect((await waitForJob(env.platform.broker, started.body._id)).status).toBe("complete");

  const scrape = await fetch(metricsUrl(env.platform.broker));
  expect(scrape.status).toBe(200);
  expect(scrape.headers.get("content-type")).toContain("text/plain");
  const text = await scrape.text();

  const http = "platform_http_requests_total";
  expect(sample(text, http, { method: "GET", route: "/user-management/accounts", status: "200" })).toBe(3);
  expect(sample(text, http, { route: "unmatched", status: "404" })).toBe(1);
  expect(sample(text, http, { route: "/whoami", status: "401" })).toBe(1);
  expect(
    sample(text, "platform_http_request_time_bucket", { route: "/user-management/accounts", le: "+Inf" }),
  ).toBe(3);
  // Every request above was answered: none is counted in flight any more.
  expect(sample(text, "platform_http_requests_active")).toBe(0);
  expect(text).toMatch(/^platform_http_requests_active\{/m);
  expect(sample(text, "moleculer_request_total", { action: "accounts.list" })).toBe(3);
  expect(
    sample(text, "moleculer_request_error_total", { action: "accounts.authenticate" }),
  ).toBeGreaterThanOrEqual(1);
  expect(sample(text, "platform_jobs_total", { status: "running" })).toBe(1);
  expect(sample(text, "platform_jobs_total", { status: "complete" })).toBe(1);
  expect(sample(text, "platform_tasks_total", { status: "complete" })).toBeGreaterThanOrEqual(1);
  expect(
    sample(text, "platform_store_operation_time_bucket", { collection: "jobs", le: "+Inf" }),
  ).toBeGreaterThan(0);
  expect(sample(text, "platform_bus_connected")).toBe(1);
  // Labels name routes, never a token or an id from a URL.
  expect(text).not.toContain("wrong-token");
});

test("Node process metrics are there once Moleculer has collected them (every 5 s)", async () => {
  const until = Date.now() + 8000;
  let text = "";
  while (Date.now() < until && !/^process_memory_heap_size_used\{/m.test(text)) {
    await new Promise((r) => setTimeout(r, 250));
    text = await (await fetch(metricsUrl(env.platform.broker))).text();
  }
  expect(sample(text, "process_memory_heap_size_used")).toBeGreaterThan(0);
});

test("the metrics port also answers /health and /ready for probes of processes without the gateway", async () => {
  const base = metricsUrl(env.platform.broker).replace(/\/metrics$/, "");
  expect((await fetch(`${base}/health`)).status).toBe(200);
  const ready = await fetch(`${base}/ready`);
  expect(ready.status).toBe(200);
  expect(await ready.json()).toEqual({ status: "ready", checks: { broker: "ok", store: "ok" } });
  expect((await fetch(`${base}/other`)).status).toBe(404);
});

test("event-loop lag is exported in seconds: a loop held 200 ms shows as such", async () => {
  const busyUntil = performance.now() + 200;
  while (performance.now() < busyUntil); // holds this process's event loop, the platform's too
  await new Promise((r) => setTimeout(r, 30));
  const text = await (await fetch(metricsUrl(env.platform.broker))).text();
  expect(text).toMatch(/^# TYPE nodejs_eventloop_lag gauge$/m);
  const max = sample(text, "nodejs_eventloop_lag", { quantile: "1" });
  const p99 = sample(text, "nodejs_eventloop_lag", { quantile: "0.99" });
  const p50 = sample(text, "nodejs_eventloop_lag", { quantile: "0.5" });
  expect(max).toBeGreaterThanOrEqual(0.15);
  expect(max).toBeLessThan(60); // seconds, not nanoseconds or milliseconds
  expect(p99).toBeGreaterThan(0);
  expect(p50).toBeGreaterThan(0);
  expect(p50).toBeLessThanOrEqual(p99);
  expect(p99).toBeLessThanOrEqual(max);
});
