/**
 * What metrics and tracing cost: `npm run bench:observability` (docs/operations-guide.md#cost).
 *
 * The gateway read of `bench:gateway` (GET /user-management/accounts?limit=10, authenticated, the
 * whole platform in one process) in four set-ups, interleaved in each round, same load:
 *   off      METRICS_PORT=off, no tracing (bench:gateway's "ours")
 *   metrics  metrics on (Prometheus reporter on a free port, scraped once a second as Prometheus
 *            would, by another process: bench/support/scraper-node.ts), no tracing
 *   sampled  as `on` with TRACE_SAMPLE_RATE=0.1
 *   on       metrics on and tracing on, every request sampled, exported over OTLP/HTTP to a local
 *            receiver in another process (bench/support/otlp-sink-node.ts)
 * Each set-up is a platform process of its own, started for its round as production starts one
 * (`node <PLATFORM_NODE_FLAGS> dist/app/main.js`, its env the set-up's), so it runs one mode for
 * its life. Until 2026-11-30 the four shared this process, their code, inline caches and heap, and
 * which ran before moved a figure more than the aims: metrics read +26 % after `off` in every round
 * of a run and +3 % after the traced set-up in another (docs/performance-rounds.md).
 * The scraper and the receiver stand in for Prometheus and a collector: their CPU is not counted
 * as the server's (the server's work to answer them is); nor is nats-server's (no bus here: what it
 * spends is other programs' on a shared machine).
 * Each judged by its best round (by req/s); the figure is the cost: server CPU per request against
 * `off`, and beside it the median of the rounds' paired ratios (each round's set-up against that
 * round's `off`). The order of the set-ups is reversed every other round. Aims: metrics <= +5%,
 * metrics + 10% traced <= +10%. Table on stdout, JSON in bench/results/observability.json
 * (observability-partial.json with BENCH_ONLY).
 *
 * Env: BENCH_DURATION (s, 10), BENCH_WARMUP (s, 5: a fresh process's compilers settle),
 * BENCH_CONNECTIONS (32), BENCH_ROUNDS (3), BENCH_ACCOUNTS (50), BENCH_QUIET_WAIT (s, 20),
 * BENCH_ONLY (scenarios to run; the cost lines need `off`), BENCH_PROFILE_DIR (the platform
 * processes write CPU profiles there).
 */
import fs from "node:fs";
import path from "node:path";
import type { ChildProcess } from "node:child_process";
import { scratchSpace, spawnTracked, stopChild, waitExit } from "./support/children";
import { startSink } from "./support/otlp-sink";
import { runBench } from "./support/main";
import { serverPids } from "./support/cpu";
import { intEnv } from "./support/env";
import { measure, type LoadResult, type LoadSettings } from "./support/load";
import { freePort } from "../test/support/processes";
import { PAGE_PATH, platformEnv, seed, spawnPlatformNode } from "./support/platform";
import { resultsDir } from "./support/report";

const settings: LoadSettings = {
  connections: intEnv("BENCH_CONNECTIONS", 32, 1),
  durationS: intEnv("BENCH_DURATION", 10, 1),
  warmupS: intEnv("BENCH_WARMUP", 5, 0),
  quietWaitS: intEnv("BENCH_QUIET_WAIT", 20, 0),
};
const ROUNDS = intEnv("BENCH_ROUNDS", 3, 1);
const ACCOUNTS = intEnv("BENCH_ACCOUNTS", 50, 10);
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(",")) : null;

/** The OTLP receiver's pid: like the scraper, outside the platform (its CPU is not the server's). */
let sinkPid = 0;

/** Resolves once the platform process answers GET /ready (bus, store and the services behind its routes up); rejects if it exits first. */
async function ready(base: string, child: ChildProcess, ms = 60_000): Promise<void> {
  const exited = new Promise<never>((_, reject) =>
    child.once("exit", (code) => reject(new Error(`platform process exited ${code} before it was ready`))),
  );
  exited.catch(() => undefined);
  const until = Date.now() + ms;
  for (;;) {
    const ok = await Promise.race([
      fetch(`${base}/ready`, { signal: AbortSignal.timeout(2_000) }).then(
        (r) => r.ok,
        () => false,
      ),
      exited,
    ]);
    if (ok) return;
    if (Date.now() > until) throw new Error(`platform process not ready within ${ms} ms`);
    await Promise.race([new Promise((r) => setTimeout(r, 100)), exited]);
  }
}

