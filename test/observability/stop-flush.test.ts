/**
 * A platform process stopped by SIGTERM exports the spans it has not sent yet before it exits
 * (app/shutdown.ts `afterStop`, app/main.ts): a rolling restart loses no trace. The batch
 * processor's delay is made long, so only the stop's flush can send them.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { spawnPlatform } from "../support/processes";

const bodies: Buffer[] = [];
const collector = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks);
    bodies.push(req.headers["content-encoding"] === "gzip" ? gunzipSync(body) : body);
    res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
  });
});

beforeAll(() => new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve)));
afterAll(() => new Promise((resolve) => collector.close(resolve)));

test("SIGTERM: the spans still waiting for their batch are exported before the process exits", async () => {
  const platform = await spawnPlatform({
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
    OTEL_BSP_SCHEDULE_DELAY: "600000",
    TRACE_SAMPLE_RATE: "1",
    // No log file: its stream's close gave the old stop an I/O turn in which the export went out.
    LOG_FILE: "",
  });
  const child = platform.process.child;
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  for (let i = 0; i < 3; i++) expect((await fetch(`${platform.baseUrl}/health`)).status).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(bodies).toHaveLength(0);

  child.kill("SIGTERM");
  expect(await exited).toBe(0);
  const sent = Buffer.concat(bodies);
  // The request spans' names ("GET /health") are in the OTLP bytes as UTF-8.
  expect(sent.includes(Buffer.from("GET /health"))).toBe(true);
}, 60_000);
