/**
 * What metrics and tracing cost: `npm run bench:observability` (docs/operations-guide.md#cost).
 *
 * The gateway read of `bench:gateway` (GET /user-management/accounts?limit=10, authenticated, the
 * whole platform on one broker in this process) in four set-ups, interleaved in each round, same load:
 *   off      METRICS_PORT=off, no tracing (bench:gateway's "ours")
 *   metrics  metrics on (Prometheus reporter on a free port, scraped once a second as Prometheus
 *            would, by another process: bench/support/scraper-node.ts), no tracing
 *   sampled  as `on` with TRACE_SAMPLE_RATE=0.1
 *   on       metrics on and tracing on, every request sampled, exported over OTLP/HTTP to a local
 *            receiver in another process (bench/support/otlp-sink-node.ts)
 * The scraper and the receiver stand in for Prometheus and a collector: their CPU is not counted
 * as the server's (the server's work to answer them is); nor is nats-server's (no bus here: what it
 * spends is other programs' on a shared machine).
 * Each judged by its best round (by req/s); the figure is the cost: server CPU per request against
 * `off`. Aims: metrics <= +5%, metrics + 10% traced <= +10%. Table on stdout, JSON in
 * bench/results/observability.json (observability-partial.json with BENCH_ONLY).
 *
 * Env: BENCH_DURATION (s, 10), BENCH_WARMUP (s, 2), BENCH_CONNECTIONS (32), BENCH_ROUNDS (3),
 * BENCH_ACCOUNTS (50), BENCH_QUIET_WAIT (s, 20), BENCH_ONLY (scenarios to run, e.g. `metrics` to
 * profile one with `node --cpu-prof`; the cost lines need `off`).
 */
import fs from "node:fs";
import path from "node:path";
import type { ServiceBroker } from "moleculer";
import { startTelemetry } from "../shared/telemetry";
import type { ChildProcess } from "node:child_process";
import { scratchSpace, spawnTracked, waitExit } from "./support/children";
import { runBench } from "./support/main";
import { serverPids } from "./support/cpu";
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
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(",")) : null;

function startSink(): Promise<{
  port: number;
  pid: number;
  stats(): Promise<{ exports: number; bytes: number }>;
}> {
  const child = spawnTracked(process.execPath, [path.join(__dirname, "support/otlp-sink-node.js")], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", (m: any) =>
      resolve({
        port: m.port,
        pid: child.pid!,
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

/** The OTLP receiver's pid: like the scraper, outside the platform (its CPU is not the server's). */
let sinkPid = 0;

async function scenario(env: Record<string, string>, scrape: boolean): Promise<LoadResult> {
  const broker: ServiceBroker = await startPlatform(env);
  let scraper: ChildProcess | undefined;
  try {
    const base = httpUrl(broker);
    const { token } = await seed(base, ACCOUNTS);
    if (scrape) {
      const port = (broker.metrics as any).reporter[0].server.address().port;
      scraper = spawnTracked(
        process.execPath,
        [path.join(__dirname, "support/scraper-node.js"), `http://127.0.0.1:${port}/metrics`],
        { stdio: ["ignore", "inherit", "inherit", "ipc"] },
      );
    }
    // The platform runs in this process without a bus: nats-server's CPU in the window is other
    // programs' (the bench machine is shared), not the server's.
    const nats = serverPids(["nats-server"]);
    return await measure(base + PAGE_PATH, { Authorization: `Bearer ${token}` }, settings, undefined, () => [
      sinkPid,
      ...nats,
      ...(scraper?.pid ? [scraper.pid] : []),
    ]);
  } finally {
    if (scraper) {
      scraper.kill();
      await waitExit(scraper, 5000);
    }
    await broker.stop();
  }
}

const best = (runs: LoadResult[]) => runs.reduce((a, b) => (b.reqPerSec > a.reqPerSec ? b : a));

type Scenario = "off" | "metrics" | "sampled" | "on";
const LABELS: Record<Scenario, string> = {
  off: "off",
  metrics: "metrics",
  sampled: "metrics + 10% traced",
  on: "metrics + every request traced",
};

async function main(): Promise<void> {
  const dataDir = scratchSpace("bench-observability-");
  const sink = await startSink();
  sinkPid = sink.pid;
  const endpoint = `http://127.0.0.1:${sink.port}`;
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint;
  const sdk = startTelemetry("bench-observability");
  const envs: Record<Scenario, () => Record<string, string>> = {
    off: () => platformEnv({ DATA_DIR: dataDir() }),
    metrics: () => platformEnv({ DATA_DIR: dataDir(), METRICS_PORT: "0" }),
    sampled: () =>
      platformEnv({
        DATA_DIR: dataDir(),
        METRICS_PORT: "0",
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        TRACE_SAMPLE_RATE: "0.1",
      }),
    on: () => platformEnv({ DATA_DIR: dataDir(), METRICS_PORT: "0", OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }),
  };
  const scenarios = (Object.keys(envs) as Scenario[]).filter((name) => !ONLY || ONLY.has(name));
  const runs: Partial<Record<Scenario, LoadResult[]>> = {};
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`round ${round}/${ROUNDS}`);
      for (const name of scenarios) (runs[name] ??= []).push(await scenario(envs[name](), name !== "off"));
    }
  } finally {
    await sdk.shutdown();
  }
  const stats = await sink.stats();
  const pct = (x: number) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)}%`;
  const bests = Object.fromEntries(scenarios.map((name) => [name, best(runs[name]!)])) as Partial<
    Record<Scenario, LoadResult>
  >;
  const off = bests.off;
  /** CPU per request against `off`, as a ratio - 1 (null without `off` or a CPU figure). */
  const cpuCost = (r: LoadResult) =>
    off?.serverCpuUsPerReq && r.serverCpuUsPerReq ? r.serverCpuUsPerReq / off.serverCpuUsPerReq - 1 : null;
  console.log(
    `\nbest of ${ROUNDS} rounds, ${settings.connections} connections, ${settings.durationS} s each`,
  );
  const costs: Partial<Record<Scenario, { cpu: number | null; reqPerSec: number | null }>> = {};
  for (const name of scenarios) {
    const r = bests[name]!;
    const cpu = name === "off" ? null : cpuCost(r);
    costs[name] = { cpu, reqPerSec: off && name !== "off" ? 1 - r.reqPerSec / off.reqPerSec : null };
    console.log(
      `${LABELS[name].padEnd(31)} ${String(Math.round(r.reqPerSec)).padStart(7)} req/s  p50 ${r.p50Ms} ms  p99 ${r.p99Ms} ms  CPU ${r.serverCpuUsPerReq ?? "?"} µs/req${cpu === null ? "" : `  cost ${pct(cpu)} CPU`}`,
    );
  }
  console.log("aims: metrics <= +5% CPU per request, metrics + 10% traced <= +10%");
  console.log(`the receiver got ${stats.exports} OTLP exports, ${stats.bytes} bytes`);
  const out = path.resolve(__dirname, "../../bench/results");
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(
    path.join(out, ONLY ? "observability-partial.json" : "observability.json"),
    JSON.stringify({ settings, rounds: ROUNDS, best: bests, costs, exports: stats, runs }, null, 2),
  );
}

runBench(main);
