/**
 * What metrics cost a read, measured in one process (docs/performance.md, "What metrics cost,
 * piece by piece"): on a shared machine the bench's separate autocannon and its quiet-second waits
 * cannot resolve a few per cent, and CPU per request moves with the request rate. Here the whole
 * platform and a raw keep-alive socket client (a few µs a request) share one process; its CPU per
 * request is measured over 1-s slices and the smallest slice is the figure (other work only adds).
 *
 *   node dist/bench/support/observability-inprocess.js off|metrics [slices, 10]
 *
 * With `metrics` the metrics port is scraped once a second from this process, as Prometheus would.
 * Run it alternating builds and modes; compare the minimum of each.
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { ServiceBroker } from "moleculer";
import { PAGE_PATH, httpUrl, platformEnv, seed, startPlatform } from "./platform";
import { runBench } from "./main";

const mode = process.argv[2] === "metrics" ? "metrics" : "off";
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

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "obs-inprocess-"));
  const broker: ServiceBroker = await startPlatform(
    platformEnv({ DATA_DIR: dataDir, ...(mode === "metrics" && { METRICS_PORT: "0" }) }),
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
      mode === "metrics"
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
    console.log(JSON.stringify({ mode, cpuUsPerRequest: { min: at(0), q1: at(0.25), median: at(0.5) } }));
  } finally {
    await broker.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

runBench(main);
