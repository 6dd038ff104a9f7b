/**
 * Ours beside what a Node team would pick instead: `npm run bench:peers` (docs/performance.md, "Peers").
 *
 * The engine workload of bench:engine — a job of 10 sequential no-op steps, BENCH_CONCURRENCY (32)
 * jobs in flight in a closed loop for the peak, then BENCH_PACED_JOBS started open loop at half that
 * peak for the start-to-complete p99 — on:
 *   ours            bench:engine's shapes (./engine/ours.ts): in-process, and two engine replicas
 *                   over NATS (store, two engines and the gateway in four processes), each engine
 *                   with the no-op task service in its process, as each peer's worker runs its
 *                   processor (`nats-local`)
 *   BullMQ          chain (each step's processor adds the next step) and FlowProducer (the 10 steps
 *                   as one flow), Redis at PEERS_REDIS_URL, 1 and 2 worker processes
 *   graphile-worker each step's task adds the next, PostgreSQL at PEERS_PG_URL, 1 and 2 workers
 * With `ours-durable` (in BENCH_ONLY's default), ours in-process once more in durable mode
 * (STORE_FSYNC=true: a write is acknowledged after the fdatasync of its log line, group commit),
 * against ours by default and against graphile-worker (PostgreSQL flushes every commit). With
 * `ours-bus` (in the default too), the two replicas once more with the task only in the gateway's
 * process (`nats`): every task's call crosses the bus, the shape rounds before the twenty-sixth
 * measured, against the two replicas above.
 * Then the schedules workload of bench:scheduler (./scheduler/ours.ts): BENCH_SCHEDULES due evenly
 * within BENCH_SPREAD_S, firing lag with 1 and 2 scheduler replicas, beside BullMQ delayed jobs with
 * 1 and 2 workers. A peer whose server does not answer is skipped, loudly. Prints the figures and
 * the ratios ours / peer; JSON in bench/results/peers.json.
 *
 * Env: BENCH_JOBS (1500 per closed loop), BENCH_SECONDS (longest closed loop, 60),
 * BENCH_CONCURRENCY (32), BENCH_PACED_JOBS (2000: the p99 of 500 was the fifth slowest job), BENCH_PACED_RATE
 * (0: half of each engine's own peak; above 0, that many jobs/s for every engine, for an A/B at the same
 * load: ./engine/workload.ts openLoopRate), BENCH_WARMUP_JOBS (100, at least), BENCH_WARMUP_S
 * (10, at least; every engine warms up alike: ./engine/workload.ts, warmLoop), BENCH_QUIET_WAIT (s, 10),
 * BENCH_SCHEDULES (10000), BENCH_SPREAD_S (60), BENCH_LEAD_S (5), BENCH_WORKERS (1,2), BENCH_REPEAT (1: rounds
 * of the engine rows, alternated, the tables their medians, then each round's ratios paired),
 * BENCH_ONLY (ours,ours-durable,ours-bus,bullmq-chain,bullmq-flow,graphile,schedules), PEERS_REDIS_URL, PEERS_PG_URL, NATS_URL,
 * BENCH_STAGES (1: where ours' slow jobs of the half-peak run waited, in one process: ./engine/stages.ts),
 * BENCH_STAGES_PROFILE (1, with BENCH_STAGES: what the main thread ran meanwhile: ./engine/stages-profile.ts).
 * A smoke run: BENCH_JOBS=100 BENCH_PACED_JOBS=50 BENCH_WARMUP_JOBS=10 BENCH_WARMUP_S=0 BENCH_QUIET_WAIT=0
 * BENCH_SCHEDULES=200 BENCH_SPREAD_S=3 BENCH_LEAD_S=2.
 */
import { writeResults } from "./support/report";
import { scratchSpace, stopAllChildren } from "./support/children";
import { runBench } from "./support/main";
import { intEnv } from "./support/env";
import { runOurs, type OursResult, type Shape } from "./engine/ours";
import { openLoopName, overPeak } from "./engine/workload";
import { runOurSchedules, type ScheduleResult } from "./scheduler/ours";
import { PEERS, PEER_LABELS, STEPS, type PeerId } from "./peers/peers";
import { runBullDelayed, runPeer, type PeerResult } from "./peers/run";
import { probePostgres, probeRedis, serversFromEnv, type Probe } from "./peers/servers";

