/**
 * Kill an engine replica mid-job (SIGKILL): the other replica resumes its jobs within the
 * documented bound (RESUME_BOUND_MS, docs/engine.md), every job completes, a task whose completion
 * was stored never runs again, and only the tasks that were mid-call on the dead replica run twice
 * (at-least-once), never two runs of one task at the same time.
 *
 * Over real NATS: the store, and two engine replicas, each in its own process
 * (`node dist/app/main.js`); the gateway, accounts and a test service whose slow action
 * records every call (and which replica made it) on this test's broker.
 */
import { randomUUID } from "node:crypto";
import { loadConfig } from "../../shared/config";
import { resumeBoundMs, runnerSettings } from "../../services/engine/run/settings";
import {
  auto,
  chain,
  createWorkflow,
  taskService,
  withStore,
  type RecordedCall,
} from "../support/engine-fixtures";
import { client, login, startPlatform, tempDir, type Platform } from "../support/platform";
import { eventually, spawnServices, type ServiceProcess } from "../support/processes";

const NATS_URL = process.env.NATS_URL!;
const JOBS = 6;
const STEP_MS = 1500;
const STEPS = ["s1", "s2", "s3"];
/** The documented failover bound for the settings this process (and its children) read. */
const RESUME_BOUND_MS = resumeBoundMs(runnerSettings(loadConfig().engine));

describe("an engine replica killed mid-job", () => {
  const namespace = `f-${randomUUID().slice(0, 8)}`;
  const common = { TRANSPORTER: NATS_URL, NAMESPACE: namespace };
  const victim = `${namespace}-engine-1`;
  const survivor = `${namespace}-engine-2`;
  const processes: Record<string, ServiceProcess> = {};
  const svc = taskService();
  let gateway: Platform;

  beforeAll(async () => {
    processes.store = spawnServices({ ...common, SERVICES: "store", DATA_DIR: tempDir() });
    for (const node of [victim, survivor])
      processes[node] = spawnServices({ ...common, SERVICES: "engine", NODE_ID: node, DATA_DIR: tempDir() });
    gateway = await startPlatform({ services: ["gateway", "accounts"], env: common });
    gateway.broker.createService(svc.schema);
    await eventually(
      async () => gateway.broker.registry.getActionEndpoints("engine.startJob")?.count() === 2,
      30_000,
      `two engine replicas\n${Object.values(processes)
        .map((p) => p.output())
        .join("\n")}`,
    );
  }, 60_000);
  afterAll(async () => {
    await gateway?.stop();
    await Promise.all(Object.values(processes).map((p) => p.stop()));
  });

  test("the other replica resumes its jobs within the bound; completed tasks never run again", async () => {
    const admin = client(gateway.baseUrl, await login(gateway.baseUrl));
    await createWorkflow(
      admin,
      gateway.broker,
      chain("warm-up", [["hello", auto("enginetest", "echo", { value: "$var.job.n" })]]),
    );
    await createWorkflow(
      admin,
      gateway.broker,
      chain(
        "slow-steps",
        STEPS.map((step) => [step, auto("enginetest", "slow", { ms: STEP_MS, key: "$var.job.key", step })]),
      ),
    );
    // Both replicas know the test service (and have run a task) before the real jobs start.
    let n = 0;
    await eventually(
      async () => {
        await admin.post("/operations-manager/jobs/start", {
          workflow: "warm-up",
          options: { variables: { n: n++ } },
        });
        await new Promise((r) => setTimeout(r, 100));
        return new Set(svc.calls.filter((c) => c.action === "echo").map((c) => c.caller)).size === 2;
      },
      20_000,
      "both engine replicas running tasks",
    );

    const keys = Array.from({ length: JOBS }, () => randomUUID());
    const ids: string[] = [];
    for (const key of keys) {
      const reply = await admin.post("/operations-manager/jobs/start", {
        workflow: "slow-steps",
        options: { variables: { key } },
      });
      expect(reply.status).toBe(200);
      ids.push(reply.body._id);
    }
    const slow = () => svc.calls.filter((c) => c.action === "slow");
    // Kill once every job's first step is stored complete and the second is running everywhere.
    await eventually(
      async () => slow().filter((c) => c.params.step === "s2").length === JOBS,
      10_000,
      "every second step started",
    );
    const onVictim = slow().filter((c) => c.caller === victim && c.end === undefined);
    expect(onVictim.length).toBeGreaterThan(0); // the kill interrupts real work

    await processes[victim].stop("SIGKILL");
    const killedAt = Date.now();
    // What was stored when the victim died: tasks complete by now must never run again.
    const atKill = await withStore(gateway.broker, (store) =>
      store.collection("jobs").find({ _id: { $in: ids } }),
    );
    const storedComplete = new Set(
      atKill.flatMap((job) =>
        STEPS.filter((s) => job.tasks[s].status === "complete").map((s) => `${job.variables.key}/${s}`),
      ),
    );
    expect(storedComplete.size).toBeGreaterThanOrEqual(JOBS);

    const jobs = await (async () => {
      let last: any[] = [];
      await eventually(
        async () => {
          last = await withStore(gateway.broker, (store) =>
            store.collection("jobs").find({ _id: { $in: ids } }),
          );
          return last.length === JOBS && last.every((j) => j.status !== "running");
        },
        RESUME_BOUND_MS + 3 * STEPS.length * STEP_MS + 10_000,
        "every job to end",
      );
      return last;
    })();
    expect(jobs.map((j) => j.status)).toEqual(Array(JOBS).fill("complete"));
    for (const job of jobs)
      expect(STEPS.map((s) => job.tasks[s].status)).toEqual(["complete", "complete", "complete"]);

    const byTask = new Map<string, RecordedCall[]>();
    for (const call of slow()) {
      const id = `${call.params.key}/${call.params.step}`;
      byTask.set(id, [...(byTask.get(id) ?? []), call]);
    }
    expect(byTask.size).toBe(JOBS * STEPS.length);
    const resumes: number[] = [];
    for (const [id, calls] of byTask) {
      calls.sort((a, b) => a.start - b.start);
      if (storedComplete.has(id)) expect({ id, runs: calls.length }).toEqual({ id, runs: 1 });
      // Every run but the last was cut short by the kill: made by the victim, in flight when it died.
      for (const cut of calls.slice(0, -1)) {
        expect({ id, caller: cut.caller }).toEqual({ id, caller: victim });
        expect(cut.start).toBeLessThanOrEqual(killedAt);
      }
      expect(calls.length).toBeLessThanOrEqual(2);
      // Never two runs of one task at once.
      for (let i = 1; i < calls.length; i++) expect(calls[i].start).toBeGreaterThanOrEqual(calls[i - 1].end!);
      if (calls.length === 2) resumes.push(calls[1].start - killedAt);
    }
    // The victim was mid-call on some tasks: those ran again, on the survivor, within the bound.
    expect(resumes.length).toBeGreaterThan(0);
    for (const resume of resumes) expect(resume).toBeLessThanOrEqual(RESUME_BOUND_MS);
    for (const call of slow().filter((c) => c.start > killedAt)) expect(call.caller).toBe(survivor);
  }, 90_000);
});
