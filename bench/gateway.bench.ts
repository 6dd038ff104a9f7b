/**
 * Gateway throughput: `npm run bench:gateway` (docs/performance.md).
 *
 * Five scenarios under the same autocannon load, in BENCH_ROUNDS interleaved rounds, each judged
 * by its best round (support/report.ts says why), so the figures compare:
 *   bare        node:http answering the accounts page's bytes (the ceiling on Node)
 *   floor       moleculer-web + a trivial action, one broker           (framework floor, in-process)
 *   floor-nats  the same with the action on a broker in another process over NATS
 *   ours        the whole platform on one broker, GET /user-management/accounts?limit=10
 *   ours-nats   gateway here, store+accounts in `node dist/app/main.js` over NATS
 *   ours-write, floor-write   a form create through ours, and POST /floor on the floor (in-process)
 *   ours-write-keyed   the form create with an Idempotency-Key of its own per request (in-process)
 * and (BENCH_TUNING=0 skips it) the NATS floor under each serializer x disableBalancer, then ours
 * over NATS with the best of them when that is not the default. Table on stdout, JSON in
 * bench/results/gateway.json.
 *
 * Env: BENCH_DURATION (s, 10), BENCH_WARMUP (s, 2), BENCH_CONNECTIONS (32), BENCH_ACCOUNTS (50),
 * BENCH_TUNING (1), BENCH_ROUNDS (3), BENCH_QUIET_WAIT (s, 20), BENCH_ONLY (scenario ids),
 * BENCH_PROFILE_DIR, NATS_URL.
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { ServiceBroker } from "moleculer";
import { startBare } from "./support/bare";
import { scratchSpace, spawnTracked, stopChild } from "./support/children";
import { runBench } from "./support/main";
import {
  DEFAULT_TUNING,
  floorBrokerOptions,
  floorGateway,
  floorService,
  type BusTuning,
} from "./support/floor";
import { measure, type LoadRequest, type LoadSettings } from "./support/load";

/**
 * The write beside the read: a form create, each with a fresh name, as an `apiwrite` client sends it
 * (the floor answers the same body from `POST /floor`). A form rather than an account: an account
 * create spends ~50 ms in scrypt, which would measure the hash, not the gateway.
 */
const WRITE: LoadRequest = {
  method: "POST",
  body: JSON.stringify({ name: "bench-form-[<id>]", children: [], elements: [], groups: [] }),
  idReplacement: true,
};
const JSON_BODY = { "Content-Type": "application/json" };
import {
  PAGE_PATH,
  httpUrl,
  platformEnv,
  profileArgs,
  seed,
  spawnPlatformNode,
  startPlatform,
} from "./support/platform";
import {
  DEFAULT_ID,
  printReport,
  ratios,
  scenarios,
  tuningId,
  tuningName,
  tuningVerdict,
  type Row,
  resultsDir,
} from "./support/report";
import { intEnv } from "./support/env";

const settings: LoadSettings = {
  connections: intEnv("BENCH_CONNECTIONS", 32, 1),
  durationS: intEnv("BENCH_DURATION", 10, 1),
  warmupS: intEnv("BENCH_WARMUP", 2, 0),
  // The machine is shared: before each scenario wait up to this long for the others to pause.
  quietWaitS: intEnv("BENCH_QUIET_WAIT", 20, 0),
};
const ACCOUNTS = intEnv("BENCH_ACCOUNTS", 50, 10);
const TUNING = process.env.BENCH_TUNING !== "0";
const ROUNDS = intEnv("BENCH_ROUNDS", 3, 1);
const NATS_URL = process.env.NATS_URL || "nats://127.0.0.1:4222";
/** A namespace per run and per scenario: nothing else on the bus can answer our calls. */
const RUN_ID = `bench-${process.pid}-${Date.now().toString(36)}`;

