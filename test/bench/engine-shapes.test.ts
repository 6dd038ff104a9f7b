/**
 * bench:engine's two shapes over NATS run and are what their labels say (docs/performance.md,
 * "Peers"): in `nats` every task's call crosses the bus to the gateway's process; in `nats-local`
 * each engine replica calls the no-op task in its own process, as each of the peers' workers runs
 * its processor, and none reaches the gateway's. The bench checks that itself and fails the run
 * otherwise (bench/engine/ours.ts, checkTaskCalls); here a few jobs of each shape, over the run's
 * NATS, must end with both replicas used. No figure is judged: speed lives in the benches.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";

const NODE = path.join(__dirname, "../../node_modules/.bin/node");
const BENCH = path.join(__dirname, "../../dist/bench/engine.bench.js");

test("each NATS shape runs its jobs on both replicas, the task's calls where the shape says", () => {
  const run = spawnSync(NODE, [BENCH], {
    encoding: "utf8",
    env: {
      ...process.env,
      BENCH_ONLY: "nats,nats-local",
      BENCH_NATS_JOBS: "20",
      BENCH_CONCURRENCY: "4",
      BENCH_FINISH: "0",
      BENCH_PACED_JOBS: "0",
      BENCH_WARMUP_JOBS: "10",
      BENCH_WARMUP_S: "0",
      BENCH_QUIET_WAIT: "0",
    },
    timeout: 150_000,
  });
  expect({ status: run.status, err: run.stderr.slice(-2000) }).toEqual({
    status: 0,
    err: expect.any(String),
  });
  const rows = run.stdout.split("\n").filter((l) => l.startsWith("| over NATS"));
  expect(rows).toHaveLength(2);
  const [bus, local] = rows;
  expect(bus).toMatch(/^\| over NATS \(store \+ 2 engine replicas/);
  expect(local).toMatch(/^\| over NATS, the task in each engine's process/);
  for (const row of rows) {
    const cells = row.split("|").map((c) => c.trim());
    expect(Number(cells[2].split(" ")[0])).toBeGreaterThan(0);
    // What the run cost the machine: how busy it was, and the CPU of a transition over the
    // run's processes (the store's, both engines', this one, the load's) and nats-server.
    expect(cells[8]).toMatch(/^\d+%$/);
    expect(cells[9]).toMatch(/^\d+ µs$/);
    expect(Number(cells[9].split(" ")[0])).toBeGreaterThan(0);
  }
  expect(run.stdout).not.toMatch(/jobs and \d+ finishTask calls failed/);
}, 180_000);
