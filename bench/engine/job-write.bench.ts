/**
 * The engine's job write per transition, A/B, without the broker: `node
 * dist/bench/engine/job-write.bench.js <distA> <distB>` loads each build's embedded store, jobs
 * repository, JobStore and state machine (two `dist` folders; one folder alone measures that
 * build) into one process and interleaves their rounds, so both see the same machine. Each round
 * runs JOBS jobs of bench:engine's workload (10 sequential no-op tasks) as the runner does: the
 * job built and inserted with its first step, then one JobStore.update per task (finishRun +
 * settle, the next task claimed), with the jobs collection's indexes. Reports CPU µs (user +
 * system) per transition: the lowest and the median round, the first two left out (warm-up).
 * What it leaves out, cpu.bench.ts has: the action's call through Moleculer and the events.
 * Env: BENCH_ROUNDS (24), BENCH_JOBS (150).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { EmbeddedBackend } from "../../shared/store/embedded/backend";
import type { JobRepository } from "../../services/engine/jobs.repository";
import type { JobStore } from "../../services/engine/run/jobs";
import type * as Transitions from "../../services/engine/run/transitions";
import type * as Builders from "../../test/support/engine-builders";
import type { RunJob } from "../../services/engine/run/types";
import { automaticWorkflow, TASKS_PER_JOB } from "./workload";
import { intEnv } from "../support/env";
import { compareBuilds, type Build } from "../support/builds-ab";
import { runBench } from "../support/main";

const ROUNDS = intEnv("BENCH_ROUNDS", 24, 3);
const JOBS = intEnv("BENCH_JOBS", 150, 1);

async function load(dist: string): Promise<Build> {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const at = (p: string) => require(path.join(dist, p));
  const { EmbeddedBackend: Backend } = at("shared/store/embedded/backend") as {
    EmbeddedBackend: typeof EmbeddedBackend;
  };
  const { JobRepository: Repo } = at("services/engine/jobs.repository") as {
    JobRepository: typeof JobRepository;
  };
  const { JobStore: Jobs } = at("services/engine/run/jobs") as { JobStore: typeof JobStore };
  const t = at("services/engine/run/transitions") as typeof Transitions;
  const b = at("test/support/engine-builders") as typeof Builders;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-job-write-"));
  const store = new Backend({ dataDir: dir });
  const repo = new Repo(store);
  await repo.ensureIndexes();
  const jobs = new Jobs(repo);
  const workflow = automaticWorkflow() as unknown as Builders.WorkflowInput;
  const step = () =>
    new t.Step({
      now: Date.now(),
      me: "bench/1",
      budget: 1000,
      claimTtlMs: 6000,
      newJobId: () => repo.newId(),
    });
  return {
    name: dist,
    async round() {
      const cpu = process.cpuUsage();
      let transitions = 0;
      for (let j = 0; j < JOBS; j++) {
        const job: RunJob = b.newJob(workflow, {}, Date.now(), repo.newId());
        let s = step();
        t.startRun(job, s);
        await jobs.insert(job);
        let claimed = s.claimed;
        while (claimed.length > 0) {
          const { taskId, run } = claimed[0];
          const written = await jobs.update(job._id, (draft) => {
            s = step();
            t.finishRun(draft, taskId, run, { state: "success", outgoing: {} }, s);
            t.settle(draft, s);
          });
          if (!written?.changed) throw new Error(`job ${job._id}: task ${taskId} not written`);
          transitions++;
          claimed = s.claimed;
        }
        if (transitions < (j + 1) * TASKS_PER_JOB) throw new Error(`job ${job._id} stopped early`);
      }
      const used = process.cpuUsage(cpu);
      return (used.user + used.system) / transitions;
    },
    async close() {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

runBench(() => compareBuilds(load, ROUNDS, "transition"));
