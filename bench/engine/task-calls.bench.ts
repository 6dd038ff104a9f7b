/**
 * What a workflow task's call over NATS costs alone and in a batch (shared/task-calls/): a caller
 * node and a task node (its own process, `fork`), both with the platform's broker options, on
 * NATS_URL with a namespace of their own. `CALLERS` loops each make calls of a no-op task action in
 * turn, as the engine's replicas do, as an admin whose rights are fresh; rounds alternate the two
 * ways (`broker.call` alone, `TaskCalls`). Prints each round's CPU µs per call of each process and
 * the calls per batch the task node saw.
 *   node dist/bench/engine/task-calls.bench.js [rounds=10] [calls=8000] [callers=8]
 */
import { fork } from "node:child_process";
import { ServiceBroker, type Context } from "moleculer";
import { brokerOptions } from "../../app/broker-options";
import { loadConfig } from "../../shared/config";
import { bindConfig } from "../../shared/runtime";
import { TaskCalls } from "../../shared/task-calls/send";
import { taskCallsService } from "../../shared/task-calls/serve";

const NAMESPACE = process.env.TASK_CALLS_NS ?? `task-calls-bench-${process.pid}`;
const TASK = { summary: "no-op", variables: { incoming: {}, outgoing: {} } };

function broker(nodeID: string): ServiceBroker {
  const config = loadConfig({
    TRANSPORTER: process.env.NATS_URL ?? "nats://127.0.0.1:4222",
    NAMESPACE,
    METRICS_PORT: "off",
    LOG_LEVEL: "warn",
  });
  const b = new ServiceBroker({ ...brokerOptions(config), nodeID, logger: false });
  bindConfig(b, config);
  return b;
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** The task node: a no-op task and the batch service; answers its CPU and batches on request. */
async function taskNode(): Promise<void> {
  const b = broker("task-node");
  let batches = 0;
  b.createService(taskCallsService());
  b.createService({
    name: "benchtask",
    actions: { noop: { task: TASK, handler: () => ({}) } } as never,
  });
  b.middlewares.add({
    name: "CountBatches",
    localAction: (next: (ctx: Context) => unknown, action: { name: string }) =>
      action.name === "$taskcalls.batch" ? (ctx: Context) => (batches++, next(ctx)) : next,
  } as never);
  await b.start();
  process.on("message", () => process.send!({ cpu: cpuMs(), batches }));
  process.send!({ ready: true });
}

async function main(): Promise<void> {
  const [rounds, calls, callers] = [10, 8000, 8].map((d, i) => Number(process.argv[2 + i] ?? d));
  const child = fork(__filename, ["--task-node"], {
    stdio: "inherit",
    env: { ...process.env, TASK_CALLS_NS: NAMESPACE },
  });
  const ask = () =>
    new Promise<{ cpu: number; batches: number }>((resolve) => {
      child.once("message", resolve as never);
      child.send("cpu");
    });
  await new Promise((resolve) => child.once("message", resolve));
  const caller = broker("caller-node");
  await caller.start();
  await caller.waitForServices(["benchtask", "$taskcalls"], 10_000);
  const batcher = new TaskCalls(caller);
  const admin = { accountId: "a", username: "admin", roles: ["admin"], groupIds: [] };
  const opts = () => ({ timeout: 10_000, meta: { caller: { ...admin, resolvedAt: Date.now() } } });
  const ways = {
    alone: () => caller.call("benchtask.noop", {}, opts()),
    batched: () => batcher.call("benchtask.noop", {}, opts()),
  };
  for (let r = 0; r < rounds; r++) {
    for (const way of (r % 2 ? ["alone", "batched"] : ["batched", "alone"]) as (keyof typeof ways)[]) {
      const before = { mine: cpuMs(), theirs: await ask() };
      let left = calls;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: callers }, async () => {
          while (left-- > 0) await ways[way]();
        }),
      );
      const wall = performance.now() - started;
      const after = { mine: cpuMs(), theirs: await ask() };
      const us = (ms: number) => ((ms * 1000) / calls).toFixed(1);
      console.log(
        `round ${r} ${way.padEnd(7)}: caller ${us(after.mine - before.mine)} µs/call, task node ` +
          `${us(after.theirs.cpu - before.theirs.cpu)}, ${Math.round((calls * 1000) / wall)} calls/s, ` +
          `${after.theirs.batches - before.theirs.batches} batches`,
      );
    }
  }
  await caller.stop();
  child.kill();
}

if (process.argv.includes("--task-node")) void taskNode();
else
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
