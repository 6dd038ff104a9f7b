/**
 * bench:engine's two shapes over NATS run and are what their labels say (docs/performance.md,
 * "Peers"): in `nats` every task's call crosses the bus to the gateway's process; in `nats-local`
 * each engine replica calls the no-op task in its own process, as each of the peers' workers runs
 * its processor, and none reaches the gateway's. The bench checks that itself and fails the run
 * otherwise (bench/engine/ours.ts, checkTaskCalls); here a few jobs of each shape, over the run's
 * NATS, must end with both replicas used. No figure is judged: speed lives in the benches.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const NODE = path.join(__dirname, "../../node_modules/.bin/node");
const BENCH = path.join(__dirname, "../../dist/bench/engine.bench.js");

test("each NATS shape runs its jobs on both replicas, the task's calls where the shape says", () => {
  // Its figures in a folder of its own, not over a real run's (bench/support/report.ts).
  const resultsDir = fs.mkdtempSync(path.join(os.tmpdir(), "engine-shapes-"));
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
      BENCH_RESULTS_DIR: resultsDir,
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
  // The same CPU by process and kind of thread (bench/support/cpu.ts): each replica's and the
  // store's event loop did work, and each role's kinds add up to its total, the roles to the row's.
  const results = (
    JSON.parse(fs.readFileSync(path.join(resultsDir, "engine.json"), "utf8")) as {
      results: {
        id: string;
        completed: number;
        cpuUsPerTransition: number;
        cpuByRole: Record<string, Record<string, number>>;
      }[];
    }
  ).results;
  expect(results.map((r) => r.id)).toEqual(["nats", "nats-local"]);
  for (const r of results) {
    const roles = r.cpuByRole;
    expect(Object.keys(roles)).toEqual(expect.arrayContaining(["gateway", "store", "engine 1", "engine 2"]));
    for (const role of ["store", "engine 1", "engine 2"]) expect(roles[role].main).toBeGreaterThan(0);
    let total = 0;
    for (const cpu of Object.values(roles)) {
      const kinds = cpu.main + cpu.v8 + cpu.workers + cpu.libuv + cpu.other;
      // Threads and their process are read at slightly different instants, in 10 ms ticks the
      // kernel rounds for each apart: up to five ticks, over this short run's transitions.
      expect(Math.abs(kinds - cpu.total)).toBeLessThanOrEqual(3 + 50_000 / (r.completed * 10));
      total += cpu.total;
    }
    expect(Math.abs(total - r.cpuUsPerTransition)).toBeLessThanOrEqual(Object.keys(roles).length);
    expect(run.stdout).toMatch(
      new RegExp(`^CPU µs a transition by process and thread, ${r.id}: .*engine 1 \\d+ \\(main \\d+`, "m"),
    );
  }
}, 180_000);
