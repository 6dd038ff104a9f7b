/**
 * cpu.bench's workload (one process, 10 no-op tasks a job, 4 jobs at a time) for callgrind, with
 * an exact measured window: `node dist/bench/engine/callgrind-window.js DIST WARM JOBS FLAG_DIR`
 * loads the platform of the build in DIST (any build with this bench's workload: main's too), runs
 * WARM jobs, writes FLAG_DIR/ready (its pid), waits for FLAG_DIR/go, runs JOBS jobs, writes
 * FLAG_DIR/done and waits for FLAG_DIR/stop. Run by bench/engine/callgrind-window.sh, which turns
 * callgrind's instrumentation on at `ready` and off at `done` from outside: the window holds the
 * measured jobs' JOBS x 10 transitions and nothing of the start-up or warm-up (windows cut at
 * cpu.bench's round lines hold a varying part of the next round).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type * as Authorization from "../../shared/authorization";
import type * as Platform from "../support/platform";
import type * as Workload from "./workload";
import { runBench } from "../support/main";
import { jobStartOptions } from "./job-variables";

const [dist, warm, jobs, flags] = process.argv.slice(2);
const CONCURRENCY = 4;

const waitFor = async (file: string) => {
  while (!fs.existsSync(file)) await new Promise((resolve) => setTimeout(resolve, 100));
};

async function main(): Promise<void> {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const at = (p: string) => require(path.join(path.resolve(dist), p));
  const { callAsPlatform } = at("shared/authorization") as typeof Authorization;
  const { platformEnv, startPlatform } = at("bench/support/platform") as typeof Platform;
  const w = at("bench/engine/workload") as typeof Workload;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "callgrind-window-"));
  try {
    const broker = await startPlatform(platformEnv({ DATA_DIR: dataDir }));
    const completions = new w.Completions();
    broker.createService(w.taskService());
    broker.createService(completions.service());
    await broker.waitForServices(["benchtask", "benchlistener", "engine"]);
    await callAsPlatform(broker, "engine.createWorkflow", { workflow: w.automaticWorkflow() });
    const run = async (count: number) => {
      let next = 0;
      const worker = async () => {
        while (next < count) {
          next++;
          const job = await callAsPlatform(broker, "engine.startJob", {
            workflow: w.AUTOMATIC_WORKFLOW,
            options: jobStartOptions(),
          });
          const end = await completions.wait(job._id, 600_000);
          if (end.status !== "complete") throw new Error(`job ${job._id} ended ${end.status}`);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    };
    await run(Number(warm));
    fs.writeFileSync(path.join(flags, "ready"), String(process.pid));
    await waitFor(path.join(flags, "go"));
    await run(Number(jobs));
    fs.writeFileSync(path.join(flags, "done"), "");
    await waitFor(path.join(flags, "stop"));
    await broker.stop();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

runBench(main, { platformFlags: false }); // under callgrind: CALLGRIND_NODE_FLAGS chooses node's flags
