/**
 * The store node's side of the engine over NATS, A/B: `node dist/bench/engine/store-batch.bench.js
 * <distA> <distB>` starts the `store` service of two builds (two `dist` folders; one folder alone
 * measures that build), each on a broker of its own with the platform's middlewares, in one process,
 * and interleaves their rounds, so both see the same machine (on a shared host CPU time moves by
 * 20-30 % between runs; only a comparison within one process says which build does less work).
 *
 * Each round sends `store.batch` requests as an engine replica's RemoteBackend does over NATS: 8
 * compare-and-sets of a transition each (`$set` of the finished and the claimed task, `metrics`,
 * `sweepAt`, `last_updated`; `$inc` of `version`), over 200 jobs, 3 times. Each task set over the
 * task the job held goes as the members that changed (shared/store/member-writes.ts), as the
 * engine has sent it since the thirty-fourth round (BENCH_WHOLE_TASKS=1: whole, as before). The
 * call is local (no transporter): what it measures is the batch's handling on the store node, the
 * bus's parse and serialization left out (the same in both builds), and so is the making of the
 * calls. Reports CPU µs (user + system) per compare-and-set: lowest and median round, the first
 * two left out. Env: BENCH_ROUNDS (30), BENCH_SETTLE_EVERY (0: never; N: every Nth step's writes
 * say `settled`, as a job's last write does, so each job goes cold then, and its next write parses
 * it back).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ServiceBroker, ServiceSchema } from "moleculer";
import { intEnv } from "../support/env";
import { compareBuilds, type Build } from "../support/builds-ab";
import { runBench } from "../support/main";
import { benchJob, JOBS, transitionSet } from "./transition-fixture";
import { memberWrites, type VersionedChange } from "../../shared/store/member-writes";
import { isPlainObject } from "../../shared/objects";

const ROUNDS = intEnv("BENCH_ROUNDS", 30, 3);
const PER_BATCH = 8;
const SETTLE_EVERY = intEnv("BENCH_SETTLE_EVERY", 0, 0);
const WHOLE_TASKS = process.env.BENCH_WHOLE_TASKS === "1";

/**
 * `set` as the engine sends it over `before` (the job at the write's base version), and `before`
 * moved on. A task's members equal to the ones it had keep their objects, as the engine's drafts
 * share what a transition leaves alone: member writes (shared/store/member-writes.ts) compare by
 * identity, and a fresh but equal object would be sent as changed.
 */
function sentOver(before: Record<string, unknown>, wanted: Record<string, unknown>): Record<string, unknown> {
  const at = (path: string) => {
    const parts = path.split(".");
    let node = before;
    for (const part of parts.slice(0, -1)) node = node[part] as Record<string, unknown>;
    return { node, key: parts[parts.length - 1]! };
  };
  const set: Record<string, unknown> = {};
  for (const [path, value] of Object.entries(wanted)) {
    const { node, key } = at(path);
    set[path] = sharing(node[key], value);
  }
  const sent = WHOLE_TASKS ? { $set: set } : narrowed(memberWrites(set, undefined, before));
  for (const [path, value] of Object.entries(set)) {
    const { node, key } = at(path);
    node[key] = value;
  }
  return sent;
}

/** `next`, its members equal to `old`'s (by their JSON) being `old`'s own objects. */
function sharing(old: unknown, next: unknown): unknown {
  if (!isPlainObject(old) || !isPlainObject(next)) return next;
  const shared: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(next))
    shared[key] = key in old && JSON.stringify(old[key]) === JSON.stringify(value) ? old[key] : value;
  return shared;
}

const narrowed = ({ set, unset }: VersionedChange) => (unset ? { $set: set, $unset: unset } : { $set: set });

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
  /** Each job as stored at its version (what the engine holds and passes as the write's base). */
  const held = new Map<string, Record<string, unknown>>();
  for (let j = 0; j < JOBS; j++) {
    const _id = `job-${j}`;
    versions.set(_id, 1);
    held.set(_id, benchJob(_id, j));
    await call("insertOne", { doc: benchJob(_id, j) });
  }
  const ids = [...versions.keys()];
  let step = 0;
  return {
    name: dist,
    async round() {
      // The store's handling alone: the calls are made (as an engine would, in its own process)
      // outside what is counted.
      let used = 0;
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
              update: { ...sentOver(held.get(id)!, transitionSet(step)), $inc: { version: 1 } },
              ...(SETTLE_EVERY && step % SETTLE_EVERY === 0 ? { options: { settled: true } } : {}),
            },
          }));
          const cpu = process.cpuUsage();
          const outcomes = await broker.call<Outcome[], unknown>("store.batch", { calls });
          const spent = process.cpuUsage(cpu);
          used += spent.user + spent.system;
          outcomes.forEach((o, i) => {
            if (!("value" in o) || o.value?.matchedCount !== 1)
              throw new Error(`${batch[i]}: lost its own write`);
            versions.set(batch[i]!, versions.get(batch[i]!)! + 1);
          });
          updates += batch.length;
        }
      }
      return used / updates;
    },
    async close() {
      await broker.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
/* eslint-enable @typescript-eslint/no-require-imports */

runBench(() => compareBuilds(load, ROUNDS, "compare-and-set"));
