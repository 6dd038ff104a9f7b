/**
 * Orchestrator proxy throughput: `npm run bench:proxy` (docs/orchestrator.md#performance).
 *
 * Three scenarios under the same autocannon load, in BENCH_ROUNDS interleaved rounds, each judged by
 * its best round:
 *   direct   GET of the device list straight from the orchestrator stand-in (a node:http child)
 *   floor    POST /floor/restQuery through the framework floor (moleculer-web and one action doing
 *            the same undici GET to the same stand-in, ./support/proxy-floor.ts), on a broker of its
 *            own in this process
 *   proxy    POST /orchestrator_manager/restQuery/bench through the gateway and the adapter
 *            (the whole platform on one broker in this process) to the same stand-in
 * The proxy pays two HTTP hops (client -> gateway, adapter -> orchestrator) plus authentication,
 * validation and the adapter's limits to the direct client's one; the floor pays the same two hops
 * and nothing else. The figures to watch: proxy/floor (the proxy's own cost, aim >= 0.8x) and
 * proxy/direct (aim >= 0.35x). Table on stdout, JSON in bench/results/proxy.json.
 *
 * Env: BENCH_DURATION (s, 10), BENCH_WARMUP (s, 2), BENCH_CONNECTIONS (32), BENCH_ROUNDS (3),
 * BENCH_DEVICES (devices in the answered list, 10), BENCH_QUIET_WAIT (s, 20), BENCH_ONLY (scenarios
 * to run, e.g. `floor,proxy`; a partial run writes proxy-partial.json).
 *
 * On a shared machine req/s is noise, so each round also prints the CPU the bench process (the floor's
 * broker and the platform both live in it; only one is under load at a time) spent per answered
 * request: µs/req. The stand-in's CPU and autocannon's are the same for floor and proxy and are left
 * out. cpu floor/proxy is the ratio that req/s would show on an idle machine where the bench process
 * is the bottleneck. Run the bench with `node --cpu-prof` (and BENCH_ONLY=proxy) to profile the proxy.
 *
 * After the rounds, with both floor and proxy run, the paired slices (./support/paired-proxy.ts): one
 * load client switched between them every BENCH_SLICE_MS (1000), BENCH_PAIRS pairs (12, after 2 not
 * counted), the ratio of CPU per request floor/proxy taken pair by pair; its median and range is the
 * verdict that holds on a noisy machine (BENCH_PAIRS=0: none).
 */
import fs from "node:fs";
import path from "node:path";
import { scratchSpace, spawnTracked } from "./support/children";
import { runBench } from "./support/main";
import { intEnv } from "./support/env";
import { measure, type LoadResult, type LoadSettings } from "./support/load";
import { httpUrl, platformEnv, startPlatform } from "./support/platform";
import { benchAdapter, postJson, QUERY_PATH } from "./support/proxy-adapter";
import { pairedSlices, type PairedFigures } from "./support/paired-proxy";
import { startProxyFloor } from "./support/proxy-floor";
import { resultsDir } from "./support/report";

const settings: LoadSettings = {
  connections: intEnv("BENCH_CONNECTIONS", 32, 1),
  durationS: intEnv("BENCH_DURATION", 10, 1),
  warmupS: intEnv("BENCH_WARMUP", 2, 0),
  quietWaitS: intEnv("BENCH_QUIET_WAIT", 20, 0),
};
const rounds = intEnv("BENCH_ROUNDS", 3, 1);
const pairs = intEnv("BENCH_PAIRS", 12, 0);
const sliceMs = intEnv("BENCH_SLICE_MS", 1000, 100);
type Scenario = "direct" | "floor" | "proxy";
const ONLY = process.env.BENCH_ONLY?.split(",").map((s) => s.trim());
const runs = (id: Scenario) => !ONLY || ONLY.includes(id);
/** CPU µs the bench process (gateway and adapter, or the floor) spent per answered request. */
const benchUsPerReq = (r: LoadResult) =>
  r.requests === 0 ? null : Math.round((r.cpu.ms.bench * 1000) / r.requests);

function startUpstream(): Promise<{ port: number; bytes: number }> {
  const child = spawnTracked(process.execPath, [path.join(__dirname, "support/upstream-node.js")], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env },
  });
  return new Promise((resolve, reject) => {
    child.once("message", (m: any) => resolve(m));
    child.once("exit", (code) => reject(new Error(`upstream exited ${code}`)));
  });
}

const best = (rs: LoadResult[]) => rs.reduce((a, b) => (b.reqPerSec > a.reqPerSec ? b : a));

