/**
 * The store node's side of the engine over NATS, A/B: `node dist/bench/engine/store-batch.bench.js
 * <distA> <distB>` starts the `store` service of two builds (two `dist` folders; one folder alone
 * measures that build), each on a broker of its own with the platform's middlewares, in one process,
 * and interleaves their rounds, so both see the same machine (on a shared host CPU time moves by
 * 20-30 % between runs; only a comparison within one process says which build does less work).
 *
 * Each round sends `store.batch` requests as an engine replica's RemoteBackend does over NATS: 8
 * compare-and-sets of a transition each (`$set` of the finished and the claimed task, `metrics`,
 * `sweepAt`, `last_updated`; `$inc` of `version`), over 200 jobs, 3 times. The call is local (no
 * transporter): what it measures is the batch's handling on the store node, the bus's parse and
 * serialization left out (the same in both builds). Reports CPU µs (user + system) per
 * compare-and-set: lowest and median round, the first two left out. Env: BENCH_ROUNDS (30).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ServiceBroker, ServiceSchema } from "moleculer";
import { intEnv } from "../support/env";
import { compareBuilds, type Build } from "../support/builds-ab";
import { runBench } from "../support/main";

const ROUNDS = intEnv("BENCH_ROUNDS", 30, 3);
const JOBS = 200;
const PER_BATCH = 8;

const task = (i: number, status: string) => ({
  name: "noop",
  summary: `t${i}`,
  app: "benchtask",
  variables: { incoming: {}, outgoing: {} },
  type: "automatic",
  status,
  previous: { incomplete: [], complete: [`t${i - 1}`], error: [] },
  claim: null,
  loop: null,
  waitingSince: null,
  child: null,
  start_time: "2026-11-25T16:55:04.758Z",
  iterations: ["f6b1f67e-caea-4c62-a1cf-fd40d3bc205b"],
});

type Outcome = { value?: { matchedCount: number } } | { error: unknown };

/* eslint-disable @typescript-eslint/no-require-imports -- two builds' modules side by side, by path */
async function load(dist: string): Promise<Build> {
  const { ServiceBroker: Broker } = require("moleculer") as { ServiceBroker: typeof ServiceBroker };
  const { brokerOptions } = require(path.join(dist, "app/broker-options"));
  const { loadConfig } = require(path.join(dist, "shared/config"));
  const { bindConfig } = require(path.join(dist, "shared/runtime"));
  const storeService = require(path.join(dist, "services/store/store.service")).default as ServiceSchema;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-store-batch-"));
  const config = loadConfig({ DATA_DIR: dataDir, METRICS_PORT: "off", LOG_LEVEL: "warn" });
  const broker = new Broker({
    ...brokerOptions(config),
    nodeID: `store-batch-${path.basename(path.dirname(dist))}`,
    logger: false,
  });
  bindConfig(broker, config);
  broker.createService(storeService);
  await broker.start();
  const call = (method: string, params: Record<string, unknown>) =>
    broker.call(`store.${method}`, { collection: "jobs", ...params });
  await call("createIndex", { spec: { keys: { status: 1, sweepAt: 1 } } });
  const versions = new Map<string, number>();
  for (let j = 0; j < JOBS; j++) {
    const tasks: Record<string, unknown> = {};
    for (let i = 1; i <= 10; i++) tasks[`t${i}`] = task(i, "incomplete");
    const _id = `job-${j}`;
    versions.set(_id, 1);
    await call("insertOne", {
      doc: {
        _id,
        type: "automation",
        name: "bench",
        workflow: { _id: "w", name: "bench" },
        status: "running",
        tasks,
        groups: ["g"],
        created_by: "u",
        metrics: { start_time: Date.now() + j, progress: 0, manual_time: 0 },
        version: 1,
        sweepAt: 1,
        transitions: {},
      },
    });
  }
  const ids = [...versions.keys()];
  let step = 0;
  return {
    name: dist,
    async round() {
      const cpu = process.cpuUsage();
      let updates = 0;
      for (let r = 0; r < 3; r++) {
        step++;
        const t = (step % 10) + 1;
        for (let b = 0; b < ids.length; b += PER_BATCH) {
          const batch = ids.slice(b, b + PER_BATCH);
          // Fresh params per call, as each arrives parsed from the bus.
          const calls = batch.map((id) => ({
            method: "updateOne",
            params: {
              collection: "jobs",
              filter: { _id: id, version: versions.get(id) },
              update: {
                $set: {
                  [`tasks.t${t}`]: task(t, "complete"),
                  [`tasks.t${(t % 10) + 1}`]: task(t, "running"),
                  metrics: { start_time: 1, progress: step % 100, manual_time: 0 },
                  sweepAt: Date.now() + step,
                  last_updated: new Date().toISOString(),
                },
                $inc: { version: 1 },
              },
            },
          }));
          const outcomes = await broker.call<Outcome[], unknown>("store.batch", { calls });
          outcomes.forEach((o, i) => {
            if (!("value" in o) || o.value?.matchedCount !== 1)
              throw new Error(`${batch[i]}: lost its own write`);
            versions.set(batch[i]!, versions.get(batch[i]!)! + 1);
          });
          updates += batch.length;
        }
      }
      const used = process.cpuUsage(cpu);
      return (used.user + used.system) / updates;
    },
    async close() {
      await broker.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
/* eslint-enable @typescript-eslint/no-require-imports */

runBench(() => compareBuilds(load, ROUNDS, "compare-and-set"));
