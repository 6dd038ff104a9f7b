/**
 * bench:observability runs each set-up as a platform process of its own (bench/observability.bench.ts):
 * the load's server CPU is that process's, not the bench's, the order of the set-ups is reversed
 * every other round, and the traced set-up's process exports its spans to the bench's receiver.
 * No figure is judged: speed lives in the benches.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const NODE = path.join(__dirname, "../../node_modules/.bin/node");
const BENCH = path.join(__dirname, "../../dist/bench/observability.bench.js");
const RESULT = path.join(__dirname, "../../bench/results/observability-partial.json");

interface Run {
  reqPerSec: number;
  cpu: { ms: { bench: number; children: number } };
}

test("each set-up is measured in a platform process of its own, in alternating order", () => {
  fs.rmSync(RESULT, { force: true });
  const run = spawnSync(NODE, [BENCH], {
    encoding: "utf8",
    env: {
      ...process.env,
      BENCH_ONLY: "off,sampled",
      BENCH_ROUNDS: "2",
      BENCH_DURATION: "1",
      BENCH_WARMUP: "0",
      BENCH_QUIET_WAIT: "0",
      BENCH_CONNECTIONS: "4",
      BENCH_ACCOUNTS: "10",
    },
    timeout: 150_000,
  });
  expect({ status: run.status, err: run.stderr.slice(-2000) }).toEqual({
    status: 0,
    err: expect.any(String),
  });
  expect(run.stdout).toContain("round 1/2: off, sampled");
  expect(run.stdout).toContain("round 2/2: sampled, off");
  const result = JSON.parse(fs.readFileSync(RESULT, "utf8")) as {
    runs: Record<string, Run[]>;
    exports: { exports: number };
  };
  for (const name of ["off", "sampled"]) {
    expect(result.runs[name]).toHaveLength(2);
    for (const r of result.runs[name]!) {
      expect(r.reqPerSec).toBeGreaterThan(0);
      // The platform's process did the serving, not the bench's.
      expect(r.cpu.ms.children).toBeGreaterThan(r.cpu.ms.bench);
    }
  }
  expect(result.exports.exports).toBeGreaterThan(0);
}, 180_000);
