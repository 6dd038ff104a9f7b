/**
 * bench:peers' code runs (docs/performance.md, "Peers"): each peer's engine workload for a few jobs,
 * with its workers in this process, and BullMQ delayed jobs for a few schedules. Every job started
 * must end, the figures must be numbers, and each run must leave no queue or schema behind. No
 * figure is judged here: speed lives in `npm run bench:peers`.
 *
 * Needs Redis at PEERS_REDIS_URL and PostgreSQL at PEERS_PG_URL (bench/peers/servers.ts); a peer
 * whose server is absent is skipped, and the run says so.
 */
import { spawnSync } from "node:child_process";
import { Queue } from "bullmq";
import { makeWorkerUtils } from "graphile-worker";
import { STEPS, type PeerId } from "../../bench/peers/peers";
import { nameOf, runBullDelayed, runPeer, type PeerSettings } from "../../bench/peers/run";
import { probePostgres, serversFromEnv } from "../../bench/peers/servers";

const servers = serversFromEnv();

/** Jest cannot skip after an async probe, so the servers are probed before the tests are declared. */
function reachable(kind: "redis" | "postgres"): boolean {
  const probe =
    kind === "redis"
      ? `require("net").connect(${servers.redis.port}, ${JSON.stringify(servers.redis.host)})`
      : `require("net").connect(${JSON.stringify("/var/run/postgresql/.s.PGSQL.5432")})`;
  const out = spawnSync(
    process.execPath,
    [
      "-e",
      `const s = ${probe}; s.on("connect", () => process.exit(0)); s.on("error", () => process.exit(1));`,
    ],
    { timeout: 3000 },
  );
  // A PEERS_PG_URL elsewhere than the local socket is taken as given: the test fails if it is wrong.
  const up = out.status === 0 || (kind === "postgres" && process.env.PEERS_PG_URL !== undefined);
  if (!up) console.warn(`SKIPPED: no ${kind} for bench:peers' smoke test`);
  return up;
}

const redisUp = reachable("redis");
const postgresUp = reachable("postgres");

const settings = (runId: string): PeerSettings => ({
  jobs: 8,
  concurrency: 4,
  warmupJobs: 1,
  warmupMs: 0,
  maxMs: 60_000,
  quietWaitS: 0,
  pacedJobs: 4,
  servers,
  workersIn: "this-process",
  runId,
});

const runId = () => `peerstest${process.pid}${Date.now().toString(36)}`;

async function leftOver(peer: PeerId | "bullmq-delayed", name: string): Promise<number> {
  if (peer === "graphile") {
    const utils = await makeWorkerUtils({ connectionString: servers.pgUrl, maxPoolSize: 1 });
    try {
      const { rows } = await utils.withPgClient((c) =>
        c.query("select count(*)::int as n from information_schema.schemata where schema_name = $1", [name]),
      );
      return rows[0].n as number;
    } finally {
      await utils.release();
    }
  }
  const queue = new Queue(name, { connection: { ...servers.redis, maxRetriesPerRequest: null } });
  try {
    const counts = await queue.getJobCounts();
    return Object.values(counts).reduce((a, b) => a + b, 0);
  } finally {
    await queue.close();
  }
}

describe("bench:peers runs each peer", () => {
  // As the bench does before a peer runs: the probe creates the database on a machine that never
  // ran the bench (a fresh CI machine has the server, not the database).
  beforeAll(async () => {
    if (postgresUp) expect(await probePostgres(servers)).toMatchObject({ ok: true });
  });

  const cases: [PeerId, boolean][] = [
    ["bullmq-chain", redisUp],
    ["bullmq-flow", redisUp],
    ["graphile", postgresUp],
  ];
  for (const [peer, up] of cases) {
    (up ? test : test.skip)(
      `${peer} with two workers: every job ends, closed and open loop`,
      async () => {
        const id = runId();
        const r = await runPeer(peer, 2, settings(id));
        expect(r).toMatchObject({ peer, workers: 2, jobs: 8, completed: 8, failed: 0 });
        expect(r.startToComplete.count).toBe(8);
        expect(r.endsPerWorker.reduce((a, b) => a + b, 0)).toBe(8);
        expect(Number.isFinite(r.transitionsPerSec) && r.transitionsPerSec > 0).toBe(true);
        // 10 steps per completed job over the loop's time. wallMs is rounded to the ms, so a loop of
        // a few ms (a warm Redis runs 8 jobs in ~20 ms) is off by up to half a ms of it.
        const expected = (8 * STEPS) / (r.wallMs / 1000);
        const rounding = Math.max(0.02, 0.6 / r.wallMs);
        expect(Math.abs(r.transitionsPerSec - expected)).toBeLessThanOrEqual(expected * rounding + 1);
        expect(r.halfPeak).toMatchObject({ count: 4, failed: 0 });
        // By default the open loop runs at half the closed loop's peak.
        expect(r.halfPeak!.jobsPerSec).toBeCloseTo(r.jobsPerSec / 2, 0);
        expect(Number.isFinite(r.halfPeak!.p99Ms)).toBe(true);
        expect(await leftOver(peer, nameOf(peer, 2, id))).toBe(0);
      },
      60_000,
    );
  }

  (redisUp ? test : test.skip)(
    "BENCH_PACED_RATE: the open loop at that rate, whatever the peak",
    async () => {
      const id = runId();
      const r = await runPeer("bullmq-chain", 1, { ...settings(id), pacedRate: 25 });
      expect(r.halfPeak).toMatchObject({ count: 4, failed: 0, jobsPerSec: 25 });
      // Run at it: the fourth job starts 3 / 25 s after the first, whatever the peak.
      expect(r.halfPeak!.wallMs).toBeGreaterThanOrEqual(119);
      expect(await leftOver("bullmq-chain", nameOf("bullmq-chain", 1, id))).toBe(0);
    },
    60_000,
  );

  (redisUp ? test : test.skip)(
    "BullMQ delayed jobs: each schedule fires once, none missed",
    async () => {
      const id = runId();
      const r = await runBullDelayed(2, {
        schedules: 20,
        spreadMs: 1000,
        leadMs: 1000,
        servers,
        workersIn: "this-process",
        runId: id,
        concurrency: 4,
      });
      expect(r).toMatchObject({ replicas: 2, schedules: 20, fired: 20, duplicates: 0, missed: 0 });
      expect(r.lag.count).toBe(20);
      expect(Number.isFinite(r.lag.p99Ms)).toBe(true);
      expect(await leftOver("bullmq-delayed", nameOf("bullmq-delayed", 2, id))).toBe(0);
    },
    60_000,
  );
});
