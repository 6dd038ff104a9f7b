/**
 * The bench's table, ratios and tuning verdict. Every scenario runs in several interleaved rounds
 * and is judged by its best round: on a shared machine other work only ever slows a run down, so
 * the best round is the closest to what the code can do (the spread is reported beside it).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { BusTuning } from "./floor";
import type { LoadResult, LoadSettings } from "./load";

export interface Row {
  id: string;
  label: string;
  tuning?: BusTuning;
  round: number;
  result: LoadResult;
}

export interface Scenario {
  id: string;
  label: string;
  tuning?: BusTuning;
  rounds: number;
  /** The round with the most req/s: its latencies and CPU figures go with it. */
  best: LoadResult;
  minReqPerSec: number;
  maxReqPerSec: number;
}

export const DEFAULT_ID = "floor-nats";
export const tuningName = (t: BusTuning) => `${t.serializer}, disableBalancer ${t.disableBalancer}`;
/** The default setting's floor is plain `floor-nats`; the others are named after their setting. */
export const tuningId = (t: BusTuning) =>
  t.serializer === "JSON" && !t.disableBalancer
    ? DEFAULT_ID
    : `floor-nats-${t.serializer}-${t.disableBalancer}`;

export function scenarios(rows: Row[]): Scenario[] {
  const ids = [...new Set(rows.map((r) => r.id))];
  return ids.map((id) => {
    const mine = rows.filter((r) => r.id === id);
    const best = mine.reduce((a, b) => (b.result.reqPerSec > a.result.reqPerSec ? b : a));
    const xs = mine.map((r) => r.result.reqPerSec);
    return {
      id,
      label: best.label.trim(),
      tuning: best.tuning,
      rounds: mine.length,
      best: best.result,
      minReqPerSec: Math.round(Math.min(...xs)),
      maxReqPerSec: Math.round(Math.max(...xs)),
    };
  });
}

const ratio = (a?: number, b?: number) => (a && b ? Number((a / b).toFixed(3)) : null);

export function ratios(list: Scenario[], best?: BusTuning): Record<string, number | null> {
  const rps = (id: string) => list.find((s) => s.id === id)?.maxReqPerSec;
  const out: Record<string, number | null> = {
    "floor/bare, in-process": ratio(rps("floor"), rps("bare")),
    "floor/bare, NATS": ratio(rps(DEFAULT_ID), rps("bare")),
    "ours/floor, in-process": ratio(rps("ours"), rps("floor")),
    "ours/floor, NATS": ratio(rps("ours-nats"), rps(DEFAULT_ID)),
    "write ours/floor, in-process": ratio(rps("ours-write"), rps("floor-write")),
    "keyed write ours/floor, in-process": ratio(rps("ours-write-keyed"), rps("floor-write")),
  };
  if (best && tuningId(best) !== DEFAULT_ID) {
    out["floor/bare, NATS tuned"] = ratio(rps(tuningId(best)), rps("bare"));
    out["ours/floor, NATS tuned"] = ratio(rps("ours-nats-tuned"), rps(tuningId(best)));
  }
  return out;
}

/**
 * The NATS floor's best setting (best round), and whether it beats the default clearly: by 10 % or
 * more, with every one of its rounds above every round of the default (rounds of one setting spread
 * by more than 10 % on this shared machine). Server CPU per request is given beside: it moves
 * little with others' load, so a real gain shows there too.
 */
export function tuningVerdict(
  list: Scenario[],
  combos: BusTuning[],
): {
  best: BusTuning;
  liftPct: number;
  cpuUsPerReq: number | null;
  defaultCpuUsPerReq: number | null;
  clear: boolean;
} | null {
  const measured = combos.flatMap((tuning) => {
    const s = list.find((x) => x.id === tuningId(tuning));
    return s ? [{ tuning, s }] : [];
  });
  const def = list.find((x) => x.id === DEFAULT_ID);
  if (measured.length === 0 || !def) return null;
  const top = measured.reduce((a, b) => (b.s.maxReqPerSec > a.s.maxReqPerSec ? b : a));
  const liftPct = Math.round((top.s.maxReqPerSec / def.maxReqPerSec - 1) * 100);
  return {
    best: top.tuning,
    liftPct,
    cpuUsPerReq: top.s.best.serverCpuUsPerReq,
    defaultCpuUsPerReq: def.best.serverCpuUsPerReq,
    clear: liftPct >= 10 && top.s.rounds >= 2 && top.s.minReqPerSec > def.maxReqPerSec,
  };
}

const pct = (x: number | null) => (x === null ? "n/a" : `${Math.round(x * 100)}%`);

export function printReport(
  list: Scenario[],
  settings: LoadSettings,
  r: Record<string, number | null>,
): void {
  const pad = (s: string, n: number) => s.padEnd(n);
  console.log(
    `\nautocannon -c ${settings.connections} -d ${settings.durationS} after a ${settings.warmupS} s warm-up, keep-alive; ` +
      `best of the rounds. ${os.cpus().length} cores shared by load generator, servers and nats-server.\n` +
      `"cpu µs/req": CPU the servers (bench process, server children, nats-server) spent per request.\n` +
      `"others": share of all cores used by processes outside the bench during that round.\n`,
  );
  console.log(
    `${pad("scenario", 46)}${pad("req/s", 8)}${pad("rounds (min-max)", 20)}${pad("p50 ms", 8)}${pad("p99 ms", 8)}` +
      `${pad("failed", 8)}${pad("cpu µs/req", 12)}others`,
  );
  for (const s of list) {
    const x = s.best;
    console.log(
      `${pad(s.label, 46)}${pad(x.reqPerSec.toFixed(0), 8)}${pad(`${s.rounds} (${s.minReqPerSec}-${s.maxReqPerSec})`, 20)}` +
        `${pad(String(x.p50Ms), 8)}${pad(String(x.p99Ms), 8)}${pad(String(x.non2xx + x.errors + x.timeouts), 8)}` +
        `${pad(String(x.serverCpuUsPerReq ?? "n/a"), 12)}${pct(x.cpu.others)}`,
    );
  }
  console.log("");
  for (const [k, v] of Object.entries(r))
    console.log(`${pad(k, 36)}${v === null ? "n/a" : `${v.toFixed(2)}x`}`);
}

/**
 * Where the benches write their figures: `bench/results/`, or BENCH_RESULTS_DIR (the tests that run
 * a bench with a few jobs write there, so a real run's figures stay).
 */
export function resultsDir(): string {
  const dir = process.env.BENCH_RESULTS_DIR;
  return dir ? path.resolve(dir) : path.resolve(__dirname, "../../../bench/results");
}

/**
 * Writes a bench's figures to `<resultsDir>/<name>.json`, with the date and the machine, and says
 * where: every bench keeps its last run there for docs/performance.md.
 */
export function writeResults(name: string, figures: Record<string, unknown>): void {
  const out = path.join(resultsDir(), `${name}.json`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const machine = { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version };
  fs.writeFileSync(
    out,
    JSON.stringify({ date: new Date().toISOString(), machine, ...figures }, null, 2) + "\n",
  );
  console.log(`\nwritten: ${path.relative(process.cwd(), out)}`);
}
