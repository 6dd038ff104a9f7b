/**
 * A compliance check of one big device does not stall the platform (docs/security.md#stalls): the
 * evaluation runs in the configuration service's worker threads, so `GET /health`, probed every
 * 20 ms while the batch runs, answers within 100 ms. A device that cannot be evaluated within its
 * time budget (COMPLIANCE_BUDGET_MS) is reported `unreadable` with the reason, and its batch
 * completes.
 */
import v8 from "node:v8";
import vm from "node:vm";
import { probeWhile } from "../support/loop-probe";
import { ADMIN_PASSWORD, client, login, tempDir, type Client } from "../support/platform";
import { eventually, freePort, spawnServices, type ServiceProcess } from "../support/processes";

/** The largest wait for /health the platform may show while one heavy request runs. */
const MAX_PROBE_MS = 100;
/** Per-device time budget of the platform under test (the default is 10 s). */
const BUDGET_MS = 5000;

/**
 * The platform runs in a process of its own (`npm start`'s), as a user measures it: the probe then
 * sees the platform's event loop alone, not this test process's (which builds the inputs, and whose
 * heap holds every suite jest ran before this one: its collections are not the platform's pauses).
 */
let platform: ServiceProcess;
let baseUrl: string;
let admin: Client;

beforeAll(async () => {
  const port = await freePort();
  platform = spawnServices({
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: tempDir(),
    ADMIN_PASSWORD,
    COMPLIANCE_BUDGET_MS: String(BUDGET_MS),
  });
  baseUrl = `http://127.0.0.1:${port}`;
  await eventually(async () => (await fetch(`${baseUrl}/ready`)).status === 200, 30_000, "the platform");
  admin = client(baseUrl, await login(baseUrl));
}, 40_000);
afterAll(() => platform?.stop());

async function ok(reply: Promise<{ status: number; body: any; text: string }>) {
  const r = await reply;
  if (r.status !== 200) throw new Error(`${r.status} ${r.text.slice(0, 500)}`);
  return r.body;
}

/** A tree whose `base` node holds `spec`, and one backup of `device` holding `config`. */
async function seed(name: string, spec: string, device: string, config: string) {
  const tree = await ok(admin.post("/configuration_manager/configs", { name, deviceType: "ios" }));
  await ok(
    admin.put(`/configuration_manager/configs/${tree._id}/versions/initial/nodes`, {
      nodePath: "base",
      config: spec,
    }),
  );
  await ok(admin.post("/configuration_manager/backups", { deviceName: device, config }));
  return tree._id as string;
}

/**
 * A full garbage collection of this (the probing) process now, so the probe's own timings do not
 * include collecting the hundreds of thousands of strings the test built as its input.
 */
function collectSetupGarbage(): void {
  v8.setFlagsFromString("--expose-gc");
  (vm.runInNewContext("gc") as () => void)();
}

/** Runs one batch of `device` and waits for it to end: the heavy request, start to finish. */
async function runBatch(treeId: string, device: string) {
  const run = await ok(
    admin.post("/configuration_manager/compliance_reports", {
      treeId,
      version: "initial",
      devices: [device],
    }),
  );
  for (;;) {
    const batch = await ok(admin.get(`/configuration_manager/compliance_reports/batches/${run.batchId}`));
    if (batch.state === "complete" || batch.state === "error") {
      const reports = await ok(
        admin.get(`/configuration_manager/compliance_reports/batches/${run.batchId}/reports`),
      );
      return { batch, reports };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

test("3,000 spec lines against 60,000 config lines: checked, /health answering all along", async () => {
  // 12,000 interfaces of five lines; the spec asks for 1,000 of them (every 4th absent).
  const config = Array.from({ length: 12_000 }, (_, i) =>
    [`interface Gi0/${i}`, ` description p${i}`, " no shutdown", ` vlan ${i % 4000}`, "!"].join("\n"),
  ).join("\n");
  expect(config.split("\n")).toHaveLength(60_000);
  expect(config.length).toBeLessThanOrEqual(1_000_000);
  const spec = Array.from({ length: 1000 }, (_, i) =>
    [`interface Gi0/${i % 4 === 0 ? i + 100_000 : i}`, " description {/p\\d+/}", " no shutdown"].join("\n"),
  ).join("\n");
  const treeId = await seed("Stall 3k", spec, "big-rtr", config);
  collectSetupGarbage();

  const { result, maxLatencyMs, probes } = await probeWhile(baseUrl, () => runBatch(treeId, "big-rtr"));

  expect(result.batch).toMatchObject({ state: "complete", done: 1, devices: 1 });
  const [report] = result.reports;
  expect(report.totals).toEqual({ errors: 0, warnings: 250, infos: 0, passes: 750 * 3 });
  expect(report.issues.map((i: any) => i.kind)).toEqual(Array(250).fill("missing"));
  expect(probes).toBeGreaterThan(0);
  expect(maxLatencyMs).toBeLessThan(MAX_PROBE_MS);
}, 60_000);

test("one device at the documented maxima: unreadable over its time budget, /health answering all along", async () => {
  // 200,000 config lines in 0.8 MB; 10,000 spec lines whose regex first word no line matches, so
  // each is looked for at every line of the config: far more work than the budget allows.
  const config = Array.from({ length: 200_000 }, (_, i) => `w${i % 100}`).join("\n");
  expect(config.split("\n")).toHaveLength(200_000);
  expect(config.length).toBeLessThanOrEqual(800_000);
  const spec = Array.from({ length: 10_000 }, (_, i) => `{/w\\d+z${i}/}`).join("\n");
  const treeId = await seed("Stall maxima", spec, "max-rtr", config);
  collectSetupGarbage();

  const started = Date.now();
  const { result, maxLatencyMs } = await probeWhile(baseUrl, () => runBatch(treeId, "max-rtr"));

  expect(result.batch).toMatchObject({ state: "complete", done: 1, totals: { errors: 1, passes: 0 } });
  const [report] = result.reports;
  expect(report).toMatchObject({ compliant: false, score: 0, remediation: "" });
  expect(report.issues).toEqual([
    expect.objectContaining({
      kind: "unreadable",
      severity: "error",
      found: `evaluation took longer than its time budget of ${BUDGET_MS} ms (COMPLIANCE_BUDGET_MS)`,
    }),
  ]);
  // The documented bound of a device's check: its budget (plus the batch's own store round trips).
  expect(Date.now() - started).toBeLessThan(BUDGET_MS + 5000);
  expect(maxLatencyMs).toBeLessThan(MAX_PROBE_MS);
}, 60_000);