const JOBS = intEnv("BENCH_JOBS", 1500, 10);
const MAX_MS = intEnv("BENCH_SECONDS", 60, 1) * 1000;
const CONCURRENCY = intEnv("BENCH_CONCURRENCY", 32, 1);
const PACED_JOBS = intEnv("BENCH_PACED_JOBS", 2000, 0);
/** The open loop's jobs/s for every engine; 0: half of each one's own peak (engine/workload.ts openLoopRate). */
const PACED_RATE = intEnv("BENCH_PACED_RATE", 0, 0);
const OPEN_LOOP = openLoopName(PACED_RATE);
const WARMUP = intEnv("BENCH_WARMUP_JOBS", 100, 1);
const WARMUP_MS = intEnv("BENCH_WARMUP_S", 10, 0) * 1000;
const QUIET_WAIT_S = intEnv("BENCH_QUIET_WAIT", 10, 0);
const SCHEDULES = intEnv("BENCH_SCHEDULES", 10_000, 10);
const SPREAD_MS = intEnv("BENCH_SPREAD_S", 60, 1) * 1000;
const LEAD_MS = intEnv("BENCH_LEAD_S", 5, 1) * 1000;
const WORKERS = (process.env.BENCH_WORKERS || "1,2").split(",").map(Number);
/** Rounds of the engine rows, alternated (ours first, then the peers first, ...); figures are medians. */
const REPEAT = intEnv("BENCH_REPEAT", 1, 1);
const ONLY = process.env.BENCH_ONLY?.split(",").map((s) => s.trim());
const NATS_URL = process.env.NATS_URL || "nats://127.0.0.1:4222";
const RUN_ID = `peers${process.pid}${Date.now().toString(36)}`;
const servers = serversFromEnv();
const dataDir = scratchSpace("peers-bench-");

if (WORKERS.some((w) => w !== 1 && w !== 2)) throw new Error("BENCH_WORKERS lists 1 and/or 2");
const wanted = (id: string) => !ONLY || ONLY.includes(id);

/** One row of the engine table: ours or a peer, 1 or 2 workers. */
interface Row {
  who: "ours" | "ours-durable" | "ours-bus" | PeerId;
  workers: number;
  /** Its round (BENCH_REPEAT): rows of one round ran one after the other. */
  round: number;
  transitionsPerSec: number;
  halfPeakP99Ms: number | null;
  failed: number;
  others: number | null;
  detail: OursResult | PeerResult;
}

const rows: Row[] = [];
const schedules: { who: "ours" | "bullmq-delayed"; result: ScheduleResult }[] = [];
const skipped: string[] = [];
const durability: string[] = [];

/** The closed loop's pace in its first and last third, in transitions/s (a warm-up too short shows). */
function steadiness(t: { first: number; last: number } | null): string {
  return t
    ? ` (first third ${fmt(Math.round(t.first * STEPS))}, last ${fmt(Math.round(t.last * STEPS))})`
    : "";
}

function noteOthers(others: number | null | undefined): string {
  return (others ?? 0) > 0.1 ? ` (other processes used ${Math.round(others! * 100)}% CPU: noisy)` : "";
}

/**
 * Ours, `workers` 1 (in one process) or 2 (two engine replicas over NATS); `variant` durable (in one
 * process, STORE_FSYNC=true) or bus (two replicas, the task's calls over the bus).
 */
async function ours(workers: number, round: number, variant?: "durable" | "bus"): Promise<void> {
  const durable = variant === "durable";
  const shape: Shape = workers === 1 ? "in-process" : variant === "bus" ? "nats" : "nats-local";
  if (durable) process.stdout.write("- ours in durable mode (STORE_FSYNC=true): ");
  const r = await runOurs(shape, {
    env: durable ? { STORE_FSYNC: "true" } : undefined,
    jobs: JOBS,
    concurrency: CONCURRENCY,
    finish: 0,
    warmupJobs: WARMUP,
    warmupMs: WARMUP_MS,
    maxMs: MAX_MS,
    quietWaitS: QUIET_WAIT_S,
    pacedJobs: PACED_JOBS,
    pacedRate: PACED_RATE,
    client: "child",
    natsUrl: NATS_URL,
    runId: RUN_ID,
    dataDir,
  });
  console.log(
    `${r.transitionsPerSec} transitions/s${steadiness(r.thirds)}; ${OPEN_LOOP} p99 ${r.halfPeak?.p99Ms ?? "n/a"} ms${overPeak(r)}${noteOthers(r.cpu?.others)}`,
  );
  rows.push({
    who: variant ? `ours-${variant}` : "ours",
    workers,
    round,
    transitionsPerSec: r.transitionsPerSec,
    halfPeakP99Ms: r.halfPeak?.p99Ms ?? null,
    failed: r.failed + (r.halfPeak?.failed ?? 0),
    others: r.cpu?.others ?? null,
    detail: r,
  });
}

