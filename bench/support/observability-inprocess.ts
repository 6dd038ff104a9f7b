/**
 * What metrics cost a read, measured in one process (docs/performance.md, "What metrics cost,
 * piece by piece"): on a shared machine the bench's separate autocannon and its quiet-second waits
 * cannot resolve a few per cent, and CPU per request moves with the request rate. Here the whole
 * platform and a raw keep-alive socket client (a few µs a request) share one process; its CPU per
 * request is measured over 1-s slices and the smallest slice is the figure (other work only adds).
 *
 *   node dist/bench/support/observability-inprocess.js off|metrics|sampled|traced [slices, 10]
 *
 * With `metrics` the metrics port is scraped once a second from this process, as Prometheus would.
 * `sampled` is metrics and 10% of requests traced, `traced` metrics and every request traced, both
 * exported over OTLP/HTTP to a receiver in a child process (bench/support/otlp-sink-node.ts: its
 * CPU is not this process's). Run it alternating builds and modes; compare the minimum of each.
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { ServiceBroker } from "moleculer";
import { PAGE_PATH, httpUrl, platformEnv, seed, startPlatform } from "./platform";
import { runBench } from "./main";
import { spawnTracked, stopAllChildren } from "./children";
import { startTelemetry } from "../../shared/telemetry";

const MODES = ["off", "metrics", "sampled", "traced"] as const;
const mode = MODES.find((m) => m === process.argv[2]) ?? "off";
const slices = Number(process.argv[3] ?? 10);
const CONNECTIONS = 16;

/** One connection asking for `request` again as soon as each answer is complete. */
function keepAsking(port: number, request: Buffer, answered: () => void): Promise<net.Socket> {
  const socket = net.connect(port, "127.0.0.1");
  socket.setNoDelay(true);
  let buffered = "";
  socket.on("data", (chunk) => {
    buffered += chunk.toString("latin1");
    for (;;) {
      const head = buffered.indexOf("\r\n\r\n");
      if (head < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, head))?.[1] ?? NaN);
      if (!buffered.startsWith("HTTP/1.1 200") || Number.isNaN(length))
        throw new Error(`unexpected answer: ${buffered.slice(0, 200)}`);
      if (buffered.length < head + 4 + length) return;
      buffered = buffered.slice(head + 4 + length);
      answered();
      socket.write(request);
    }
  });
  return new Promise((resolve) => socket.once("connect", () => resolve(socket)));
}

/** The OTLP receiver in a child process; answers its endpoint. */
function startSink(): Promise<string> {
  const child = spawnTracked(process.execPath, [path.join(__dirname, "otlp-sink-node.js")], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", (m: { port: number }) => resolve(`http://127.0.0.1:${m.port}`));
    child.once("exit", (code) => reject(new Error(`otlp sink exited ${code}`)));
  });
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "obs-inprocess-"));
  const endpoint = mode === "sampled" || mode === "traced" ? await startSink() : null;
  if (endpoint) process.env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint;
  const sdk = endpoint ? startTelemetry("obs-inprocess") : null;
  const broker: ServiceBroker = await startPlatform(
    platformEnv({
      DATA_DIR: dataDir,
      ...(mode !== "off" && { METRICS_PORT: "0" }),
      ...(endpoint && { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }),
      ...(mode === "sampled" && { TRACE_SAMPLE_RATE: "0.1" }),
    }),
  );
  try {
    const base = new URL(httpUrl(broker));
    const { token } = await seed(base.origin, 50);
    const request = Buffer.from(
      `GET ${PAGE_PATH} HTTP/1.1\r\nHost: ${base.host}\r\nAuthorization: Bearer ${token}\r\n\r\n`,
    );
    let answered = 0;
    const sockets = await Promise.all(
      Array.from({ length: CONNECTIONS }, () => keepAsking(Number(base.port), request, () => answered++)),
    );
    for (const socket of sockets) socket.write(request);
    const scrapeUrl =
      mode !== "off"
        ? `http://127.0.0.1:${(broker.metrics as any).reporter[0].server.address().port}/metrics`
        : null;
    const scraper =
      scrapeUrl &&
      setInterval(
        () => void fetch(scrapeUrl, { headers: { "accept-encoding": "gzip" } }).then((r) => r.arrayBuffer()),
        1000,
      );
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const perRequest: number[] = [];
    for (let i = 0; i < slices; i++) {
      const cpu = process.cpuUsage();
      const before = answered;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const used = process.cpuUsage(cpu);
      perRequest.push((used.user + used.system) / (answered - before));
    }
    if (scraper) clearInterval(scraper);
    for (const socket of sockets) socket.destroy();
    perRequest.sort((a, b) => a - b);
    const at = (q: number) => Number(perRequest[Math.floor(q * (perRequest.length - 1))].toFixed(2));
    console.log(
      JSON.stringify({ mode, cpuUsPerRequest: { min: at(0), q1: at(0.25), median: at(0.5) }, answered }),
    );
  } finally {
    await broker.stop();
    await sdk?.shutdown();
    await stopAllChildren();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

runBench(main);
