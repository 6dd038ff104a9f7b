/**
 * The bench's load loops (bench/engine/workload.ts) as every engine's figures rely on them: the
 * warm-up runs long enough by both bounds, and the closed loop's thirds say how steady its pace was.
 */
import {
  closedLoop,
  openLoopName,
  openLoopRate,
  overPeak,
  thirds,
  warmLoop,
  type OneJob,
} from "../../bench/engine/workload";

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

// Fake timers (performance.now included): each loop's pace is the test's, not the machine's. On
// real timers a loaded machine's stall of 60 ms in a closed loop's last third failed CI once.
beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

/** What `loop` resolves to once the fake clock has run `ms` past now. */
async function after<T>(ms: number, loop: Promise<T>): Promise<T> {
  await jest.advanceTimersByTimeAsync(ms);
  return loop;
}

describe("warmLoop", () => {
  it("runs at least its duration when the count is reached first", async () => {
    const { one, count } = counted(2);
    const began = performance.now();
    await after(200, warmLoop(one, { jobs: 1, ms: 150, concurrency: 4 }));
    expect(performance.now() - began).toBeGreaterThanOrEqual(150);
    // 4 slots start a job of 2 ms every 2 ms until 150 ms.
    expect(count()).toBe(300);
  });

  it("runs at least its count when the duration is passed first", async () => {
    const { one, count } = counted(1);
    await after(100, warmLoop(one, { jobs: 40, ms: 0, concurrency: 4 }));
    expect(count()).toBe(40);
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
    const run = await after(200, closedLoop(one, Infinity, 2, began + 180));
    expect(run.endsMs).toHaveLength(run.completed);
    // 2 slots: 12 jobs each of 5 ms to 60 ms, then 2 jobs a ms to 180 ms; 11 a slot end before 60.
    expect(run.completed).toBe(264);
    expect(thirds(run)).toEqual({ first: 366.7, last: 2033.3 });
  });

  it("counts every completed job once and none that failed", () => {
    const run = { wallMs: 3000, endsMs: [100, 200, 1500, 2100, 2900, 2999] };
    expect(thirds(run)).toEqual({ first: 2, last: 3 });
    expect(thirds({ wallMs: 3000, endsMs: [] })).toBeNull();
  });
});

describe("the open loop's rate", () => {
  it("is half the peak by default, and BENCH_PACED_RATE's when set above 0", () => {
    expect(openLoopRate(300)).toBe(150);
    expect(openLoopRate(300, 0)).toBe(150);
    expect(openLoopRate(300, 40)).toBe(40);
    expect(openLoopName()).toBe("at half the peak");
    expect(openLoopName(40)).toBe("at 40 jobs/s (BENCH_PACED_RATE)");
  });

  it("says so when a fixed rate ran above the engine's peak", () => {
    expect(overPeak({ jobsPerSec: 50, halfPeak: { jobsPerSec: 80 } })).toMatch(
      /above this engine's peak of 50/,
    );
    expect(overPeak({ jobsPerSec: 50, halfPeak: { jobsPerSec: 25 } })).toBe("");
    expect(overPeak({ jobsPerSec: 50, halfPeak: null })).toBe("");
  });
});
