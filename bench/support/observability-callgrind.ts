/**
 * Instructions per read, metrics off or on (docs/performance-rounds.md, "Metrics, eighth round"): the
 * in-process harness's read (the same page, 16 keep-alive sockets, the client in this process) made
 * under callgrind with instrumentation off until the platform is warm. Run by
 * bench/support/observability-callgrind.sh, which turns instrumentation on from outside: a
 * synchronous `callgrind_control` from inside would block the process callgrind must answer it from.
 *
 *   node dist/bench/support/observability-callgrind.js MODE DIST DATA_DIR WARM READS FLAG_DIR
 *
 * MODE is `off`, `metrics`, `unsampled` (metrics, tracing on, no read sampled), `sampled` (metrics
 * and 10 % of reads traced) or `traced` (metrics and every read traced; these export over OTLP/HTTP to bench/support/otlp-sink-node.ts in a child
 * process, which valgrind does not follow); DIST the build whose platform runs (this one's `dist` or another);
 * DATA_DIR a store folder (seeded once, kept between runs); WARM reads before instrumentation,
 * READS after it. FLAG_DIR/ready is written when warm; the script waits for FLAG_DIR/go, makes its
 * READS reads, writes FLAG_DIR/done, waits for FLAG_DIR/stop (the window dumped) and exits. No scrape is made and the timers run as they do
 * (callgrind's per-function counts tell them apart).
 */
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import v8 from "node:v8";
import type { ServiceBroker } from "moleculer";
import type * as platformHelpers from "./platform";
import { runBench } from "./main";
import { onAnswers } from "./http-answers";
import { stopAllChildren } from "./children";
import { startTelemetry } from "../../shared/telemetry";
import { startSink } from "./otlp-sink";

const [mode, dist, dataDir, warm, reads, flags] = process.argv.slice(2);
const CONNECTIONS = 16;

/**
 * Makes `total` reads of `request` over CONNECTIONS keep-alive sockets; resolves when all are
 * answered. A socket the server resets (seen once the process runs ~50x slower under callgrind) is
 * replaced and its unanswered read asked again; the count is printed, as it adds a connection's
 * work to the window.
 */
async function makeReads(port: number, request: Buffer, total: number): Promise<void> {
  let sent = 0;
  let answered = 0;
  let finishing = false;
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const sockets = new Set<net.Socket>();
  const connect = (asked: boolean): Promise<void> => {
    const socket = net.connect(port, "127.0.0.1");
    sockets.add(socket);
    socket.setNoDelay(true);
    let waiting = asked;
    onAnswers(socket, () => {
      waiting = false;
      if (++answered === total) done();
      if (sent < total) {
        sent++;
        waiting = true;
        socket.write(request);
      }
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      sockets.delete(socket);
      if (finishing) return;
      reconnects++;
      void connect(waiting);
    });
    return new Promise((resolve) =>
      socket.once("connect", () => {
        if (asked) socket.write(request);
        resolve();
      }),
    );
  };
  const first = Math.min(CONNECTIONS, total);
  sent = first;
  await Promise.all(Array.from({ length: first }, () => connect(true)));
  await finished;
  finishing = true;
  for (const socket of sockets) socket.destroy();
}
let reconnects = 0;

const waitFor = async (file: string) => {
  while (!fs.existsSync(file)) await new Promise((resolve) => setTimeout(resolve, 50));
};

async function main(): Promise<void> {
  const traced = mode === "sampled" || mode === "traced" || mode === "unsampled";
  const endpoint = traced ? (await startSink()).endpoint : null;
  if (endpoint) process.env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint;
  // A batch of spans leaves when it is full or every OTEL_BSP_SCHEDULE_DELAY ms (5 s). Under
  // valgrind a read takes ~50x longer, so 5 s would send batches ~50x smaller than natively and
  // count each batch's request against far fewer reads; full batches only, as at a native pace.
  process.env.OTEL_BSP_SCHEDULE_DELAY ??= "600000";
  const sdk = endpoint ? startTelemetry("obs-callgrind") : null;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a build chosen at run time
  const helpers: typeof platformHelpers = require(path.resolve(dist, "bench/support/platform.js"));
  const broker: ServiceBroker = await helpers.startPlatform(
    // A long request timeout: under valgrind a call can take seconds (its timer costs the same).
    helpers.platformEnv({
      DATA_DIR: dataDir,
      REQUEST_TIMEOUT: "120000",
      METRICS_PORT: mode === "off" ? "off" : "0", // whatever BENCH_METRICS says
      ...(endpoint && { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }),
      ...(mode === "sampled" && { TRACE_SAMPLE_RATE: "0.1" }),
      ...(mode === "unsampled" && { TRACE_SAMPLE_RATE: "0" }),
    }),
  );
  const base = new URL(helpers.httpUrl(broker));
  // Ten accounts besides admin: the page's ten results. Made once per DATA_DIR (each create's
  // scrypt takes seconds under valgrind); later runs only log in.
  const seeded = path.join(dataDir, ".seeded");
  const { token } = await helpers.seed(base.origin, fs.existsSync(seeded) ? 0 : 10);
  fs.writeFileSync(seeded, "");
  const request = Buffer.from(
    `GET ${helpers.PAGE_PATH} HTTP/1.1\r\nHost: ${base.host}\r\nAuthorization: Bearer ${token}\r\n\r\n`,
  );
  await makeReads(Number(base.port), request, Number(warm));
  fs.writeFileSync(path.join(flags, "ready"), String(process.pid));
  await waitFor(path.join(flags, "go"));
  const cpu = process.cpuUsage();
  await makeReads(Number(base.port), request, Number(reads));
  // Natively (without valgrind) the window's CPU per read, user and system apart.
  const used = process.cpuUsage(cpu);
  const perRead = (us: number) => Number((us / Number(reads)).toFixed(2));
  fs.writeFileSync(path.join(flags, "done"), String(reconnects));
  console.log(
    JSON.stringify({
      mode,
      dist,
      reads: Number(reads),
      reconnects,
      userUs: perRead(used.user),
      systemUs: perRead(used.system),
      // The young generation's size: V8 sizes it as it runs, and a larger one than the last-level
      // cache makes each line allocated a miss in the cache simulation (CALLGRIND_SIM).
      newSpaceMB: Math.round(
        (v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_size ?? 0) / 2 ** 20,
      ),
    }),
  );
  // Left running until the window is dumped and instrumentation is off again.
  await waitFor(path.join(flags, "stop"));
  await broker.stop();
  await sdk?.shutdown();
  await stopAllChildren();
}

runBench(main, { platformFlags: false }); // under callgrind: CALLGRIND_NODE_FLAGS chooses node's flags
