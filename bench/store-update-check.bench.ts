/**
 * bench:update-check: how the store's check of an update's own shape (shared/store/rules.ts
 * checkUpdate: no path that is another or lies inside it) grows with the update's size. Every
 * generic update of the embedded store runs it before it looks at a document, so its cost must grow
 * with what the update holds, not with its square.
 *
 * Two shapes, each at a size and at sixteen times that size:
 *   - long: one `$set` path of 1,000 segments, then 16,000;
 *   - wide: a `$set` of 625 paths `tasks.t<i>.status`, then 10,000.
 * Reports the best of BENCH_ROUNDS (5) rounds of each, in µs, and the growth ratio: work that grows
 * linearly grows about 16x (more where the larger update no longer fits the caches or the young
 * generation), work that grows with the square about 256x. The aim is a growth of at most 32x,
 * twice the linear one. Beside them, the update a job's claim sends (four paths), in ns: what every
 * generic update pays.
 *
 *   npm run bench:update-check
 */
import { checkUpdate } from "../shared/store/rules";
import type { Update } from "../shared/store/types";
import { intEnv } from "./support/env";
import { runBench } from "./support/main";

const ROUNDS = intEnv("BENCH_ROUNDS", 5, 1);
const SEGMENTS = 1_000;
const PATHS = 625;
const SCALE = 16;
const GROWTH_AIM = 2 * SCALE;

const longPath = (segments: number): Update => ({
  $set: { [Array.from({ length: segments }, (_, i) => `s${i % 10}`).join(".")]: 1 },
});
const widePaths = (paths: number): Update => ({
  $set: Object.fromEntries(Array.from({ length: paths }, (_, i) => [`tasks.t${i}.status`, "done"])),
});
const CLAIM: Update = {
  $set: { status: "running", "lease.owner": "engine-1", "lease.until": 1_700_000_000_000 },
  $inc: { attempts: 1 },
};

/** The best of ROUNDS rounds of `calls` checks of `update`, in µs a check. */
function bestMicros(update: Update, calls: number): number {
  let best = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) checkUpdate(update);
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1000 / calls);
  }
  return best;
}

async function main(): Promise<void> {
  let met = true;
  for (const [shape, make, size] of [
    ["long", longPath, SEGMENTS],
    ["wide", widePaths, PATHS],
  ] as const) {
    const small = bestMicros(make(size), 40);
    const large = bestMicros(make(size * SCALE), 3);
    const growth = large / small;
    met &&= growth <= GROWTH_AIM;
    console.log(
      `${shape}: ${size.toLocaleString("en")} -> ${(size * SCALE).toLocaleString("en")}: ` +
        `${small.toFixed(0)} -> ${large.toFixed(0)} µs, growth ${growth.toFixed(1)}x (aim <= ${GROWTH_AIM}x)`,
    );
  }
  console.log(`a claim's update (4 paths): ${(bestMicros(CLAIM, 200_000) * 1000).toFixed(0)} ns`);
  console.log(met ? "aim met" : "aim NOT met");
}

runBench(main);
