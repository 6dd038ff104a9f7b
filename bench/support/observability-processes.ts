/**
 * What metrics (and tracing) cost a read, each mode in a process of its own (docs/performance-rounds.md,
 * "Metrics, tenth round"). The in-process harness (./observability-inprocess.ts) runs every mode's
 * platform in one process, 1-s slices in turn: the modes share V8's code, its inline caches, its
 * heap and its collections, and an A/A run of it (the same build twice) reads 0.93-1.07. Here each
 * mode is a fresh process with only its own platform, warmed up, then measured over several
 * windows of continuous load; the processes are alternated (the order reversed every round), and a
 * mode is compared with its own build's `off` of the same round: a paired ratio per round, whose
 * median and spread are printed.
 *
 *   node dist/bench/support/observability-processes.js off,metrics,off@/work/base/dist,metrics@/work/base/dist [rounds, 4]
 *
 * Each window also reports, per read, what the CPU figure alone cannot tell apart: user and system
 * CPU, minor page faults, context switches (process.resourceUsage), the time V8's collections
 * took (PerformanceObserver 'gc') and the CPU by kind of thread (`mainUs`, `v8Us`, `workersUs`,
 * `restUs`: /proc/self/task, docs/performance-rounds.md, forty-sixth round). The load is the
 * in-process harness's: 16 keep-alive sockets asking for the same page as soon as each answer is
 * in, the client in the process. With metrics on, /metrics is scraped once a second (as the
 * in-process harness does) unless OBS_SCRAPE=0.
 * OBS_WARM_S (default 10) seconds of warm-up, OBS_WINDOWS (default 5) windows of OBS_WINDOW_S
 * (default 2) seconds. A mode written `metrics+noscrape` is metrics never scraped; OBS_NODE_ARGS
 * passes V8 flags to every child alike (e.g. `--max-semi-space-size=16`: V8 grows the young
 * generation by what survives, 48 or 128 MB by run, and the size is printed as `newSpaceKB`).
 *
 * OBS_TOGETHER=1 runs a round's processes at the same time instead of one after another: each
 * warms up, says it is ready, and all measure their windows over the same seconds, so a moment
 * when the machine is slower slows every mode alike. Each window of a mode is then compared with
 * the same window of its build's `off` (`vsOwnOffByWindow`: median, lowest, highest of those
 * ratios). The processes share the machine's cores while they do (two on this one), which is the
 * price: what one costs the machine, the other meets too; an A/A run (`off,off@<the same dist>`)
 * says how far apart two equal processes read.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import v8 from "node:v8";
import { constants as perfConstants, PerformanceObserver } from "node:perf_hooks";
import type { ServiceBroker } from "moleculer";
import type * as platformHelpers from "./platform";
import { runBench } from "./main";
import { keepAsking } from "./http-answers";
import { stopAllChildren } from "./children";
import { startTelemetry } from "../../shared/telemetry";
import { startSink } from "./otlp-sink";
import { threadsMs, type ThreadKind } from "./cpu";

const CONNECTIONS = 16;
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

/** One window's figures, per read. */
interface Window {
  reads: number;
  cpuUs: number;
  userUs: number;
  systemUs: number;
  minorFaults: number;
  /** Voluntary and involuntary context switches per 1,000 reads. */
  switches: number;
  /** Time in V8's collections (all kinds) per read, and scavenges per 1,000 reads. */
  gcUs: number;
  scavenges: number;
  /**
   * CPU per read by kind of thread (./cpu.ts `threadKind`): the event loop (with the load client,
   * which shares it), V8's helpers (parallel scavenges, concurrent marking, compiles), the platform's
   * worker threads (the trace export's requests, ../../shared/observability/export-thread.ts), the
   * rest (libuv's pool, threads not named, threads that ended in the window). The count
   * (./observability-cycles.sh) reads the main thread alone.
   */
  mainUs: number;
  v8Us: number;
  workersUs: number;
  restUs: number;
}

/**
 * This process's CPU in µs by kind of thread (./cpu.ts) from `before` (a `threadsMs` reading) to
 * now: each live thread's own difference, so a thread ended in between counts nowhere (the caller's
 * `rest`) and one started in between counts whole.
 */
function threadsUsSince(before: ReturnType<typeof threadsMs>): Record<ThreadKind, number> {
  const byKind = { main: 0, v8: 0, workers: 0, libuv: 0, other: 0 };
  for (const [tid, { kind, ms }] of threadsMs(process.pid))
    byKind[kind] += (ms - (before.get(tid)?.ms ?? 0)) * 1000;
  return byKind;
}