async function peer(id: PeerId, workers: number, round: number): Promise<void> {
  process.stdout.write(`- ${PEER_LABELS[id]}, ${workers} worker process(es): `);
  const r = await runPeer(id, workers, {
    jobs: JOBS,
    concurrency: CONCURRENCY,
    warmupJobs: WARMUP,
    warmupMs: WARMUP_MS,
    maxMs: MAX_MS,
    quietWaitS: QUIET_WAIT_S,
    pacedJobs: PACED_JOBS,
    pacedRate: PACED_RATE,
    servers,
    workersIn: "processes",
    runId: RUN_ID,
  });
  console.log(
    `${r.transitionsPerSec} transitions/s${steadiness(r.thirds)}; ${OPEN_LOOP} p99 ${r.halfPeak?.p99Ms ?? "n/a"} ms${overPeak(r)}; ` +
      `jobs ended per worker ${r.endsPerWorker.join(" / ")}${noteOthers(r.cpu?.others)}`,
  );
  rows.push({
    who: id,
    workers,
    round,
    transitionsPerSec: r.transitionsPerSec,
    halfPeakP99Ms: r.halfPeak?.p99Ms ?? null,
    failed: r.failed + (r.halfPeak?.failed ?? 0),
    others: r.cpu?.others ?? null,
    detail: r,
  });
}

const fmt = (n: number | null | undefined) =>
  n == null || Number.isNaN(n) ? "n/a" : n.toLocaleString("en-US");
const ratio = (a: number | null | undefined, b: number | null | undefined) =>
  a && b ? `${(a / b).toFixed(2)}x` : "n/a";

/** The engine workload's figures, then its ratios ours / peer. */
function engineTables(
  cols: ("ours" | PeerId)[],
  find: (who: string, workers: number) => Row | undefined,
  shapeName: (workers: number) => string,
): void {
  console.log(`\n| | ${cols.map((c) => (c === "ours" ? "ours" : PEER_LABELS[c])).join(" | ")} |`);
  console.log(`|---|${cols.map(() => "---").join("|")}|`);
  for (const w of WORKERS) {
    const cells = (pick: (r: Row) => number | null) =>
      cols.map((c) => fmt(find(c, w) ? pick(find(c, w)!) : null));
    console.log(`| ${shapeName(w)}: step transitions/s | ${cells((r) => r.transitionsPerSec).join(" | ")} |`);
    console.log(`| ${shapeName(w)}: half-peak p99 ms | ${cells((r) => r.halfPeakP99Ms).join(" | ")} |`);
    console.log(`| ${shapeName(w)}: failed jobs | ${cells((r) => r.failed).join(" | ")} |`);
    console.log(
      `| ${shapeName(w)}: others' CPU | ${cols
        .map((c) => {
          const o = find(c, w)?.others;
          return o == null ? "n/a" : `${Math.round(o * 100)}%`;
        })
        .join(" | ")} |`,
    );
  }
  console.log(`\nRatios ours / peer (transitions/s: above 1 ours is faster; p99: below 1 ours is faster)\n`);
  console.log(`| | ${PEERS.map((p) => PEER_LABELS[p]).join(" | ")} |`);
  console.log(`|---|${PEERS.map(() => "---").join("|")}|`);
  for (const w of WORKERS) {
    const mine = find("ours", w);
    console.log(
      `| ${shapeName(w)}: transitions/s | ${PEERS.map((p) => ratio(mine?.transitionsPerSec, find(p, w)?.transitionsPerSec)).join(" | ")} |`,
    );
    console.log(
      `| ${shapeName(w)}: half-peak p99 | ${PEERS.map((p) => ratio(mine?.halfPeakP99Ms, find(p, w)?.halfPeakP99Ms)).join(" | ")} |`,
    );
  }
}

