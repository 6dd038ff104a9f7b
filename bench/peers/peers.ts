/**
 * The peers of bench:peers, written from their own docs: what a Node team would pick instead of
 * our engine for "a job of 10 sequential steps" (BENCH_TASKS steps: STEPS). Each peer has two sides:
 *   worker    runs the steps (in ./worker-node.ts, one process per worker; or in-process for the
 *             smoke test) and reports each job's end as it happens
 *   producer  starts a job with one library call, in the bench process
 * The peers:
 *   bullmq-chain  BullMQ: each step is a job; its processor adds the next step's job to the queue.
 *                 A job has ended when its last step's job is completed (the Worker's `completed`
 *                 event, after BullMQ moved it to completed in Redis).
 *   bullmq-flow   BullMQ FlowProducer: the steps added at once as a flow, the last step the root and
 *                 step 1 the deepest child (children complete before their parent). Ends when the
 *                 root (the last step) is completed.
 *   graphile      graphile-worker (PostgreSQL): each step is a job; its task adds the next step with
 *                 `helpers.addJob`. Ends at the last step's `job:success` event (graphile-worker
 *                 deletes the finished row right after, without awaiting it before that event).
 * And the schedules workload's side:
 *   bullmq-delayed  BullMQ delayed jobs: one job per schedule, added with `delay` so it becomes due
 *                   at its due time; reported when a worker's processor starts it (its firing).
 */
import { FlowProducer, Queue, Worker, type FlowJob } from "bullmq";
import { Logger, makeWorkerUtils, run, type Runner, type WorkerUtils } from "graphile-worker";
import { TASKS_PER_JOB } from "../engine/workload";

/** The steps of a job: ours' tasks (BENCH_TASKS, 10), so a larger workflow is compared step for step. */
export const STEPS = TASKS_PER_JOB;
export type PeerId = "bullmq-chain" | "bullmq-flow" | "graphile";
export const PEERS: PeerId[] = ["bullmq-chain", "bullmq-flow", "graphile"];
export const PEER_LABELS: Record<PeerId, string> = {
  "bullmq-chain": "BullMQ chain",
  "bullmq-flow": "BullMQ FlowProducer",
  graphile: "graphile-worker",
};

export interface Servers {
  /** ioredis options of the Redis BullMQ uses. */
  redis: { host: string; port: number };
  /** Connection string of the PostgreSQL database graphile-worker uses. */
  pgUrl: string;
}

export interface WorkerSpec {
  peer: PeerId | "bullmq-delayed";
  /** The BullMQ queue name, or the graphile-worker schema, of this run. */
  name: string;
  /** Steps one worker runs at once (BullMQ `concurrency`; graphile-worker `concurrency`). */
  concurrency: number;
  servers: Servers;
}

/** A job's end (or a delayed job's firing) as a worker saw it: its key, the wall clock in ms. */
export type OnEnd = (key: string, wallMs: number) => void;

interface StepData {
  job: string;
  step: number;
}

const wallNow = () => performance.timeOrigin + performance.now();

/** graphile-worker logs a line per job at info: the bench keeps warnings and errors only. */
const quietLogger = new Logger(() => (level, message) => {
  if (level === "error" || level === "warning") console.error(`graphile-worker ${level}: ${message}`);
});

/** Starts one worker of `spec.peer`; `onEnd` hears each job's end. */
export async function startWorker(spec: WorkerSpec, onEnd: OnEnd): Promise<{ close(): Promise<void> }> {
  const connection = { ...spec.servers.redis, maxRetriesPerRequest: null };
  if (spec.peer === "graphile") {
    const runner: Runner = await run({
      connectionString: spec.servers.pgUrl,
      schema: spec.name,
      concurrency: spec.concurrency,
      // One connection per running job, one for LISTEN, one spare (graphile-worker's advice: a pool
      // at least as large as the concurrency).
      maxPoolSize: spec.concurrency + 2,
      noHandleSignals: true,
      logger: quietLogger,
      taskList: {
        step: async (payload, helpers) => {
          const { job, step } = payload as StepData;
          if (step < STEPS) await helpers.addJob("step", { job, step: step + 1 });
        },
      },
    });
    runner.events.on("job:success", ({ job }) => {
      const data = job.payload as StepData;
      if (data.step === STEPS) onEnd(data.job, wallNow());
    });
    return { close: () => runner.stop() };
  }
  if (spec.peer === "bullmq-delayed") {
    const worker = new Worker(
      spec.name,
      async (job) => {
        onEnd((job.data as { key: string }).key, wallNow());
      },
      { connection, concurrency: spec.concurrency },
    );
    await worker.waitUntilReady();
    return { close: () => worker.close() };
  }
  const next = spec.peer === "bullmq-chain" ? new Queue(spec.name, { connection }) : null;
  const worker = new Worker(
    spec.name,
    async (job) => {
      const { job: key, step } = job.data as StepData;
      if (next && step < STEPS) await next.add("step", { job: key, step: step + 1 });
    },
    { connection, concurrency: spec.concurrency },
  );
  worker.on("completed", (job) => {
    const data = job.data as StepData;
    if (data.step === STEPS) onEnd(data.job, wallNow());
  });
  await worker.waitUntilReady();
  return {
    async close() {
      await worker.close();
      await next?.close();
    },
  };
}

/** The steps as one flow: the last step the root, each step the only child of the next. */
function flowOf(key: string, queueName: string): FlowJob {
  const nodeOf = (step: number): FlowJob =>
    step === 1
      ? { name: "step", queueName, data: { job: key, step } }
      : { name: "step", queueName, data: { job: key, step }, children: [nodeOf(step - 1)] };
  return nodeOf(STEPS);
}

export interface Producer {
  /** Starts the job named `key`: its first step (or its whole flow) is stored when this resolves. */
  start(key: string): Promise<void>;
  close(): Promise<void>;
}

/** The bench's side of a peer: starts jobs with one library call each. */
export async function producer(spec: Omit<WorkerSpec, "concurrency">): Promise<Producer> {
  const connection = { ...spec.servers.redis, maxRetriesPerRequest: null };
  if (spec.peer === "graphile") {
    const utils: WorkerUtils = await makeWorkerUtils({
      connectionString: spec.servers.pgUrl,
      schema: spec.name,
      logger: quietLogger,
    });
    // The schema, before any worker starts (two workers migrating a fresh schema at once would race).
    await utils.migrate();
    return {
      start: async (key) => void (await utils.addJob("step", { job: key, step: 1 })),
      close: async () => await utils.release(),
    };
  }
  if (spec.peer === "bullmq-flow") {
    const flows = new FlowProducer({ connection });
    return {
      start: async (key) => void (await flows.add(flowOf(key, spec.name))),
      close: () => flows.close(),
    };
  }
  const queue = new Queue(spec.name, { connection });
  return {
    start: async (key) => void (await queue.add("step", { job: key, step: 1 })),
    close: () => queue.close(),
  };
}