/** The child: one platform of MODE from the build DIST, loaded, measured window by window. */
async function child(mode: string, dist: string): Promise<void> {
  const traced = mode === "sampled" || mode === "traced" || mode === "unsampled";
  const endpoint = traced ? (await startSink()).endpoint : null;
  if (endpoint) process.env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint;
  const sdk = endpoint ? startTelemetry("obs-processes") : null;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a build chosen at run time
  const helpers: typeof platformHelpers = require(path.join(dist, "bench/support/platform.js"));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "obs-processes-"));
  const broker: ServiceBroker = await helpers.startPlatform(
    helpers.platformEnv({
      DATA_DIR: dataDir,
      METRICS_PORT: mode === "off" ? "off" : "0", // whatever BENCH_METRICS says
      ...(endpoint && { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }),
      ...(mode === "sampled" && { TRACE_SAMPLE_RATE: "0.1" }),
      ...(mode === "unsampled" && { TRACE_SAMPLE_RATE: "0" }),
    }),
  );
  try {
    const base = new URL(helpers.httpUrl(broker));
    const { token } = await helpers.seed(base.origin, 50);
    const request = Buffer.from(
      `GET ${helpers.PAGE_PATH} HTTP/1.1\r\nHost: ${base.host}\r\nAuthorization: Bearer ${token}\r\n\r\n`,
    );
    let answered = 0;
    let asking = true;
    const sockets = await Promise.all(
      Array.from({ length: CONNECTIONS }, () =>
        keepAsking(
          Number(base.port),
          request,
          () => answered++,
          () => asking,
        ),
      ),
    );
    for (const socket of sockets) socket.write(request);
    const scrapeUrl =
      mode !== "off" && process.env.OBS_SCRAPE !== "0"
        ? `http://127.0.0.1:${(broker.metrics as any).reporter[0].server.address().port}/metrics`
        : null;
    const scraper =
      scrapeUrl &&
      setInterval(
        () => void fetch(scrapeUrl, { headers: { "accept-encoding": "gzip" } }).then((r) => r.arrayBuffer()),
        1000,
      );
    let gcMs = 0;
    let scavenges = 0;
    const gc = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        gcMs += entry.duration;
        if (
          (entry as { detail?: { kind?: number } }).detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MINOR
        )
          scavenges++;
      }
    });
    gc.observe({ entryTypes: ["gc"] });
    const sleep = (s: number) => new Promise((resolve) => setTimeout(resolve, s * 1000));
    await sleep(env("OBS_WARM_S", 10));
    if (process.env.OBS_TOGETHER === "1") await goAhead();
    const measuredFrom = Date.now();
    const windows: Window[] = [];
    for (let w = 0; w < env("OBS_WINDOWS", 5); w++) {
      const threadsBefore = threadsMs(process.pid);
      const before = { usage: process.resourceUsage(), answered, gcMs, scavenges };
      await sleep(env("OBS_WINDOW_S", 2));
      const threadUs = threadsUsSince(threadsBefore);
      const usage = process.resourceUsage();
      const reads = answered - before.answered;
      const per = (x: number, scale = 1) => Number(((x * scale) / reads).toFixed(3));
      const user = usage.userCPUTime - before.usage.userCPUTime;
      const system = usage.systemCPUTime - before.usage.systemCPUTime;
      // The threads' shares are read in clock ticks (10 ms), the total from getrusage (µs): `rest`
      // takes the difference, so the kinds add up to the total, off by up to a few ticks a window.
      const kindsUs = threadUs.main + threadUs.v8 + threadUs.workers;
      windows.push({
        reads,
        cpuUs: per(user + system),
        userUs: per(user),
        systemUs: per(system),
        minorFaults: per(usage.minorPageFault - before.usage.minorPageFault),
        switches: per(
          usage.voluntaryContextSwitches +
            usage.involuntaryContextSwitches -
            before.usage.voluntaryContextSwitches -
            before.usage.involuntaryContextSwitches,
          1000,
        ),
        gcUs: per(gcMs - before.gcMs, 1000),
        scavenges: per(scavenges - before.scavenges, 1000),
        mainUs: per(threadUs.main),
        v8Us: per(threadUs.v8),
        workersUs: per(threadUs.workers),
        restUs: per(user + system - kindsUs),
      });
    }
    asking = false;
    gc.disconnect();
    if (scraper) clearInterval(scraper);
    await sleep(0.2);
    for (const socket of sockets) socket.destroy();
    // The young generation's size at the end: V8 sizes it by what survives, so it can differ by mode.
    const young = v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space");
    console.log(
      JSON.stringify({ windows, measuredFrom, newSpaceKB: young && Math.round(young.space_size / 1024) }),
    );
  } finally {
    await broker.stop();
    await sdk?.shutdown();
    await stopAllChildren();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** OBS_TOGETHER: says it is ready (a line on stdout) and waits for the driver's go (a line on stdin). */
function goAhead(): Promise<void> {
  console.log(READY);
  return new Promise((resolve) => {
    process.stdin.once("data", () => {
      process.stdin.pause();
      resolve();
    });
  });
}

const READY = "ready to measure";

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** A child's windows' medians, field by field, and its young generation's size at the end. */
type Figures = Record<keyof Window | "newSpaceKB", number> & {
  windowCpuUs: number[];
  /** When its windows began (epoch ms): the same moment for a round's processes with OBS_TOGETHER. */
  measuredFrom: number;
};

/** One child under way: `ready` once it has warmed up (OBS_TOGETHER), `go` lets it measure. */
interface Measuring {
  ready: Promise<void>;
  go(): void;
  figures: Promise<Figures>;
}

/** Runs one child; its figures are its windows' medians, field by field. */
function measure(given: string, dist: string): Measuring {
  // `MODE+noscrape`: metrics on, /metrics never scraped.
  const [mode, flag] = given.split("+");
  // OBS_NODE_ARGS: V8 flags for every child alike (e.g. a young generation of a fixed size).
  const nodeArgs = (process.env.OBS_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const proc = spawn(process.execPath, [...nodeArgs, __filename, "--child", mode, dist], {
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, ...(flag === "noscrape" && { OBS_SCRAPE: "0" }) },
  });
  let out = "";
  let isReady!: () => void;
  const ready = new Promise<void>((resolve) => (isReady = resolve));
  proc.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
    if (out.includes(READY)) isReady();
  });
  const figures = new Promise<Figures>((resolve, reject) => {
    proc.on("error", reject);
    proc.on("exit", (code) => {
      isReady(); // a child that died before it was ready must not hold the others
      const line = out.split("\n").find((l) => l.startsWith('{"windows"'));
      if (code !== 0 || !line) return reject(new Error(`${mode}@${dist} exited ${code}: ${out.slice(-500)}`));
      const { windows, newSpaceKB, measuredFrom } = JSON.parse(line) as {
        windows: Window[];
        newSpaceKB: number;
        measuredFrom: number;
      };
      const keys = Object.keys(windows[0]) as (keyof Window)[];
      const medians = keys.map((k) => [k, Number(median(windows.map((w) => w[k])).toFixed(3))]);
      const windowCpuUs = windows.map((w) => w.cpuUs);
      resolve({ newSpaceKB, ...Object.fromEntries(medians), windowCpuUs, measuredFrom } as Figures);
    });
  });
  return { ready, go: () => proc.stdin.end("go\n"), figures };
}