/**
 * BENCH_ONLY=ours,floor-nats*,...: measure just these scenario ids (a trailing * is a prefix), e.g.
 * while profiling one. `ours` is always started: its page is what the baselines serve.
 */
const ONLY = process.env.BENCH_ONLY?.split(",").map((s) => s.trim());
const wanted = (id: string) =>
  !ONLY || ONLY.some((o) => id === o || (o.endsWith("*") && id.startsWith(o.slice(0, -1))));

const rows: Row[] = [];

// Temp dirs: removed in `finally`, and on any exit (the handler is synchronous, so rmSync). A
// SIGKILLed bench cannot clean up: its dir names its pid, and the next run removes it.
function removeStaleTmpDirs(): void {
  for (const name of fs.readdirSync(os.tmpdir())) {
    const pid = Number(/^gateway-bench-(\d+)-/.exec(name)?.[1]);
    if (!pid || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ESRCH")
        fs.rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
    }
  }
}
removeStaleTmpDirs();
const dataDir = scratchSpace(`gateway-bench-${process.pid}-`);

function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 4222) });
    socket.setTimeout(1000);
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => (socket.destroy(), resolve(false)));
  });
}

async function run(
  row: Omit<Row, "result">,
  url: string,
  headers: Record<string, string> = {},
  request?: LoadRequest,
): Promise<void> {
  process.stdout.write(`- ${row.label} ... `);
  const result = await measure(url, headers, settings, request);
  rows.push({ ...row, result });
  const { reqPerSec, p50Ms, p99Ms, cpu } = result;
  const noisy = (cpu.others ?? 0) > 0.1 ? ` (others used ${Math.round(cpu.others! * 100)}% CPU: noisy)` : "";
  console.log(`${reqPerSec.toFixed(0)} req/s, p50 ${p50Ms} ms, p99 ${p99Ms} ms${noisy}`);
}

/** ours, in one process; also yields the real page body the baselines serve. */
async function ours(round: number): Promise<{ body: Buffer; type: string }> {
  const broker = await startPlatform(platformEnv({ DATA_DIR: dataDir() }));
  try {
    const base = httpUrl(broker);
    const { token, page } = await seed(base, ACCOUNTS);
    if (wanted("ours"))
      await run({ id: "ours", label: "ours, in-process", round }, base + PAGE_PATH, {
        Authorization: `Bearer ${token}`,
      });
    if (wanted("ours-write"))
      await run(
        { id: "ours-write", label: "ours, in-process, form create", round },
        `${base}/formbuilder/forms`,
        { Authorization: `Bearer ${token}`, ...JSON_BODY },
        WRITE,
      );
    // A client's key always gets its record (shared/idempotency.ts): what a keyed create costs.
    if (wanted("ours-write-keyed"))
      await run(
        { id: "ours-write-keyed", label: "ours, in-process, form create, keyed", round },
        `${base}/formbuilder/forms`,
        { Authorization: `Bearer ${token}`, ...JSON_BODY, "Idempotency-Key": "bench-[<id>]" },
        WRITE,
      );
    return page;
  } finally {
    await broker.stop();
  }
}

async function bare(page: { body: Buffer; type: string }, round: number): Promise<void> {
  const server = await startBare(page.body, page.type);
  try {
    await run({ id: "bare", label: "bare node:http", round }, server.url);
  } finally {
    await server.close();
  }
}

async function floorInProcess(body: unknown, round: number): Promise<void> {
  const broker = new ServiceBroker(floorBrokerOptions({ nodeID: "floor-local" }));
  broker.createService(floorService(body));
  broker.createService(floorGateway());
  await broker.start();
  try {
    if (wanted("floor"))
      await run({ id: "floor", label: "floor, in-process", round }, `${httpUrl(broker)}/floor`);
    if (wanted("floor-write"))
      await run(
        { id: "floor-write", label: "floor, in-process, POST", round },
        `${httpUrl(broker)}/floor`,
        JSON_BODY,
        WRITE,
      );
  } finally {
    await broker.stop();
  }
}

