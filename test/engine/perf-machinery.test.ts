/**
 * The performance machinery's differential test (docs/performance.md, "The performance machinery
 * and its switch"): the same job workloads on two in-process platforms, one with the machinery
 * (frozen JSON texts, drafts sharing frozen tasks, the fast update path, the read cache) and one
 * with PERF_MACHINERY=off (plain copies, mingo updates, no read cache). Through the broker and
 * HTTP, as a client runs jobs. The stored jobs and the events of each job must be the same, once
 * ids, times and run ids are put aside. A fast path that answers wrong shows up here as a
 * difference, not as a slower run.
 */
import fs from "node:fs";
import path from "node:path";
import type { Context } from "moleculer";
import { EmbeddedBackend } from "../../shared/store/embedded/backend";
import { ENGINE_EVENTS, type JobChangesEvent } from "../../shared/contracts/events";
import {
  auto,
  chain,
  createWorkflow,
  graph,
  manual,
  op,
  pushOrRollbackWorkflow,
  revert,
  sizeCheckWorkflow,
  success,
  taskService,
  visitDevicesWorkflow,
  waitForJob,
  withStore,
  type WorkflowInput,
} from "../support/engine-fixtures";
import { client, login, startPlatform, type Platform } from "../support/platform";

const START = "/operations-manager/jobs/start";
const FINISH = "/workflow_engine/finishTask";

interface Side {
  platform: Platform;
  admin: ReturnType<typeof client>;
  /** Each job's events, in the order they came. */
  events: Map<string, unknown[]>;
}

async function side(env: Record<string, string>): Promise<Side> {
  const platform = await startPlatform({ env });
  const events = new Map<string, unknown[]>();
  platform.broker.createService(taskService().schema);
  platform.broker.createService({
    name: "machinery-events-probe",
    events: {
      [ENGINE_EVENTS.changes](ctx: Context<JobChangesEvent>) {
        const list = events.get(ctx.params.jobId) ?? [];
        list.push(ctx.params);
        events.set(ctx.params.jobId, list);
      },
    },
  });
  await platform.broker.waitForServices(["enginetest", "machinery-events-probe"]);
  return { platform, admin: client(platform.baseUrl, await login(platform.baseUrl)), events };
}

const WORKFLOWS: WorkflowInput[] = [
  chain("m-echo", [
    ["first", auto("enginetest", "echo", { value: "$var.job.device", fixed: 7 }, { result: "$var.job.r" })],
    ["second", auto("enginetest", "echo", { previous: "$var.first.result.value", nested: { d: 1 } })],
    ["third", auto("enginetest", "noop")],
  ]),
  sizeCheckWorkflow("m-branches"),
  visitDevicesWorkflow("m-foreach"),
  pushOrRollbackWorkflow("m-errors"),
  graph(
    "m-revert",
    {
      prep: auto("enginetest", "echo", { prepare: "$var.job.key" }),
      approve: manual("Approve", { decision: null }),
      check: op("evaluation", { operand_1: "$var.approve.decision", operator: "==", operand_2: "yes" }),
    },
    {
      workflow_start: { prep: success },
      prep: { approve: success },
      approve: { check: success },
      check: { workflow_end: success, prep: revert("failure") },
    },
  ),
];

/** Runs the workloads one job at a time (so each job's events come in one order); answers the job ids. */
async function runWorkloads(s: Side): Promise<string[]> {
  const { admin, platform } = s;
  for (const workflow of WORKFLOWS) await createWorkflow(admin, platform.broker, workflow);
  const ids: string[] = [];
  const run = async (workflow: string, variables: Record<string, unknown>) => {
    const started = await admin.post(START, { workflow, options: { variables } });
    expect(started.status).toBe(200);
    ids.push(started.body._id);
    return started.body._id as string;
  };
  const done = async (id: string) =>
    expect((await waitForJob(platform.broker, id)).status).not.toBe("running");
  await done(await run("m-echo", { device: "r1" }));
  const facts = { interfaces: [{ name: "ge-0/0/0" }, { name: "ge-0/0/1" }] };
  await done(await run("m-branches", { count: 3, facts, site: "ams" }));
  await done(await run("m-branches", { count: 30, facts, site: "fra" }));
  await done(await run("m-foreach", { devices: ["r1", "r2", "r3"] }));
  await done(await run("m-foreach", { devices: [] }));
  await done(await run("m-errors", { device: "r9" }));
  const id = await run("m-revert", { key: "k1" });
  const waiting = (job: any) => job.tasks.approve.status === "waiting";
  await waitForJob(platform.broker, id, waiting);
  expect(
    (await admin.post(FINISH, { job_id: id, task_id: "approve", task_data: { decision: "no" } })).status,
  ).toBe(200);
  await waitForJob(platform.broker, id, waiting);
  expect(
    (await admin.post(FINISH, { job_id: id, task_id: "approve", task_data: { decision: "yes" } })).status,
  ).toBe(200);
  await done(id);
  // Events come after their write: let the last ones arrive.
  await new Promise((r) => setTimeout(r, 100));
  return ids;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const ID = /^([0-9a-f]{24}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
const TIME_KEY = /time|until|At$|timestamp|last_updated|created|duration/i;

/** `value` with what differs between two runs of the same work (ids, times, run ids) put aside. */
function comparable(value: unknown, key = ""): unknown {
  if (typeof value === "string") {
    if (ISO.test(value)) return "<time>";
    if (ID.test(value)) return "<id>";
    return value;
  }
  if (typeof value === "number") return TIME_KEY.test(key) ? "<time>" : value;
  if (Array.isArray(value)) return value.map((v) => comparable(v, key));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      // A claim's owner names the replica (node id and a random part).
      out[k] = k === "owner" || k === "nodeID" ? "<owner>" : comparable(v, k);
    }
    return out;
  }
  return value;
}

