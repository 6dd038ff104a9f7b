/**
 * LOG_FORMAT=json: the whole platform in a process of its own writes one JSON object a line, each
 * with time, level, service and node; a line written while serving a request carries that request's
 * id and its trace id; no line holds the admin password or a session token.
 */
import { createHash } from "node:crypto";
import { ADMIN_PASSWORD, client, login, tempDir } from "../support/platform";
import { eventually, freePort, spawnServices, type ServiceProcess } from "../support/processes";

let proc: ServiceProcess;
let base: string;

beforeAll(async () => {
  const port = await freePort();
  proc = spawnServices({
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: tempDir(),
    ADMIN_PASSWORD,
    LOG_FORMAT: "json",
    LOG_LEVEL: "info",
  });
  base = `http://127.0.0.1:${port}`;
  await eventually(async () => (await fetch(`${base}/ready`)).status === 200, 20_000, "the platform");
}, 30_000);

afterAll(() => proc?.stop());

test("one JSON object a line; a request's lines carry its request and trace ids; no secret", async () => {
  const token = await login(base);
  const api = client(base, token);
  const adapter = {
    properties: {
      name: "down",
      type: "Application",
      properties: { id: "down", type: "NSO", properties: { host: "127.0.0.1", port: 1, timeout: 2000 } },
    },
  };
  expect((await api.post("/adapters", adapter)).status).toBe(200);
  const lookup = await api.post(
    "/mop/deviceObjects",
    { options: {} },
    { headers: { "x-request-id": "req-json-log-1" } },
  );
  // Its only adapter cannot be reached: the lookup fails naming it (502), and logs why.
  expect(lookup.status).toBe(502);
  await eventually(async () => proc.output().includes("left out"), 5000, "the lookup's log line");

  const lines = proc
    .output()
    .split("\n")
    .filter((l) => l.trim() !== "");
  expect(lines.length).toBeGreaterThan(5);
  const entries = lines.map((line) => {
    const entry = JSON.parse(line);
    expect(entry).toEqual(
      expect.objectContaining({
        time: expect.any(String),
        level: expect.any(String),
        node: expect.any(String),
        msg: expect.any(String),
      }),
    );
    return entry;
  });
  const left = entries.find((e) => e.msg.includes("adapter 'down' left out"));
  expect(left).toMatchObject({
    level: "warn",
    service: "devices",
    requestId: "req-json-log-1",
    traceId: createHash("sha256").update("req-json-log-1").digest("hex").slice(0, 32),
  });
  const text = proc.output();
  expect(text).not.toContain(ADMIN_PASSWORD);
  expect(text).not.toContain(token);
});