/** The middle value (the lower of the two middle ones for an even count), or null for none. */
function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/** One engine's rows of a shape as one: the medians of its rounds (failed jobs summed, others' CPU the most). */
function medianRow(of: Row[]): Row | undefined {
  if (of.length <= 1) return of[0];
  const p99s = of.map((r) => r.halfPeakP99Ms).filter((v): v is number => v != null);
  const others = of.map((r) => r.others).filter((v): v is number => v != null);
  return {
    ...of[0],
    transitionsPerSec: median(of.map((r) => r.transitionsPerSec))!,
    halfPeakP99Ms: median(p99s),
    failed: of.reduce((n, r) => n + r.failed, 0),
    others: others.length > 0 ? Math.max(...others) : null,
  };
}

/** With BENCH_REPEAT, ours / each peer in each round (the two ran back to back): median and range. */
function pairedRatios(): void {
  console.log(`\nPaired by round (${REPEAT} rounds): ours / peer, median (lowest-highest)\n`);
  for (const w of WORKERS)
    for (const id of PEERS) {
      const of = (who: string, round: number) =>
        rows.find((r) => r.who === who && r.workers === w && r.round === round);
      const pairs = Array.from(
        { length: REPEAT },
        (_, round) => [of("ours", round), of(id, round)] as const,
      ).filter(([a, b]) => a && b);
      if (pairs.length === 0) continue;
      const speed = pairs.map(([a, b]) => a!.transitionsPerSec / b!.transitionsPerSec);
      const tail = pairs
        .filter(([a, b]) => a!.halfPeakP99Ms && b!.halfPeakP99Ms)
        .map(([a, b]) => a!.halfPeakP99Ms! / b!.halfPeakP99Ms!);
      const range = (v: number[]) =>
        v.length === 0
          ? "n/a"
          : `${median(v)!.toFixed(2)}x (${Math.min(...v).toFixed(2)}-${Math.max(...v).toFixed(2)})`;
      console.log(
        `- ${w === 1 ? "1 process" : "2 replicas"}, ${PEER_LABELS[id]}: transitions/s ${range(speed)}; half-peak p99 ${range(tail)}`,
      );
    }
}

function report(probes: Record<string, Probe>): void {
  const cols: ("ours" | PeerId)[] = ["ours", ...PEERS];
  const find = (who: string, workers: number) =>
    medianRow(rows.filter((r) => r.who === who && r.workers === workers));
  const shapeName = (w: number) => (w === 1 ? "1 process" : "2 replicas");
  if (rows.length > 0 && REPEAT > 1) console.log(`\nEngine figures: the medians of ${REPEAT} rounds`);
  if (rows.length > 0) engineTables(cols, find, shapeName);
  if (rows.length > 0 && REPEAT > 1) pairedRatios();
  const sched = (who: string, w: number) =>
    schedules.find((s) => s.who === who && s.result.replicas === w)?.result;
  if (schedules.length > 0) {
    console.log(`\nSchedules: ${SCHEDULES} due within ${SPREAD_MS / 1000} s, firing lag\n`);
    console.log("| | ours | BullMQ delayed jobs | ours / BullMQ |");
    console.log("|---|---|---|---|");
    for (const w of WORKERS) {
      const [o, b] = [sched("ours", w), sched("bullmq-delayed", w)];
      const cell = (s?: ScheduleResult) =>
        s ? `p50 ${s.lag.p50Ms} / p99 ${s.lag.p99Ms} ms; ${s.duplicates} dup, ${s.missed} missed` : "n/a";
      console.log(
        `| ${w} replica(s) | ${cell(o)} | ${cell(b)} | ${ratio(o?.lag.p99Ms, b?.lag.p99Ms)} (p99) |`,
      );
    }
  }
  const durable = find("ours-durable", 1);
  if (durable) {
    console.log("\nDurable mode, 1 process (STORE_FSYNC=true: every acknowledged write flushed to disk)\n");
    console.log("| | transitions/s | half-peak p99 ms | / ours by default | / graphile-worker |");
    console.log("|---|---|---|---|---|");
    console.log(
      `| ours durable | ${fmt(durable.transitionsPerSec)} | ${fmt(durable.halfPeakP99Ms)} | ` +
        `${ratio(durable.transitionsPerSec, find("ours", 1)?.transitionsPerSec)} | ` +
        `${ratio(durable.transitionsPerSec, find("graphile", 1)?.transitionsPerSec)} |`,
    );
  }
  const bus = find("ours-bus", 2);
  if (bus) {
    console.log(
      "\n2 replicas, the task's calls over the bus (the no-op service in the gateway's process only)\n",
    );
    console.log(
      "| | transitions/s | half-peak p99 ms | / ours, task in the engines' processes | / BullMQ chain |",
    );
    console.log("|---|---|---|---|---|");
    console.log(
      `| ours, task over the bus | ${fmt(bus.transitionsPerSec)} | ${fmt(bus.halfPeakP99Ms)} | ` +
        `${ratio(bus.transitionsPerSec, find("ours", 2)?.transitionsPerSec)} | ` +
        `${ratio(bus.transitionsPerSec, find("bullmq-chain", 2)?.transitionsPerSec)} |`,
    );
  }
  console.log("");
  if (PACED_RATE > 0)
    console.log(
      `open loop: every engine at ${PACED_RATE} jobs/s (BENCH_PACED_RATE), not half its own peak: the half-peak rows hold that rate's p99`,
    );
  for (const line of durability) console.log(`durability: ${line}`);
  for (const line of skipped) console.log(`SKIPPED ${line}`);
  writeResults("peers", {
    settings: {
      jobs: JOBS,
      maxMs: MAX_MS,
      concurrency: CONCURRENCY,
      pacedJobs: PACED_JOBS,
      pacedRate: PACED_RATE,
      warmupJobs: WARMUP,
      warmupMs: WARMUP_MS,
      schedules: SCHEDULES,
      spreadMs: SPREAD_MS,
      workers: WORKERS,
      repeat: REPEAT,
    },
    probes,
    skipped,
    rows,
    schedules,
  });
}

