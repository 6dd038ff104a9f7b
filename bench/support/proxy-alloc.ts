/**
 * Bytes allocated per proxied request, and where (docs/performance-rounds.md, the proxy's seventh round).
 * Allocation does not move with the machine's load as CPU does, so on a shared machine it is the
 * figure that resolves a cut of a few per cent. The platform and the proxy floor (as in
 * `bench:proxy`) in this process, the paired load client (./paired-load-node.ts) asking one of them
 * at a time; while it asks, V8's sampling heap profiler runs with the objects that minor and major
 * GCs collected kept in its profile, so its total is what was allocated, not what survived.
 *
 *   node dist/bench/support/proxy-alloc.js [rounds, 3] [slice ms, 3000] [top sites, 0]
 *
 * Prints, per round, KB allocated per answered request for the floor and the proxy (taking turns),
 * then the medians; with `top sites` > 0 the proxy's largest allocation sites of the last round,
 * by the nearest frame in this project's code and by the allocating function itself.
 * Env: BENCH_CONNECTIONS (32), ALLOC_SAMPLE_BYTES (sampling interval, 1024), ALLOC_GC=1 (no
 * profile: GC time per request by kind, and how much the old generation grew per request while
 * no full GC ran, that is what the young generation's collections promoted), ALLOC_LIVE=1 (only
 * what is still alive after a full GC once the slice's requests are answered: what a request leaves
 * behind). Run it with `--trace-gc-nvp` to see each collection's `promoted` bytes.
 */
import inspector from "node:inspector/promises";
import path from "node:path";
import v8 from "node:v8";
import { PerformanceObserver } from "node:perf_hooks";
import { httpUrl, platformEnv, startPlatform } from "./platform";
import { benchAdapter, QUERY_PATH } from "./proxy-adapter";
import { scratchSpace, spawnTracked } from "./children";
import { runBench } from "./main";
import { startProxyFloor } from "./proxy-floor";

const rounds = Number(process.argv[2] ?? 3);
const sliceMs = Number(process.argv[3] ?? 3000);
const topSites = Number(process.argv[4] ?? 0);
const SAMPLE_BYTES = Number(process.env.ALLOC_SAMPLE_BYTES ?? 1024);
/** ALLOC_GC=1: no heap profile; GC time per request by kind instead (a PerformanceObserver). */
const GC_ONLY = process.env.ALLOC_GC === "1";
/** ALLOC_LIVE=1: only what is still alive once the slice's requests are all answered (a full GC first). */
const LIVE_ONLY = process.env.ALLOC_LIVE === "1";

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

function child(script: string) {
  return spawnTracked(process.execPath, [path.join(__dirname, script)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env },
  });
}