describe("the performance machinery answers as plain copies do (PERF_MACHINERY on and off; every document cold)", () => {
  let on: Side;
  let off: Side;
  /** The machinery on, every stored document held as its text once written (doc-map.ts). */
  let cold: Side;
  let onStopped = false;

  beforeAll(async () => {
    [on, off, cold] = await Promise.all([
      side({}),
      side({ PERF_MACHINERY: "off" }),
      side({ STORE_HOT_DOCUMENTS: "0" }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([
      onStopped ? undefined : on?.platform.stop(),
      off?.platform.stop(),
      cold?.platform.stop(),
    ]);
  });

  test("the switch reaches the store: frozen shared answers with it, plain copies without", async () => {
    expect(on.platform.config.perfMachinery).toBe(true);
    expect(off.platform.config.perfMachinery).toBe(false);
    expect(cold.platform.config.storeHotDocuments).toBe(0);
    const readOnly = (s: Side) =>
      withStore(s.platform.broker, (store) => store.collection("accounts").find({}, { readOnly: true }));
    const [withIt, without] = await Promise.all([readOnly(on), readOnly(off)]);
    expect(withIt.length).toBeGreaterThan(0);
    expect(Object.isFrozen(withIt[0])).toBe(true);
    expect(Object.isFrozen(without[0])).toBe(false);
  });

  test("the same workloads store the same jobs and send the same events both ways", async () => {
    const [onIds, offIds, coldIds] = await Promise.all([
      runWorkloads(on),
      runWorkloads(off),
      runWorkloads(cold),
    ]);
    expect(onIds).toHaveLength(offIds.length);
    expect(coldIds).toHaveLength(offIds.length);
    const stored = (s: Side, ids: string[]) =>
      withStore(s.platform.broker, async (store) =>
        Promise.all(ids.map((id) => store.collection("jobs").findOne({ _id: id }))),
      );
    const [onJobs, offJobs, coldJobs] = await Promise.all([
      stored(on, onIds),
      stored(off, offIds),
      stored(cold, coldIds),
    ]);
    for (let i = 0; i < onIds.length; i++) {
      // Member order too: the store holds what JSON says.
      expect(JSON.stringify(comparable(onJobs[i]))).toBe(JSON.stringify(comparable(offJobs[i])));
      expect(JSON.stringify(comparable(coldJobs[i]))).toBe(JSON.stringify(comparable(offJobs[i])));
      expect(comparable(cold.events.get(coldIds[i]) ?? [])).toEqual(
        comparable(off.events.get(offIds[i]) ?? []),
      );
      expect(onJobs[i]!.status).not.toBe("running");
      const onEvents = on.events.get(onIds[i]) ?? [];
      expect(onEvents.length).toBeGreaterThan(0);
      expect(comparable(onEvents)).toEqual(comparable(off.events.get(offIds[i]) ?? []));
    }
    // The workloads did what they say (so equal results are not two empty ones).
    expect(onJobs.map((j) => j!.status)).toEqual([
      "complete",
      "complete",
      "complete",
      "complete",
      "complete",
      "complete",
      "complete",
    ]);
    expect((onJobs[3] as any).variables.visited).toHaveLength(3);
    expect((onJobs[5] as any).error).toHaveLength(1);
    expect((onJobs[6] as any).tasks.prep.iterations).toHaveLength(2);
  }, 20_000);

  test("the machinery's log, a changed task's members in place of the task, replays to the same jobs", async () => {
    const before = await withStore(on.platform.broker, (store) => store.collection("jobs").find({}));
    expect(before.length).toBeGreaterThanOrEqual(7);
    await on.platform.stop();
    onStopped = true;
    const log = path.join(on.platform.dataDir, "store", "store.log");
    // With MONGO_URL (TEST_TOPOLOGY=split) the jobs are MongoDB's: no log of ours to replay.
    if (!fs.existsSync(log)) return;
    expect(fs.readFileSync(log, "utf8")).toMatch(/\["set","tasks\.[^".]+\.status",/);
    const reopened = new EmbeddedBackend({ dataDir: on.platform.dataDir });
    try {
      // Member order too.
      expect(JSON.stringify(await reopened.collection("jobs").find({}))).toBe(JSON.stringify(before));
    } finally {
      await reopened.close();
    }
  });
});