async function floorOverNats(body: Buffer, row: Omit<Row, "result"> & { tuning: BusTuning }): Promise<void> {
  const namespace = `${RUN_ID}-${row.id}-${row.round}`;
  const child = spawnTracked(
    process.execPath,
    [...profileArgs(), path.join(__dirname, "support/floor-node.js")],
    {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      env: {
        ...process.env,
        BENCH_NATS_URL: NATS_URL,
        BENCH_NAMESPACE: namespace,
        BENCH_TUNING: JSON.stringify(row.tuning),
        BENCH_BODY: body.toString(),
      },
    },
  );
  let broker: ServiceBroker | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("floor-node not ready within 20 s")), 20_000);
      child.once("message", () => (clearTimeout(timer), resolve()));
      child.once("exit", (code) => (clearTimeout(timer), reject(new Error(`floor-node exited ${code}`))));
    });
    broker = new ServiceBroker(
      floorBrokerOptions({
        nodeID: `floor-gw-${process.pid}`,
        namespace,
        natsUrl: NATS_URL,
        tuning: row.tuning,
      }),
    );
    broker.createService(floorGateway());
    await broker.start();
    await broker.waitForServices("floor", 20_000);
    await run(row, `${httpUrl(broker)}/floor`);
  } finally {
    await broker?.stop();
    await stopChild(child);
  }
}

async function oursOverNats(row: Omit<Row, "result"> & { tuning: BusTuning }): Promise<void> {
  const bus = {
    TRANSPORTER: NATS_URL,
    NAMESPACE: `${RUN_ID}-${row.id}-${row.round}`,
    SERIALIZER: row.tuning.serializer,
  };
  // disableBalancer is no env setting yet: only then the bench applies it on top of app/broker-options.ts.
  const extra = row.tuning.disableBalancer === DEFAULT_TUNING.disableBalancer ? undefined : row.tuning;
  const child = spawnPlatformNode(
    platformEnv({ ...bus, SERVICES: "store,accounts", DATA_DIR: dataDir(), NODE_ID: `${row.id}-services` }),
    extra,
  );
  let broker: ServiceBroker | undefined;
  try {
    const exited = new Promise<never>((_, reject) =>
      child.once("exit", (code) => reject(new Error(`platform node exited ${code}`))),
    );
    exited.catch(() => undefined);
    broker = await startPlatform(
      platformEnv({ ...bus, SERVICES: "gateway", DATA_DIR: dataDir(), NODE_ID: `${row.id}-gateway` }),
      extra,
    );
    await Promise.race([broker.waitForServices(["accounts"], 30_000), exited]);
    const base = httpUrl(broker);
    const { token } = await seed(base, ACCOUNTS);
    await run(row, base + PAGE_PATH, { Authorization: `Bearer ${token}` });
  } finally {
    await broker?.stop();
    await stopChild(child);
  }
}

/** Serializers whose packages are installed (moleculer loads them lazily and fails otherwise). */
function tuningCombos(): BusTuning[] {
  const packages: Record<BusTuning["serializer"], string> = {
    JSON: "",
    CBOR: "cbor-x",
    MsgPack: "msgpack5",
    Notepack: "notepack.io",
  };
  const installed = (name: string) => {
    try {
      return !name || Boolean(require.resolve(name));
    } catch {
      return false;
    }
  };
  return (Object.keys(packages) as BusTuning["serializer"][])
    .filter((s) => installed(packages[s]))
    .flatMap((serializer) => [false, true].map((disableBalancer) => ({ serializer, disableBalancer })));
}