async function main(): Promise<void> {
  const dataDir = scratchSpace("bench-proxy-");
  const upstream = await startUpstream();
  const broker = await startPlatform(platformEnv({ DATA_DIR: dataDir(), ADAPTER_HEALTH_TICK_MS: "60000" }));
  // The floor's pool is the adapter's size (maxInFlight below).
  const floor = await startProxyFloor(upstream.port, 64);
  try {
    const base = httpUrl(broker);
    const auth = await benchAdapter(base, upstream.port);
    const body = JSON.stringify({ params: { path: QUERY_PATH, accept: "application/yang-data+json" } });
    const proxied = await postJson(`${base}/orchestrator_manager/restQuery/bench`, JSON.parse(body), auth);
    if (Buffer.byteLength(proxied) < upstream.bytes * 0.9)
      throw new Error("the proxy did not answer the device list");
    const floorUrl = `${httpUrl(floor)}/floor/restQuery`;
    if ((await postJson(floorUrl, JSON.parse(body))) !== proxied)
      throw new Error("the floor did not answer what the proxy answers");

    const results: Record<Scenario, LoadResult[]> = { direct: [], floor: [], proxy: [] };
    let paired: PairedFigures | null = null;
    const row = (name: string, r: LoadResult) =>
      `${name.padEnd(8)} ${String(Math.round(r.reqPerSec)).padStart(8)} req/s   p50 ${r.p50Ms} ms   p99 ${r.p99Ms} ms   ` +
      `bench process ${benchUsPerReq(r)} µs/req   errors ${r.non2xx + r.errors + r.timeouts}`;
    for (let round = 1; round <= rounds; round++) {
      console.log(`round ${round}/${rounds}`);
      if (runs("direct"))
        results.direct.push(await measure(`http://127.0.0.1:${upstream.port}${QUERY_PATH}`, {}, settings));
      if (runs("floor"))
        results.floor.push(
          await measure(floorUrl, { "content-type": "application/json" }, settings, { method: "POST", body }),
        );
      if (runs("proxy"))
        results.proxy.push(
          await measure(
            `${base}/orchestrator_manager/restQuery/bench`,
            { "content-type": "application/json", authorization: auth.authorization },
            settings,
            { method: "POST", body },
          ),
        );
      for (const id of ["direct", "floor", "proxy"] as const)
        if (runs(id)) console.log("  " + row(id, results[id][round - 1]));
      if (runs("floor") && runs("proxy")) {
        const [f, p] = [benchUsPerReq(results.floor[round - 1]), benchUsPerReq(results.proxy[round - 1])];
        if (f && p) console.log(`  cpu floor/proxy ${(f / p).toFixed(2)}x`);
      }
    }
    if (runs("floor") && runs("proxy") && pairs > 0) {
      console.log(`paired slices: ${pairs} pairs of ${sliceMs} ms`);
      const floorTarget = new URL(floorUrl);
      const proxyTarget = new URL(`${base}/orchestrator_manager/restQuery/bench`);
      paired = await pairedSlices(
        [
          { port: Number(floorTarget.port), path: floorTarget.pathname, body, headers: {} },
          { port: Number(proxyTarget.port), path: proxyTarget.pathname, body, headers: auth },
        ],
        { pairs, sliceMs, connections: settings.connections },
      );
    }
    const round2 = (n: number) => Math.round(n * 100) / 100;
    const direct = results.direct.length ? best(results.direct) : undefined;
    const floorBest = results.floor.length ? best(results.floor) : undefined;
    const proxy = results.proxy.length ? best(results.proxy) : undefined;
    const ratio = direct && proxy ? round2(proxy.reqPerSec / direct.reqPerSec) : null;
    const floorRatio = floorBest && proxy ? round2(proxy.reqPerSec / floorBest.reqPerSec) : null;
    // CPU per request, each scenario's least over its rounds (other work only ever adds to it).
    const leastUs = (rs: LoadResult[]) =>
      rs
        .map(benchUsPerReq)
        .reduce<number | null>((a, b) => (b !== null && (a === null || b < a) ? b : a), null);
    const cpuUs = { floor: leastUs(results.floor), proxy: leastUs(results.proxy) };
    const cpuRatio = cpuUs.floor && cpuUs.proxy ? round2(cpuUs.floor / cpuUs.proxy) : null;
    console.log(
      `\nanswer: ${upstream.bytes} bytes, ${settings.connections} connections, best of ${rounds} rounds`,
    );
    if (direct) console.log(row("direct", direct));
    if (floorBest) console.log(row("floor", floorBest));
    if (proxy) console.log(row("proxy", proxy));
    if (floorRatio !== null) console.log(`proxy/floor ${floorRatio}x (aim >= 0.8x)`);
    if (cpuRatio !== null)
      console.log(`cpu floor/proxy ${cpuRatio}x (least µs/req: floor ${cpuUs.floor}, proxy ${cpuUs.proxy})`);
    if (ratio !== null) console.log(`proxy/direct ${ratio}x (aim >= 0.35x)`);
    if (paired) {
      const range = (f: { median: number; min: number; max: number }) => `${f.median} (${f.min}-${f.max})`;
      console.log(
        `paired cpu floor/proxy ${range(paired.cpuRatio)}x over ${paired.pairs} pairs of ${paired.sliceMs} ms ` +
          `(µs/req floor ${range(paired.floorUs)}, proxy ${range(paired.proxyUs)}; least slices ${paired.leastRatio}x; aim >= 0.8x)`,
      );
    }
    const out = resultsDir();
    fs.mkdirSync(out, { recursive: true });
    fs.writeFileSync(
      path.join(out, ONLY ? "proxy-partial.json" : "proxy.json"),
      JSON.stringify(
        {
          settings,
          rounds,
          bytes: upstream.bytes,
          direct,
          floor: floorBest,
          proxy,
          ratio,
          floorRatio,
          cpuUs,
          cpuRatio,
          paired,
          all: results,
        },
        null,
        2,
      ),
    );
  } finally {
    await floor.stop();
    await broker.stop();
  }
}

runBench(main);
