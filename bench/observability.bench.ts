/**
 * What metrics and tracing cost: `npm run bench:observability` (docs/operations-guide.md#cost).
 *
 * The gateway read of `bench:gateway` (GET /user-management/accounts?limit=10, authenticated, the
 * whole platform on one broker in this process) measured twice per round, interleaved, same load:
 *   off      METRICS_PORT=off, no tracing (bench:gateway's "ours")
 *   metrics  metrics on (scraped once a second), no tracing
 *   sampled  as `on` with TRACE_SAMPLE_RATE=0.1
 *   on       metrics on (Prometheus reporter on a free port, scraped once a second as Prometheus
 *         would) and tracing on, every request sampled, exported over OTLP/HTTP to a local
 *         receiver in another process
 * Each judged by its best round; the figure is the cost: 1 - on/off in req/s and in server CPU per
 * request. Aim: under 10% together. Table on stdout, JSON in bench/results/observability.json.
 *
 * Env: BENCH_DURATION (s, 10), BENCH_WARMUP (s, 2), BENCH_CONNECTIONS (32), BENCH_ROUNDS (3),
 * BENCH_ACCOUNTS (50), BENCH_QUIET_WAIT (s, 20).
 */
import fs from "node:fs";
import path from "node:path";
import type { ServiceBroker } from "moleculer";
import { startTelemetry } from "../shared/telemetry";
import { scratchSpace, spawnTracked, stopAllChildren } from "./support/children";
import { intEnv } from "./support/env";
import { measure, type LoadResult, type LoadSettings } from "./support/load";
import { PAGE_PATH, httpUrl, platformEnv, seed, startPlatform } from "./support/platform";

const settings: LoadSettings = {
  connections: intEnv("BENCH_CONNECTIONS", 32, 1),
  durationS: intEnv("BENCH_DURATION", 10, 1),
  warmupS: intEnv("BENCH_WARMUP", 2, 0),
  quietWaitS: intEnv("BENCH_QUIET_WAIT", 20, 0),
};
const ROUNDS = intEnv("BENCH_ROUNDS", 3, 1);
const ACCOUNTS = intEnv("BENCH_ACCOUNTS", 50, 10);

function startSink(): Promise<{ port: number; stats(): Promise<{ exports: number; bytes: number }> }> {
  const child = spawnTracked(process.execPath, [path.join(__dirname, "support/otlp-sink-node.js")], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", (m: any) =>
      resolve({
        port: m.port,
        stats: () =>
          new Promise((answer) => {
            child.once("message", (s: any) => answer(s));
            child.send("stats");
          }),
      }),
    );
    child.once("exit", (code) => reject(new Error(`otlp sink exited ${code}`)));
  });
}

async function scenario(env: Record<string, string>, scrape: boolean): Promise<LoadResult> {
  const broker: ServiceBroker = await startPlatform(env);
  let scraper: NodeJS.Timeout | undefined;
  try {
    const base = httpUrl(broker);
    const { token } = await seed(base, ACCOUNTS);
    if (scrape) {
      const port = (broker.metrics as any).reporter[0].server.address().port;
      scraper = setInterval(() => void fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text()), 1000);
    }
    return await measure(base + PAGE_PATH, { Authorization: `Bearer ${token}` }, settings);
  } finally {
    clearInterval(scraper);
    await broker.stop();
  }
}

const best = (runs: LoadResult[]) => runs.reduce((a, b) => (b.reqPerSec > a.reqPerSec ? b : a));

async function main(): Promise<void> {
  const dataDir = scratchSpace("bench-observability-");
  const sink = await startSink();
  const endpoint = `http://127.0.0.1:${sink.port}`;
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint;
  const sdk = startTelemetry("bench-observability");
  const runs: Record<"off" | "metrics" | "on" | "sampled", LoadResult[]> = {
    off: [],
    metrics: [],
    on: [],
    sampled: [],
  };
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`round ${round}/${ROUNDS}`);
      runs.off.push(await scenario(platformEnv({ DATA_DIR: dataDir() }), false));
      runs.metrics.push(await scenario(platformEnv({ DATA_DIR: dataDir(), METRICS_PORT: "0" }), true));
      runs.on.push(
        await scenario(
          platformEnv({ DATA_DIR: dataDir(), METRICS_PORT: "0", OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }),
          true,
        ),
      );
      runs.sampled.push(
        await scenario(
          platformEnv({
            DATA_DIR: dataDir(),
            METRICS_PORT: "0",
            OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
            TRACE_SAMPLE_RATE: "0.1",
          }),
          true,
        ),
      );
    }
  } finally {
    await sdk.shutdown();
  }
  const stats = await sink.stats();
  const off = best(runs.off);
  const on = best(runs.on);
  const metrics = best(runs.metrics);
  const sampled = best(runs.sampled);
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const costReq = 1 - on.reqPerSec / off.reqPerSec;
  const costCpu =
    off.serverCpuUsPerReq && on.serverCpuUsPerReq ? on.serverCpuUsPerReq / off.serverCpuUsPerReq - 1 : null;
  const row = (name: string, r: LoadResult) =>
    `${name.padEnd(7)} ${String(Math.round(r.reqPerSec)).padStart(7)} req/s  p50 ${r.p50Ms} ms  p99 ${r.p99Ms} ms  CPU ${r.serverCpuUsPerReq ?? "?"} µs/req`;
  console.log(
    `\nbest of ${ROUNDS} rounds, ${settings.connections} connections, ${settings.durationS} s each`,
  );
  console.log(row("off", off));
  console.log(row("metrics", metrics));
  console.log(row("on", on));
  console.log(row("sampled", sampled));
  const cpuCost = (r: LoadResult) =>
    off.serverCpuUsPerReq && r.serverCpuUsPerReq ? pct(r.serverCpuUsPerReq / off.serverCpuUsPerReq - 1) : "?";
  console.log(
    `cost of metrics alone: ${pct(1 - metrics.reqPerSec / off.reqPerSec)} of req/s, ${cpuCost(metrics)} CPU`,
  );
  console.log(
    `cost of metrics + 10% sampled tracing: ${pct(1 - sampled.reqPerSec / off.reqPerSec)} of req/s, ${cpuCost(sampled)} CPU`,
  );
  console.log(
    `cost of metrics + tracing: ${pct(costReq)} of req/s, ${costCpu === null ? "?" : pct(costCpu)} more CPU per request (aim < 10%)`,
  );
  console.log(`the receiver got ${stats.exports} OTLP exports, ${stats.bytes} bytes`);
  const out = path.resolve(__dirname, "../../bench/results");
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(
    path.join(out, "observability.json"),
    JSON.stringify(
      { settings, rounds: ROUNDS, off, metrics, on, costReq, costCpu, exports: stats, runs },
      null,
      2,
    ),
  );
  await stopAllChildren();
}

main().catch(async (err) => {
  console.error(err);
  await stopAllChildren();
  process.exit(1);
});