async function main(): Promise<void> {
  const probes: Record<string, Probe> = {};
  const usesRedis = ["bullmq-chain", "bullmq-flow", "schedules"].some(wanted);
  if (usesRedis) probes.redis = await probeRedis(servers);
  if (wanted("graphile")) probes.postgres = await probePostgres(servers);
  for (const [server, p] of Object.entries(probes)) {
    if (p.ok) durability.push(p.note);
    else {
      const peers = server === "redis" ? "BullMQ (chain, FlowProducer, delayed jobs)" : "graphile-worker";
      skipped.push(`${peers}: ${p.note}`);
      console.error(`\n!!! SKIPPING ${peers}: ${p.note}\n`);
    }
  }
  const runs = (id: PeerId) => wanted(id) && probes[id === "graphile" ? "postgres" : "redis"]?.ok;
  try {
    for (let round = 0; round < REPEAT; round++) {
      if (REPEAT > 1) console.log(`\nRound ${round + 1} of ${REPEAT}`);
      for (const w of WORKERS) {
        const mine = async () => {
          if (wanted("ours")) await ours(w, round);
          if (w === 1 && wanted("ours-durable")) await ours(1, round, "durable");
          if (w === 2 && wanted("ours-bus")) await ours(2, round, "bus");
        };
        // Every other round the peers go first: a machine that slows down or speeds up through a
        // round favours neither side.
        if (round % 2 === 1) for (const id of PEERS) if (runs(id)) await peer(id, w, round);
        await mine();
        if (round % 2 === 0) for (const id of PEERS) if (runs(id)) await peer(id, w, round);
      }
    }
    if (wanted("schedules")) {
      for (const w of WORKERS) {
        const result = await runOurSchedules(`ours-${w}`, w, {
          schedules: SCHEDULES,
          spreadMs: SPREAD_MS,
          leadMs: LEAD_MS,
          natsUrl: NATS_URL,
          runId: RUN_ID,
          dataDir,
        });
        schedules.push({ who: "ours", result });
        if (probes.redis?.ok) {
          const bull = await runBullDelayed(w, {
            schedules: SCHEDULES,
            spreadMs: SPREAD_MS,
            leadMs: LEAD_MS,
            servers,
            workersIn: "processes",
            runId: RUN_ID,
            concurrency: CONCURRENCY,
          });
          schedules.push({ who: "bullmq-delayed", result: bull });
        }
      }
    }
  } finally {
    await stopAllChildren();
  }
  report(probes);
}

runBench(main);