/** A round's runs, one after another, or (OBS_TOGETHER) all at once, measuring the same seconds. */
async function round(runs: { name: string; mode: string; dist: string }[]): Promise<Figures[]> {
  if (process.env.OBS_TOGETHER !== "1") {
    const out: Figures[] = [];
    for (const run of runs) {
      const child = measure(run.mode, run.dist);
      child.go();
      out.push(await child.figures);
    }
    return out;
  }
  const children = runs.map((run) => measure(run.mode, run.dist));
  await Promise.all(children.map((c) => c.ready));
  for (const child of children) child.go();
  return Promise.all(children.map((c) => c.figures));
}

/** The driver: every mode in its own process, alternated round by round. */
async function driver(): Promise<void> {
  const own = path.resolve(__dirname, "../..");
  const runs = (process.argv[2] ?? "off,metrics").split(",").map((given) => {
    const [mode, dist] = given.split("@");
    return { name: given, mode, dist: dist ? path.resolve(dist) : own };
  });
  const rounds = Number(process.argv[3] ?? 4);
  const figures = new Map(runs.map((r) => [r.name, [] as Figures[]]));
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [...runs].reverse() : runs;
    const measured = await round(order);
    order.forEach((run, i) => {
      figures.get(run.name)!.push(measured[i]);
      console.log(JSON.stringify({ round: r, run: run.name, ...measured[i] }));
    });
  }
  const fixed = (x: number) => Number(x.toFixed(3));
  /** Ratios as their median, lowest and highest. */
  const spread = (ratios: number[]) => ({
    median: fixed(median(ratios)),
    min: fixed(Math.min(...ratios)),
    max: fixed(Math.max(...ratios)),
  });
  const together = process.env.OBS_TOGETHER === "1";
  for (const run of runs) {
    const own = figures.get(run.name)!;
    const off = runs.find((r) => r.mode === "off" && r.dist === run.dist);
    const offs = off ? figures.get(off.name)! : undefined;
    const of = (k: keyof Window | "newSpaceKB") => fixed(median(own.map((f) => f[k])));
    console.log(
      JSON.stringify({
        run: run.name,
        cpuUs: of("cpuUs"),
        userUs: of("userUs"),
        systemUs: of("systemUs"),
        minorFaults: of("minorFaults"),
        switches: of("switches"),
        gcUs: of("gcUs"),
        scavenges: of("scavenges"),
        newSpaceKB: of("newSpaceKB"),
        mainUs: of("mainUs"),
        v8Us: of("v8Us"),
        workersUs: of("workersUs"),
        restUs: of("restUs"),
        // This mode's CPU per read over its own build's `off` of the same round: median, lowest, highest.
        ...(offs && { vsOwnOff: spread(own.map((f, i) => f.cpuUs / offs[i].cpuUs)) }),
        // OBS_TOGETHER: each window over the same window of `off`, measured over the same seconds.
        ...(offs &&
          together && {
            vsOwnOffByWindow: spread(
              own.flatMap((f, i) => f.windowCpuUs.map((cpu, w) => cpu / offs[i].windowCpuUs[w])),
            ),
          }),
      }),
    );
  }
}

if (process.argv[2] === "--child") runBench(() => child(process.argv[3], process.argv[4]));
else runBench(driver);
