/**
 * What metrics cost a read, measured in one process (docs/performance-rounds.md, "What metrics cost,
 * piece by piece"): on a shared machine the bench's separate autocannon and its quiet-second waits
 * cannot resolve a few per cent, and CPU per request moves with the request rate. Here the whole
 * platform and a raw keep-alive socket client (a few µs a request) share one process; its CPU per
 * request is measured over 1-s slices and the smallest slice is the figure (other work only adds).
 *
 *   node dist/bench/support/observability-inprocess.js off|metrics|unsampled|sampled|traced [slices, 10]
 *   node dist/bench/support/observability-inprocess.js off,metrics [slices per mode, 10]
 *   node dist/bench/support/observability-inprocess.js off,metrics,off@../base/dist,metrics@../base/dist
 *
 * With `metrics` the metrics port is scraped once a second from this process, as Prometheus would.
 * `sampled` is metrics and 10% of requests traced, `traced` metrics and every request traced, both
 * exported over OTLP/HTTP to a receiver in a child process (bench/support/otlp-sink-node.ts: its
 * CPU is not this process's). `unsampled` is metrics with tracing on and no request sampled
 * (TRACE_SAMPLE_RATE=0): what tracing costs the 90% that are not traced. Run it alternating builds
 * and modes; compare the minimum of each.
 *
 * Several modes (comma-separated) start one platform each in this process and take turns, one
 * 1-s slice each, the others idle: the modes then share the machine's load slice by slice, which
 * alternated processes cannot. The idle platforms' timers (lag monitor, process metrics) run in
 * every slice, so per-second costs are spread over all modes, not billed to their own. `vsFirst` is
 * each mode's CPU per request over the first mode's, slice by slice within a pass, the median
 * (`vsFirstQuartiles`: those ratios' first and third quartiles).
 *
 * A mode written `MODE@DIST` runs the platform of another build (its `dist` folder) in the same
 * process, so two builds are compared slice by slice under the same load: `vsOwnOff` is then each
 * mode's CPU per request over its own build's `off`, slice by slice, the median.
 *
 * OBS_WARMUP_SLICES (default 2) sets the unmeasured slices each mode gets first.
 */
import fs from "node:fs";
import type net from "node:net";
import os from "node:os";
import path from "node:path";
import type { ServiceBroker } from "moleculer";
import * as platform from "./platform";
import { runBench } from "./main";
import { stopAllChildren } from "./children";
import { startTelemetry } from "../../shared/telemetry";
import { keepAsking } from "./http-answers";
import { startSink } from "./otlp-sink";

const MODES = ["off", "metrics", "unsampled", "sampled", "traced"] as const;
type Mode = (typeof MODES)[number];
/** A mode, and the build whose platform it runs (this one's when `dist` is undefined). */
interface Run {
  mode: Mode;
  dist?: string;
}
const runs: Run[] = (process.argv[2] ?? "off").split(",").map((given) => {
  const [m, dist] = given.split("@");
  return { mode: MODES.find((known) => known === m) ?? "off", dist: dist && path.resolve(dist) };
});
const modes = runs.map((r) => r.mode);
const nameOf = (r: Run) => (r.dist ? `${r.mode}@${r.dist}` : r.mode);

/** The platform helpers of a build: this one's, or those of the `dist` folder given. */
function platformOf(dist: string | undefined): typeof platform {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a build chosen at run time
  return dist ? require(path.join(dist, "bench/support/platform.js")) : platform;
}
const slices = Number(process.argv[3] ?? 10);
const CONNECTIONS = 16;

/** One platform in this process, its clients, and (metrics on) its scrape once a second. */
interface Side {
  run: Run;
  answered: number;
  /** Sends load until `pause`; scraped meanwhile when metrics are on. */
  resume(): Promise<void>;
  pause(): Promise<void>;
  close(): Promise<void>;
}

