/**
 * The sweep's read and a job's life on a store of many finished jobs, A/B: `node
 * dist/bench/engine/sweep-lookup.bench.js <distA> <distB>` loads the embedded store and the jobs
 * repository of two builds into one process and interleaves their rounds (bench/support/builds-ab.ts).
 *
 * The store holds BENCH_JOBS finished jobs (20,000) and 20 running ones, with the jobs collection's
 * indexes. Two figures, CPU µs (user + system), the lowest and the median round:
 * - per sweep: `dueForSweep(now, 200)`, the read every engine replica makes each sweep interval;
 * - per job: one job's writes that touch its index keys (inserted running, then finished).
 * Env: BENCH_JOBS, BENCH_ROUNDS (20).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { EmbeddedBackend } from "../../shared/store/embedded/backend";
import type { JobRepository } from "../../services/engine/jobs.repository";
import { intEnv } from "../support/env";
import { compareBuilds, type Build } from "../support/builds-ab";
import { runBench } from "../support/main";
import { benchJob } from "./transition-fixture";

const FINISHED = intEnv("BENCH_JOBS", 20_000, 100);
const RUNNING = 20;
const ROUNDS = intEnv("BENCH_ROUNDS", 20, 3);

type Measure = "sweep" | "job";

function loader(measure: Measure) {
  return async (dist: string): Promise<Build> => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { EmbeddedBackend: Backend } = require(path.join(dist, "shared/store/embedded/backend")) as {
      EmbeddedBackend: typeof EmbeddedBackend;
    };
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { JobRepository: Repo } = require(path.join(dist, "services/engine/jobs.repository")) as {
      JobRepository: typeof JobRepository;
    };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-sweep-lookup-"));
    const store = new Backend({ dataDir: dir });
    const repo = new Repo(store);
    const jobs = store.collection("jobs");
    for (const spec of repo.indexes) await jobs.createIndex(spec);
    const finished = (j: number) => ({ ...benchJob(repo.newId(), j), status: "complete", sweepAt: null });
    for (let j = 0; j < FINISHED; j += 1000)
      await jobs.insertMany(Array.from({ length: Math.min(1000, FINISHED - j) }, (_, k) => finished(j + k)));
    for (let j = 0; j < RUNNING; j++) await jobs.insertOne(benchJob(repo.newId(), j));
    let serial = FINISHED;
    return {
      name: dist,
      async round() {
        const cpu = process.cpuUsage();
        const ops = measure === "sweep" ? 50 : 200;
        for (let i = 0; i < ops; i++) {
          if (measure === "sweep") {
            if ((await repo.dueForSweep(Date.now(), 200)).length !== RUNNING)
              throw new Error("sweep missed a job");
          } else {
            const job = benchJob(repo.newId(), serial++);
            await jobs.insertOne(job);
            await jobs.updateOne({ _id: job._id }, { $set: { status: "complete", sweepAt: null } });
          }
        }
        const used = process.cpuUsage(cpu);
        return (used.user + used.system) / ops;
      },
      async close() {
        await store.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  };
}

runBench(async () => {
  await compareBuilds(loader("sweep"), ROUNDS, "sweep");
  await compareBuilds(loader("job"), ROUNDS, "job");
});