async function main(): Promise<void> {
  if (Number(process.versions.node.split(".")[0]) < 22)
    throw new Error(`Node >= 22 needed (this is ${process.version}): use npm run bench:gateway`);
  const nats = await reachable(NATS_URL);
  if (!nats) console.warn(`No NATS at ${NATS_URL}: the NATS scenarios are skipped`);
  console.log(`Gateway bench ${RUN_ID}: ${ACCOUNTS} accounts, ${ROUNDS} rounds, node ${process.version}`);

  const combos = nats ? (TUNING ? tuningCombos() : [DEFAULT_TUNING]) : [];
  let page: { body: Buffer; type: string } | undefined;
  // Interleaved rounds: a busy minute on the shared machine hits one round of every scenario.
  for (let round = 1; round <= ROUNDS; round++) {
    console.log(`round ${round}`);
    // ours first: its real answer (of round 1) is what every baseline serves.
    if (!page || wanted("ours") || wanted("ours-write") || wanted("ours-write-keyed")) {
      const answer = await ours(round);
      page ??= answer;
    }
    if (wanted("bare")) await bare(page, round);
    if (wanted("floor") || wanted("floor-write"))
      await floorInProcess(JSON.parse(page.body.toString()), round);
    for (const tuning of combos) {
      const id = tuningId(tuning);
      const label =
        id === DEFAULT_ID ? "floor, NATS (JSON, balancer on)" : `floor, NATS (${tuningName(tuning)})`;
      if (wanted(id)) await floorOverNats(page.body, { id, label, tuning, round });
    }
    if (nats && wanted("ours-nats"))
      await oursOverNats({
        id: "ours-nats",
        label: "ours, NATS (runner.js, JSON, balancer on)",
        tuning: DEFAULT_TUNING,
        round,
      });
  }
  if (!page) throw new Error("no page was fetched");

  const verdict = TUNING ? tuningVerdict(scenarios(rows), combos) : null;
  const best = verdict?.best;
  if (best && tuningId(best) !== DEFAULT_ID && wanted("ours-nats-tuned")) {
    // Ours with the best setting, interleaved with more rounds of ours as it is, for a fair pair.
    for (let round = 1; round <= ROUNDS; round++) {
      const label = `ours, NATS (${tuningName(best)})`;
      await oursOverNats({ id: "ours-nats-tuned", label, tuning: best, round });
      if (wanted("ours-nats"))
        await oursOverNats({
          id: "ours-nats",
          label: "ours, NATS (runner.js, JSON, balancer on)",
          tuning: DEFAULT_TUNING,
          round: ROUNDS + round,
        });
    }
  }

  const list = scenarios(rows);
  const r = ratios(list, best);
  printReport(list, settings, r);
  if (verdict) {
    const sign = verdict.liftPct >= 0 ? "+" : "";
    console.log(
      `\nbest NATS floor setting: ${tuningName(verdict.best)}, ${sign}${verdict.liftPct}% req/s over JSON with the ` +
        `balancer on (best rounds), server CPU ${verdict.cpuUsPerReq} vs ${verdict.defaultCpuUsPerReq} µs/req: ` +
        (verdict.clear ? "a clear gain" : "not a clear gain (within run-to-run noise)"),
    );
  }

  // A partial run (BENCH_ONLY) must not overwrite the figures of the last full one.
  const out = path.join(resultsDir(), `${ONLY ? "gateway-partial" : "gateway"}.json`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  // The page every scenario served, for looking at (or for micro-benchmarks of its encoding).
  fs.writeFileSync(path.join(path.dirname(out), "accounts-page.json"), page.body);
  const json = {
    runId: RUN_ID,
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    settings: {
      ...settings,
      rounds: ROUNDS,
      accounts: ACCOUNTS,
      path: PAGE_PATH,
      bodyBytes: page.body.length,
      nats: NATS_URL,
    },
    scenarios: list,
    ratios: r,
    tuningVerdict: verdict,
    rounds: rows.map((row) => ({ ...row, label: row.label.trim() })),
  };
  fs.writeFileSync(out, JSON.stringify(json, null, 2) + "\n");
  console.log(`\nwritten: ${path.relative(process.cwd(), out)}`);
}

runBench(main);
