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
 * compare-and-set: lowest and median round, the first two left out. Env: BENCH_ROUNDS (30),
 * BENCH_SETTLE_EVERY (0: never; N: every Nth step's writes say `settled`, as a job's last write
 * does, so each job goes cold then, and its next write parses it back).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ServiceBroker, ServiceSchema } from "moleculer";
import { intEnv } from "../support/env";
import { compareBuilds, type Build } from "../support/builds-ab";
import { runBench } from "../support/main";
import { benchJob, JOBS, transitionSet } from "./transition-fixture";

const ROUNDS = intEnv("BENCH_ROUNDS", 30, 3);
const PER_BATCH = 8;
const SETTLE_EVERY = intEnv("BENCH_SETTLE_EVERY", 0, 0);

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
    const _id = `job-${j}`;
    versions.set(_id, 1);
    await call("insertOne", { doc: benchJob(_id, j) });
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
        for (let b = 0; b < ids.length; b += PER_BATCH) {
          const batch = ids.slice(b, b + PER_BATCH);
          // Fresh params per call, as each arrives parsed from the bus.
          const calls = batch.map((id) => ({
            method: "updateOne",
            params: {
              collection: "jobs",
              filter: { _id: id, version: versions.get(id) },
              update: {
                $set: transitionSet(step),
                $inc: { version: 1 },
              },
              ...(SETTLE_EVERY && step % SETTLE_EVERY === 0 ? { options: { settled: true } } : {}),
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