async function startSide(run: Run, dataDir: string, endpoint: string | null): Promise<Side> {
  const { mode } = run;
  const { PAGE_PATH, httpUrl, platformEnv, seed, startPlatform } = platformOf(run.dist);
  const broker: ServiceBroker = await startPlatform(
    platformEnv({
      DATA_DIR: dataDir,
      METRICS_PORT: mode === "off" ? "off" : "0", // whatever BENCH_METRICS says
      ...(endpoint && mode !== "off" && mode !== "metrics" && { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }),
      ...(mode === "sampled" && { TRACE_SAMPLE_RATE: "0.1" }),
      ...(mode === "unsampled" && { TRACE_SAMPLE_RATE: "0" }),
    }),
  );
  const base = new URL(httpUrl(broker));
  const { token } = await seed(base.origin, 50);
  const request = Buffer.from(
    `GET ${PAGE_PATH} HTTP/1.1\r\nHost: ${base.host}\r\nAuthorization: Bearer ${token}\r\n\r\n`,
  );
  let asking = false;
  let sockets: net.Socket[] = [];
  const idle = new Set<net.Socket>();
  const side: Side = {
    run,
    answered: 0,
    // Fresh connections each slice: the server closes keep-alive sockets idle for 5 s.
    async resume() {
      asking = true;
      idle.clear();
      sockets = await Promise.all(
        Array.from({ length: CONNECTIONS }, () =>
          keepAsking(
            Number(base.port),
            request,
            () => side.answered++,
            () => asking,
            (socket) => idle.add(socket),
          ),
        ),
      );
      for (const socket of sockets) socket.write(request);
      if (scrapeUrl) scraper ??= setInterval(scrape, 1000);
    },
    async pause() {
      asking = false;
      if (scraper) clearInterval(scraper);
      scraper = undefined;
      // Every answer in flight comes back (bounded: 5 s).
      for (let i = 0; i < 1000 && idle.size < sockets.length; i++)
        await new Promise((resolve) => setTimeout(resolve, 5));
      for (const socket of sockets) socket.destroy();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await broker.stop();
    },
  };
  const scrapeUrl =
    mode !== "off"
      ? `http://127.0.0.1:${(broker.metrics as any).reporter[0].server.address().port}/metrics`
      : null;
  const scrape = () =>
    void fetch(scrapeUrl!, { headers: { "accept-encoding": "gzip" } }).then((r) => r.arrayBuffer());
  let scraper: NodeJS.Timeout | undefined;
  return side;
}

/** CPU µs per request of one 1-s slice of `side`'s load. */
async function slice(side: Side): Promise<number> {
  await side.resume();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const cpu = process.cpuUsage();
  const before = side.answered;
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const used = process.cpuUsage(cpu);
  const answered = side.answered - before;
  await side.pause();
  return (used.user + used.system) / answered;
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "obs-inprocess-"));
  const traced = modes.some((m) => m === "unsampled" || m === "sampled" || m === "traced");
  const endpoint = traced ? (await startSink()).endpoint : null;
  if (endpoint) process.env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint;
  const sdk = endpoint ? startTelemetry("obs-inprocess") : null;
  const sides: Side[] = [];
  try {
    for (const [i, run] of runs.entries())
      sides.push(await startSide(run, path.join(dataDir, String(i)), endpoint));
    const perRequest = new Map<Side, number[]>(sides.map((side) => [side, []]));
    // Warm-up: two slices each (OBS_WARMUP_SLICES), not counted. V8 still compiles after two: a
    // longer warm-up leaves less of that in the measured slices.
    const warmup = Number(process.env.OBS_WARMUP_SLICES ?? 2);
    for (let i = 0; i < warmup; i++) for (const side of sides) await slice(side);
    for (let i = 0; i < slices; i++)
      for (const side of i % 2 ? [...sides].reverse() : sides) perRequest.get(side)!.push(await slice(side));
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
    const first = perRequest.get(sides[0])!;
    const ratio = (own: number[], to: number[]) => Number(median(own.map((x, i) => x / to[i])).toFixed(3));
    // The slice-by-slice ratios' quartiles: an A/A pair (one build's `off` twice) reads 0.93-1.07 in
    // one run on this machine, so a ratio alone does not say how far to trust it.
    const spread = (own: number[], to: number[]) => {
      const r = own.map((x, i) => x / to[i]).sort((a, b) => a - b);
      return [r[Math.floor((r.length - 1) / 4)], r[Math.ceil(((r.length - 1) * 3) / 4)]].map((x) =>
        Number(x.toFixed(3)),
      );
    };
    const ownOff = (side: Side) => sides.find((s) => s.run.mode === "off" && s.run.dist === side.run.dist);
    for (const side of sides) {
      const own = perRequest.get(side)!;
      // Against the first mode slice by slice (the same pass, next to each other): the load moves less.
      const vsFirst = ratio(own, first);
      const off = ownOff(side);
      const figures = [...own].sort((a, b) => a - b);
      const at = (q: number) => Number(figures[Math.floor(q * (figures.length - 1))].toFixed(2));
      console.log(
        JSON.stringify({
          mode: nameOf(side.run),
          cpuUsPerRequest: { min: at(0), q1: at(0.25), median: at(0.5) },
          vsFirst,
          vsFirstQuartiles: spread(own, first),
          ...(runs.some((r) => r.dist) &&
            off && {
              vsOwnOff: ratio(own, perRequest.get(off)!),
              vsOwnOffQuartiles: spread(own, perRequest.get(off)!),
            }),
          answered: side.answered,
        }),
      );
    }
  } finally {
    for (const side of sides) await side.close();
    await sdk?.shutdown();
    await stopAllChildren();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

runBench(main);
