/**
 * The store's side of a task transition, A/B: `node dist/bench/engine/store-update.bench.js
 * <distA> <distB>` loads the embedded store and the jobs repository of two builds (two `dist`
 * folders; one folder alone measures that build) into one process and interleaves their rounds,
 * so both see the same machine: on a shared host that moves CPU time by 20-30 % between runs,
 * only a comparison within one process says which build does less work.
 *
 * Each round makes the compareAndSet a transition makes (`$set` of the finished and the claimed
 * task, `metrics`, `sweepAt`, `last_updated`; `$inc` of `version`) on each of 200 jobs, 3 times,
 * with the jobs collection's indexes. Reports the CPU µs (user + system) per update: the lowest
 * and the median round, the first two rounds left out (warm-up). Env: BENCH_ROUNDS (30).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { EmbeddedBackend } from "../../shared/store/embedded/backend";
import type { JobRepository } from "../../services/engine/jobs.repository";
import { intEnv } from "../support/env";
import { compareBuilds, type Build } from "../support/builds-ab";
import { runBench } from "../support/main";
import { benchJob, JOBS, transitionSet } from "./transition-fixture";

const ROUNDS = intEnv("BENCH_ROUNDS", 30, 3);

async function load(dist: string): Promise<Build> {
  // Two builds' modules side by side: each folder's own store and repository, by path.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { EmbeddedBackend: Backend } = require(path.join(dist, "shared/store/embedded/backend")) as {
    EmbeddedBackend: typeof EmbeddedBackend;
  };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { JobRepository: Repo } = require(path.join(dist, "services/engine/jobs.repository")) as {
    JobRepository: typeof JobRepository;
  };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-store-update-"));
  const store = new Backend({ dataDir: dir });
  const repo = new Repo(store);
  const jobs = store.collection("jobs");
  for (const spec of repo.indexes) await jobs.createIndex(spec);
  const versions = new Map<string, number>();
  for (let j = 0; j < JOBS; j++) {
    const _id = repo.newId();
    versions.set(_id, 1);
    await jobs.insertOne(benchJob(_id, j));
  }
  let step = 0;
  return {
    name: dist,
    async round() {
      const cpu = process.cpuUsage();
      let updates = 0;
      for (let r = 0; r < 3; r++) {
        step++;
        for (const [id, version] of versions) {
          const set = transitionSet(step);
          if (!(await repo.compareAndSet(id, version, set))) throw new Error(`job ${id}: lost its own write`);
          versions.set(id, version + 1);
          updates++;
        }
      }
      const used = process.cpuUsage(cpu);
      return (used.user + used.system) / updates;
    },
    async close() {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

runBench(() => compareBuilds(load, ROUNDS, "update"));