function rawRequest(port: number, urlPath: string, body: string, headers: Record<string, string>) {
  const head = [
    `POST ${urlPath} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  return `${head.join("\r\n")}\r\n\r\n${body}`;
}

const oldSpaceUsed = () =>
  v8.getHeapSpaceStatistics().find((s) => s.space_name === "old_space")!.space_used_size;

const frame = (n: ProfileNode) =>
  `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.replace(/^.*\/(node_modules|dist)\//, "$1/")}:${n.callFrame.lineNumber + 1}`;
const ours = (url: string) => url.includes("/dist/") && !url.includes("/node_modules/");

/** Total bytes, and bytes by allocating function and by the nearest frame of this project's code. */
function tally(root: ProfileNode) {
  let total = 0;
  const bySelf = new Map<string, number>();
  const byOurs = new Map<string, number>();
  const walk = (n: ProfileNode, nearestOurs: string) => {
    const here = ours(n.callFrame.url) ? frame(n) : nearestOurs;
    if (n.selfSize) {
      total += n.selfSize;
      bySelf.set(frame(n), (bySelf.get(frame(n)) ?? 0) + n.selfSize);
      byOurs.set(here, (byOurs.get(here) ?? 0) + n.selfSize);
    }
    for (const c of n.children) walk(c, here);
  };
  walk(root, "(no frame of ours)");
  return { total, bySelf, byOurs };
}

async function main() {
  const upstreamChild = child("upstream-node.js");
  const upstream: { port: number } = await new Promise((resolve) => upstreamChild.once("message", resolve));
  const dataDir = scratchSpace("bench-proxy-alloc-");
  const broker = await startPlatform(platformEnv({ DATA_DIR: dataDir(), ADAPTER_HEALTH_TICK_MS: "60000" }));
  const floor = await startProxyFloor(upstream.port, 64);
  const session = new inspector.Session();
  session.connect();
  const load = child("paired-load-node.js");
  try {
    const base = httpUrl(broker);
    const auth = await benchAdapter(base, upstream.port);
    const body = JSON.stringify({ params: { path: QUERY_PATH, accept: "application/yang-data+json" } });
    const floorPort = Number(new URL(httpUrl(floor)).port);
    const proxyPort = Number(new URL(base).port);
    let waiting: ((m: any) => void) | null = null;
    load.on("message", (m) => waiting?.(m));
    const next = () => new Promise<any>((resolve) => (waiting = resolve));
    const ready = next();
    load.send({
      targets: [
        { port: floorPort, request: rawRequest(floorPort, "/floor/restQuery", body, {}) },
        {
          port: proxyPort,
          request: rawRequest(proxyPort, "/orchestrator_manager/restQuery/bench", body, auth),
        },
      ],
    });
    await ready;
    const run = async (index: number, ms: number) => {
      const answer = next();
      load.send({ run: index, ms });
      const { answered, failed } = await answer;
      if (failed || !answered) throw new Error(`${answered} answered, ${failed} failed`);
      return answered as number;
    };
    await session.post("HeapProfiler.enable");
    // Warm-up: both paths compiled and their pools open before anything is counted.
    for (const index of [0, 1, 0, 1]) await run(index, 1000);
    const kb: [number[], number[]] = [[], []];
    let last: ReturnType<typeof tally> | null = null;
    let lastAnswered = 0;
    for (let round = 0; round < rounds; round++) {
      for (const index of round % 2 ? [1, 0] : [0, 1]) {
        if (GC_ONLY) {
          const byKind = new Map<number, { ms: number; n: number }>();
          const obs = new PerformanceObserver((list) => {
            for (const e of list.getEntries()) {
              const kind = (e as any).detail?.kind ?? 0;
              const k = byKind.get(kind) ?? { ms: 0, n: 0 };
              k.ms += e.duration;
              k.n++;
              byKind.set(kind, k);
            }
          });
          obs.observe({ entryTypes: ["gc"] });
          const oldBefore = oldSpaceUsed();
          const answered = await run(index, sliceMs);
          const promoted = (oldSpaceUsed() - oldBefore) / answered;
          await new Promise((r) => setTimeout(r, 10));
          obs.disconnect();
          const all = [...byKind.values()].reduce((a, k) => a + k.ms, 0);
          kb[index].push((all * 1000) / answered);
          console.log(
            `  ${index ? "proxy" : "floor"} gc ${((all * 1000) / answered).toFixed(1)} µs/req, ` +
              `old space grew ${Math.round(promoted)} B/req: ` +
              [...byKind]
                .map(([kind, k]) => `kind ${kind} ${k.n}x ${((k.ms * 1000) / answered).toFixed(1)} µs/req`)
                .join(", "),
          );
          continue;
        }
        await session.post("HeapProfiler.startSampling", {
          samplingInterval: SAMPLE_BYTES,
          includeObjectsCollectedByMajorGC: !LIVE_ONLY,
          includeObjectsCollectedByMinorGC: !LIVE_ONLY,
        });
        const answered = await run(index, sliceMs);
        if (LIVE_ONLY) await session.post("HeapProfiler.collectGarbage");
        const { profile } = await session.post("HeapProfiler.stopSampling");
        const t = tally(profile.head as unknown as ProfileNode);
        kb[index].push(t.total / answered / 1024);
        if (index === 1) [last, lastAnswered] = [t, answered];
      }
      const unit = GC_ONLY ? "µs GC/req" : "KB/req";
      console.log(
        `round ${round + 1}: floor ${kb[0][round].toFixed(1)} ${unit}, proxy ${kb[1][round].toFixed(1)} ${unit}`,
      );
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    console.log(
      `median ${GC_ONLY ? "µs of GC" : "KB allocated"} per request: floor ${median(kb[0]).toFixed(1)}, proxy ${median(kb[1]).toFixed(1)}`,
    );
    if (last && topSites > 0) {
      const show = (title: string, m: Map<string, number>) => {
        console.log(`\nproxy, bytes per request by ${title}:`);
        for (const [site, bytes] of [...m].sort((a, b) => b[1] - a[1]).slice(0, topSites))
          console.log(`  ${String(Math.round(bytes / lastAnswered)).padStart(6)}  ${site}`);
      };
      show("nearest frame of ours", last.byOurs);
      show("allocating function", last.bySelf);
    }
  } finally {
    load.kill();
    session.disconnect();
    await floor.stop();
    await broker.stop();
  }
}

runBench(main);
