/**
 * The timed harness of what metrics cost, a process per mode (bench/support/observability-processes.ts):
 * by default a round's processes run one after another; with OBS_TOGETHER=1 they warm up, then
 * measure over the same seconds (so a slower moment of the machine slows every mode alike), and each
 * window is compared with the same window of `off`. No figure is judged: each process must serve
 * reads, and the rounds' timing is what the flag says.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";

const ROOT = path.join(__dirname, "../..");
const NODE = path.join(ROOT, "node_modules/.bin/node");
const HARNESS = path.join(ROOT, "dist/bench/support/observability-processes.js");
const WINDOWS = 2;
const WINDOW_S = 1;

interface Line {
  round?: number;
  run: string;
  reads?: number;
  measuredFrom?: number;
  cpuUs?: number;
  mainUs?: number;
  v8Us?: number;
  workersUs?: number;
  restUs?: number;
  vsOwnOffByWindow?: { median: number; min: number; max: number };
}

function harness(together: boolean): Line[] {
  const run = spawnSync(NODE, [HARNESS, `off,off@${path.join(ROOT, "dist")}`, "1"], {
    env: {
      ...process.env,
      OBS_WARM_S: "1",
      OBS_WINDOWS: String(WINDOWS),
      OBS_WINDOW_S: String(WINDOW_S),
      ...(together ? { OBS_TOGETHER: "1" } : { OBS_TOGETHER: "" }),
    },
    encoding: "utf8",
    timeout: 120_000,
  });
  expect(run.status).toBe(0);
  return run.stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Line);
}

test("together: both processes measure over the same seconds, window by window against off", () => {
  const lines = harness(true);
  const rounds = lines.filter((l) => l.round === 0);
  expect(rounds).toHaveLength(2);
  for (const r of rounds) expect(r.reads).toBeGreaterThan(0);
  const [a, b] = rounds.map((r) => r.measuredFrom!);
  expect(Math.abs(a - b)).toBeLessThan(1000);
  // Each read's CPU by kind of thread: the event loop (the platform and its load client) holds most
  // of it, and the kinds add up to the process's total (two windows: their median is their mean).
  for (const r of rounds) {
    expect(r.mainUs!).toBeGreaterThan(r.cpuUs! / 2);
    expect(r.v8Us!).toBeGreaterThanOrEqual(0);
    expect(r.workersUs!).toBeGreaterThanOrEqual(0);
    expect(r.mainUs! + r.v8Us! + r.workersUs! + r.restUs!).toBeCloseTo(r.cpuUs!, 1);
  }
  const copy = lines.find((l) => l.round === undefined && l.run.startsWith("off@"));
  expect(copy?.vsOwnOffByWindow?.median).toBeGreaterThan(0);
  expect(Number.isFinite(copy!.vsOwnOffByWindow!.max)).toBe(true);
}, 150_000);

test("by default one after another: the second measures after the first has ended", () => {
  const lines = harness(false);
  const rounds = lines.filter((l) => l.round === 0);
  expect(rounds).toHaveLength(2);
  const [a, b] = rounds.map((r) => r.measuredFrom!);
  expect(Math.abs(a - b)).toBeGreaterThanOrEqual(WINDOWS * WINDOW_S * 1000);
  expect(lines.some((l) => l.vsOwnOffByWindow)).toBe(false);
}, 150_000);