/** One round of a set-up: its own platform process, seeded, (scraped,) loaded, stopped. */
async function scenario(env: Record<string, string>, scrape: boolean): Promise<LoadResult> {
  const port = await freePort();
  const metricsPort = scrape ? await freePort() : 0;
  const platform = spawnPlatformNode(
    // Metrics off or on by the set-up, whatever BENCH_METRICS says (it sets platformEnv's default).
    platformEnv({ ...env, PORT: String(port), METRICS_PORT: scrape ? String(metricsPort) : "off" }),
  );
  let scraper: ChildProcess | undefined;
  try {
    const base = `http://127.0.0.1:${port}`;
    await ready(base, platform);
    const { token } = await seed(base, ACCOUNTS);
    if (scrape) {
      scraper = spawnTracked(
        process.execPath,
        [path.join(__dirname, "support/scraper-node.js"), `http://127.0.0.1:${metricsPort}/metrics`],
        { stdio: ["ignore", "inherit", "inherit", "ipc"] },
      );
    }
    // The platform runs without a bus: nats-server's CPU in the window is other programs' (the
    // bench machine is shared), not the server's.
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
    await stopChild(platform);
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
  const endpoint = sink.endpoint;
  // Tracing is each platform process's own (app/main.ts starts it from these): none but the traced
  // set-ups see an exporter, whatever this shell's OTEL_* say.
  const untraced = {
    OTEL_EXPORTER_OTLP_ENDPOINT: "",
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "",
    OTEL_TRACES_EXPORTER: "",
  };
  const envs: Record<Scenario, () => Record<string, string>> = {
    off: () => ({ DATA_DIR: dataDir(), ...untraced }),
    metrics: () => ({ DATA_DIR: dataDir(), ...untraced }),
    sampled: () => ({ DATA_DIR: dataDir(), OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, TRACE_SAMPLE_RATE: "0.1" }),
    on: () => ({ DATA_DIR: dataDir(), OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, TRACE_SAMPLE_RATE: "1" }),
  };
  const scenarios = (Object.keys(envs) as Scenario[]).filter((name) => !ONLY || ONLY.has(name));
  const runs: Partial<Record<Scenario, LoadResult[]>> = {};
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 === 1 ? scenarios : [...scenarios].reverse();
    console.log(`round ${round}/${ROUNDS}: ${order.join(", ")}`);
    for (const name of order) (runs[name] ??= []).push(await scenario(envs[name](), name !== "off"));
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
  /** The median of the rounds' CPU per request against the same round's `off`, as a ratio - 1. */
  const pairedCost = (name: Scenario) => {
    const ratios = (runs[name] ?? []).flatMap((r, i) => {
      const base = runs.off?.[i]?.serverCpuUsPerReq;
      return base && r.serverCpuUsPerReq ? [r.serverCpuUsPerReq / base] : [];
    });
    ratios.sort((a, b) => a - b);
    const mid = ratios.length >> 1;
    if (ratios.length === 0) return null;
    return (ratios.length % 2 ? ratios[mid]! : (ratios[mid - 1]! + ratios[mid]!) / 2) - 1;
  };
  const costs: Partial<
    Record<Scenario, { cpu: number | null; pairedCpu: number | null; reqPerSec: number | null }>
  > = {};
  for (const name of scenarios) {
    const r = bests[name]!;
    const cpu = name === "off" ? null : cpuCost(r);
    const pairedCpu = name === "off" ? null : pairedCost(name);
    costs[name] = {
      cpu,
      pairedCpu,
      reqPerSec: off && name !== "off" ? 1 - r.reqPerSec / off.reqPerSec : null,
    };
    const costText =
      cpu === null
        ? ""
        : `  cost ${pct(cpu)} CPU (paired by round ${pairedCpu === null ? "?" : pct(pairedCpu)})`;
    console.log(
      `${LABELS[name].padEnd(31)} ${String(Math.round(r.reqPerSec)).padStart(7)} req/s  p50 ${r.p50Ms} ms  p99 ${r.p99Ms} ms  CPU ${r.serverCpuUsPerReq ?? "?"} µs/req${costText}`,
    );
  }
  console.log("aims: metrics <= +5% CPU per request, metrics + 10% traced <= +10%");
  console.log(`the receiver got ${stats.exports} OTLP exports, ${stats.bytes} bytes`);
  const out = resultsDir();
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(
    path.join(out, ONLY ? "observability-partial.json" : "observability.json"),
    JSON.stringify({ settings, rounds: ROUNDS, best: bests, costs, exports: stats, runs }, null, 2),
  );
}

runBench(main);
