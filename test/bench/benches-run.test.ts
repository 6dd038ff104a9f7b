/**
 * Each documented bench still runs against the platform as it is now, with a few jobs: a bench that
 * no longer runs (bench:memory's calls had no identity once every action checked its caller's
 * roles; bench:search's baseline did not know the platform's built-in config parsers) says nothing
 * about the aims docs/performance.md states. No figure is judged here: speed lives in the benches.
 * Each writes its figures to a folder of its own (BENCH_RESULTS_DIR), not over a real run's.
 * The benches with a test of their own (test/bench: engine-shapes, peers, observability-setups)
 * and the long ones (gateway, scheduler, failover: a platform per round) are not repeated here.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const ROOT = path.join(__dirname, "../..");
const NODE = path.join(ROOT, "node_modules/.bin/node");

let results: string;
beforeAll(() => {
  results = fs.mkdtempSync(path.join(os.tmpdir(), "bench-results-"));
});
afterAll(() => fs.rmSync(results, { recursive: true, force: true }));

interface BenchRun {
  /** The bench's file under dist/, and its arguments. */
  args: string[];
  env: Record<string, string>;
  /** What its output says once it has measured. */
  says: RegExp;
  /** The results file it writes, if any. */
  writes?: string;
  /** What that file must hold, beyond being there. */
  holds?: (results: Record<string, unknown>) => void;
  node?: string[];
}

const DIST = (file: string) => path.join(ROOT, "dist/bench", file);

/** bench:engine's shape in one process with a few jobs: run at its default rate and at a fixed one. */
const ENGINE_IN_PROCESS = {
  args: [DIST("engine.bench.js")],
  env: {
    BENCH_ONLY: "in-process",
    BENCH_JOBS: "30",
    BENCH_FINISH: "5",
    BENCH_PACED_JOBS: "10",
    BENCH_WARMUP_JOBS: "10",
    BENCH_WARMUP_S: "0",
    BENCH_QUIET_WAIT: "0",
  } as Record<string, string>,
  says: /\| in-process \(one broker, embedded store\) \| \d+/,
  writes: "engine.json",
};

const BENCHES: Record<string, BenchRun> = {
  "bench:memory": {
    node: ["--expose-gc"],
    args: [DIST("memory.bench.js")],
    env: { BENCH_JOBS: "30", BENCH_IDLE_S: "0" },
    says: /heap growth per stored job [\d.]+ KiB/,
    writes: "memory.json",
  },
  "bench:search": {
    args: [DIST("search.bench.js")],
    env: { BENCH_OBJECTS: "400", BENCH_ROUNDS: "1", BENCH_WARMUP: "0", BENCH_QUIET_WAIT: "0" },
    says: /^overall\s/m,
    writes: "search.json",
  },
  "bench:compaction": {
    args: [DIST("store-compaction.bench.js")],
    env: { BENCH_JOBS: "200", BENCH_NEW: "20", BENCH_STEPPED_JOBS: "50" },
    says: /50 jobs of 10 compare-and-sets each, .* the compaction \d+ ms/,
  },
  "bench:store-gc": {
    args: [DIST("store-gc.bench.js")],
    env: { BENCH_JOBS: "200", BENCH_ROUNDS: "1" },
    says: /cold \/ objects: full GC [\d.]+x/,
    writes: "store-gc.json",
  },
  "bench:update-check": {
    args: [DIST("store-update-check.bench.js")],
    env: { BENCH_ROUNDS: "1" },
    says: /wide: 625 -> 10,000: \d+ -> \d+ µs, growth [\d.]+x/,
  },
  "bench:compliance": {
    args: [DIST("compliance.bench.js")],
    env: { BENCH_DEVICES: "10", BENCH_BATCHES: "2", BENCH_ONLY: "single" },
    says: /single \(1 replica\(s\), 0 worker\(s\)\): \d+ devices\/s .* 0 duplicate and 0 missing reports/,
    writes: "compliance.json",
  },
  "bench:proxy": {
    args: [DIST("proxy.bench.js")],
    env: {
      BENCH_DURATION: "1",
      BENCH_WARMUP: "0",
      BENCH_ROUNDS: "1",
      BENCH_PAIRS: "0",
      BENCH_QUIET_WAIT: "0",
    },
    says: /proxy\/floor [\d.]+x/,
    writes: "proxy.json",
  },
  "bench:engine (in-process)": {
    ...ENGINE_IN_PROCESS,
    // By default the open loop runs at half the closed loop's peak.
    holds: (results) => {
      const [run] = results.results as {
        jobsPerSec: number;
        halfPeak: { jobsPerSec: number; count: number };
      }[];
      expect(run.halfPeak.count).toBe(10);
      expect(run.halfPeak.jobsPerSec).toBeCloseTo(run.jobsPerSec / 2, 0);
    },
  },
  "bench:engine (in-process, BENCH_PACED_RATE)": {
    ...ENGINE_IN_PROCESS,
    // The open loop at a rate of its own, not half the peak.
    env: { ...ENGINE_IN_PROCESS.env, BENCH_PACED_RATE: "40" },
    holds: (results) => {
      const [run] = results.results as { halfPeak: { jobsPerSec: number; count: number; wallMs: number } }[];
      expect(run.halfPeak).toMatchObject({ jobsPerSec: 40, count: 10 });
      // Run at it: the tenth job starts 9 / 40 s after the first, whatever the peak.
      expect(run.halfPeak.wallMs).toBeGreaterThanOrEqual(224);
    },
  },
  "engine/cpu.bench": {
    args: [DIST("engine/cpu.bench.js")],
    env: { BENCH_JOBS: "30", BENCH_WARMUP_JOBS: "10", BENCH_ROUNDS: "1" },
    says: /lowest: [\d.]+ µs CPU per transition/,
  },
  "engine/store-batch.bench": {
    args: [DIST("engine/store-batch.bench.js"), path.join(ROOT, "dist")],
    env: { BENCH_ROUNDS: "3" },
    says: /µs CPU per compare-and-set at best/,
  },
};

test.each(Object.keys(BENCHES))(
  "%s runs and measures",
  (name) => {
    const bench = BENCHES[name];
    const run = spawnSync(NODE, [...(bench.node ?? []), ...bench.args], {
      encoding: "utf8",
      env: { ...process.env, ...bench.env, BENCH_RESULTS_DIR: results },
      timeout: 120_000,
    });
    const said = `${run.stdout}\n${run.stderr}`;
    expect({
      status: run.status,
      signal: run.signal,
      said: bench.says.test(run.stdout) ? "measured" : said,
    }).toEqual({
      status: 0,
      signal: null,
      said: "measured",
    });
    if (bench.writes) expect(fs.existsSync(path.join(results, bench.writes))).toBe(true);
    if (bench.holds) bench.holds(JSON.parse(fs.readFileSync(path.join(results, bench.writes!), "utf8")));
  },
  130_000,
);
