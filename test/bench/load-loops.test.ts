/**
 * The bench's load loops (bench/engine/workload.ts) as every engine's figures rely on them: the
 * warm-up runs long enough by both bounds, and the closed loop's thirds say how steady its pace was.
 */
import { closedLoop, thirds, warmLoop, type OneJob } from "../../bench/engine/workload";

/** A job of `ms` that counts itself. */
function counted(ms: number): { one: OneJob; count: () => number } {
  let n = 0;
  const one: OneJob = async () => {
    n++;
    const sent = performance.now();
    await new Promise((r) => setTimeout(r, ms));
    return { startMs: 0, completeMs: performance.now() - sent };
  };
  return { one, count: () => n };
}

describe("warmLoop", () => {
  it("runs at least its duration when the count is reached first", async () => {
    const { one, count } = counted(2);
    const began = performance.now();
    await warmLoop(one, { jobs: 1, ms: 150, concurrency: 4 });
    expect(performance.now() - began).toBeGreaterThanOrEqual(150);
    expect(count()).toBeGreaterThan(4);
  });

  it("runs at least its count when the duration is passed first", async () => {
    const { one, count } = counted(1);
    await warmLoop(one, { jobs: 40, ms: 0, concurrency: 4 });
    expect(count()).toBeGreaterThanOrEqual(40);
  });
});

describe("thirds", () => {
  it("reads the first and the last third's pace of a closed loop", async () => {
    // Each of 2 slots: jobs of 5 ms for the first 60 ms, then of 1 ms: the last third is faster.
    const began = performance.now();
    const one: OneJob = async () => {
      const sent = performance.now();
      await new Promise((r) => setTimeout(r, performance.now() - began < 60 ? 5 : 1));
      return { completeMs: performance.now() - sent };
    };
    const run = await closedLoop(one, Infinity, 2, began + 180);
    expect(run.endsMs).toHaveLength(run.completed);
    const t = thirds(run)!;
    expect(t.first).toBeGreaterThan(0);
    expect(t.last).toBeGreaterThan(t.first);
  });

  it("counts every completed job once and none that failed", () => {
    const run = { wallMs: 3000, endsMs: [100, 200, 1500, 2100, 2900, 2999] };
    expect(thirds(run)).toEqual({ first: 2, last: 3 });
    expect(thirds({ wallMs: 3000, endsMs: [] })).toBeNull();
  });
});
