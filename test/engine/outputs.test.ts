/**
 * Bounded job documents (docs/engine.md#where-outputs-live): a task's outputs, a job variable or
 * the job's error records too big for the job document live in `job_outputs`, referenced from the
 * job, and every job read and every later task sees them whole. Over HTTP and through the broker
 * on an in-process platform (its embedded store refuses a document past 16 MiB, as MongoDB does),
 * and on the job store itself for the order of writes.
 */
import type { Context } from "moleculer";
import { JobStore, writableTask } from "../../services/engine/run/jobs";
import { CHUNK_CHARS, SPILL_BYTES, spillWrite } from "../../services/engine/run/outputs";
import { JobOutputRepository, type OutputChunk } from "../../services/engine/job-outputs.repository";
import { JobRepository } from "../../services/engine/jobs.repository";
import { finish, Step } from "../../services/engine/run/transitions";
import { auto, chain, createWorkflow, op, readJob, waitForJob, withStore } from "../support/engine-fixtures";
import { newJob } from "../support/engine-builders";
import { client, login, startPlatform, type Platform } from "../support/platform";
import { startShape, type ShapePlatform } from "../support/shapes";

const MIB = 1024 * 1024;
const START = "/operations-manager/jobs/start";

/** Task actions: `blob` answers `{data}` of `mib` MiB of `fill`, `measure` answers what it got. */
const blobService = {
  name: "blobtest",
  actions: {
    blob: {
      task: { summary: "A big answer", variables: { incoming: { mib: 1, fill: "x" }, outgoing: {} } },
      handler(ctx: Context<{ mib: number; fill: string; bytes?: number }>) {
        const size = ctx.params.bytes ?? Math.round(ctx.params.mib * MIB);
        return { data: ctx.params.fill.repeat(size), size };
      },
    },
    measure: {
      task: { summary: "Measures its input", variables: { incoming: { value: "" }, outgoing: {} } },
      handler(ctx: Context<{ value: unknown; head?: unknown }>) {
        const value = ctx.params.value;
        return { length: typeof value === "string" ? value.length : -1, first: String(value).slice(0, 1) };
      },
    },
    fail: {
      task: { summary: "Always fails", variables: { incoming: {}, outgoing: {} } },
      handler() {
        throw new Error("upstream refused");
      },
    },
  },
} as any;

const sizeOf = (value: unknown) => JSON.stringify(value).length;

describe("bounded job documents", () => {
  let platform: Platform;
  let admin: ReturnType<typeof client>;

  beforeAll(async () => {
    platform = await startPlatform();
    platform.broker.createService(blobService);
    await platform.broker.waitForServices(["blobtest"]);
    admin = client(platform.baseUrl, await login(platform.baseUrl));
  }, 60_000);
  afterAll(async () => {
    await platform?.stop();
  });

  const outputsOf = (jobId: string) =>
    withStore(platform.broker, (store) => store.collection("job_outputs").find({ jobId }));

  test("a job whose tasks return 20 MiB completes; its outputs read back whole over HTTP and the bus", async () => {
    const fills = ["a", "b", "c", "d", "e"];
    await createWorkflow(
      admin,
      platform.broker,
      chain("twenty-mib", [
        ...fills.map(
          (fill, i) =>
            [
              `b${i + 1}`,
              auto("blobtest", "blob", { mib: 4, fill }, i === 4 ? { data: "$var.job.last" } : {}),
            ] as [string, Record<string, unknown>],
        ),
        // A later task reads an earlier task's big output as its input.
        ["m1", auto("blobtest", "measure", { value: "$var.b2.result.data" })],
        ["m2", auto("blobtest", "measure", { value: "$var.job.last.data" })],
      ]),
    );
    const started = await admin.post(START, { workflow: "twenty-mib", options: { variables: {} } });
    expect(started.status).toBe(200);
    const id = started.body._id;
    const done = await waitForJob(platform.broker, id, (job) => job.status !== "running", 60_000);
    expect(done.status).toBe("complete");

    // The stored job is small: each big value is a reference, its place left null.
    expect(sizeOf(done)).toBeLessThan(SPILL_BYTES * 2);
    expect(done.tasks.b1.outgoing).toBeNull();
    expect(done.variables.last).toBeNull();
    expect(done.spilled.map((s: any) => s.path.join("."))).toEqual(
      expect.arrayContaining(["tasks.b1.outgoing", "tasks.b5.outgoing", "variables.last"]),
    );
    const chunks = await outputsOf(id);
    expect(chunks.reduce((n: number, c: any) => n + c.text.length, 0)).toBeGreaterThan(24 * MIB);

    // The later tasks got the earlier outputs whole.
    const read = await admin.get(`/operations-manager/jobs/${id}`);
    expect(read.status).toBe(200);
    const job = read.body.data;
    expect(job.spilled).toBeUndefined();
    expect(job.tasks.m1.outgoing.result).toEqual({ length: 4 * MIB, first: "b" });
    expect(job.tasks.m2.outgoing.result).toEqual({ length: 4 * MIB, first: "e" });
    fills.forEach((fill, i) => {
      const result = job.tasks[`b${i + 1}`].outgoing.result ?? job.tasks[`b${i + 1}`].outgoing.data;
      expect(result.size).toBe(4 * MIB);
      expect(result.data).toBe(fill.repeat(4 * MIB));
    });
    expect(job.variables.last.data).toBe("e".repeat(4 * MIB));

    const output = await admin.get(`/workflow_engine/job/${id}/output`);
    expect(output.status).toBe(200);
    expect(output.body.tasks.b3.outgoing.result.data).toBe("c".repeat(4 * MIB));
    expect(output.body.variables.last.data).toBe("e".repeat(4 * MIB));

    const document = await admin.get(`/workflow_engine/getJob/${id}`);
    expect(document.status).toBe(200);
    expect(document.body.tasks.b4.outgoing.result.data).toBe("d".repeat(4 * MIB));

    // A projection that keeps only one task's outgoing still gets it whole.
    const projected = await admin.get(`/operations-manager/jobs/${id}?include=tasks.b1.outgoing`);
    expect(projected.status).toBe(200);
    expect(projected.body.data.tasks.b1.outgoing.result.data).toBe("a".repeat(4 * MIB));

    // Through the broker, as a platform call.
    const viaBus: any = await platform.broker.call("engine.jobOutput", { id });
    expect(viaBus.tasks.b2.outgoing.result.data).toBe("b".repeat(4 * MIB));
  }, 120_000);

  test("a child job started with a big variable stores it apart; its parent reads it back whole", async () => {
    await createWorkflow(
      admin,
      platform.broker,
      chain("big-child", [
        ["m", auto("blobtest", "measure", { value: "$var.job.big.data" }, { result: "$var.job.measured" })],
      ]),
    );
    await createWorkflow(
      admin,
      platform.broker,
      chain("big-parent", [
        ["b", auto("blobtest", "blob", { mib: 1, fill: "k" })],
        ["spawn", op("childJob", { workflow: "big-child", variables: { big: "$var.b.result" } })],
      ]),
    );
    const started = await admin.post(START, { workflow: "big-parent", options: { variables: {} } });
    const done = await waitForJob(platform.broker, started.body._id, (j) => j.status !== "running", 30_000);
    expect(done.status).toBe("complete");
    const childId = done.tasks.spawn.child.jobId;
    const child = await readJob(platform.broker, childId);
    expect(child.variables.big).toBeNull();
    expect(child.spilled.map((e: any) => e.path)).toEqual(expect.arrayContaining([["variables", "big"]]));
    // The child's task read the variable whole; the parent's task got the child's variables whole.
    const read = await admin.get(`/operations-manager/jobs/${started.body._id}`);
    const details = read.body.data.tasks.spawn.outgoing.job_details;
    expect(details.variables.measured).toEqual({ length: MIB, first: "k" });
    expect(details.variables.big.data).toBe("k".repeat(MIB));
  }, 60_000);

  test("small outputs stay in the job: no reference, nothing in job_outputs", async () => {
    await createWorkflow(
      admin,
      platform.broker,
      chain("small-outputs", [["s1", auto("blobtest", "blob", { mib: 0, bytes: 1000, fill: "s" })]]),
    );
    const started = await admin.post(START, { workflow: "small-outputs", options: { variables: {} } });
    const done = await waitForJob(platform.broker, started.body._id);
    expect(done.status).toBe("complete");
    expect(done.spilled).toBeUndefined();
    expect(done.tasks.s1.outgoing.result.data).toBe("s".repeat(1000));
    expect(await outputsOf(started.body._id)).toEqual([]);
  });

  test("error records beyond the inline count leave the job and read back whole", async () => {
    await createWorkflow(
      admin,
      platform.broker,
      chain("many-errors", [
        [
          "f1",
          auto(
            "blobtest",
            "fail",
            {},
            {},
            { retrySettings: { autoRetry: true, limit: 120, delay: 0, count: 0 } },
          ),
        ],
      ]),
    );
    const started = await admin.post(START, { workflow: "many-errors", options: { variables: {} } });
    const done = await waitForJob(platform.broker, started.body._id, (j) => j.status !== "running", 60_000);
    expect(done.status).toBe("error");
    expect(done.error).toEqual([]);
    expect(done.spilled.map((s: any) => s.path)).toEqual([["error"]]);
    const read = await admin.get(`/operations-manager/jobs/${started.body._id}`);
    expect(read.body.data.error).toHaveLength(121);
    expect(read.body.data.error[0].message.message.error.message).toBe("upstream refused");
  }, 60_000);

  test("a value is cut into chunks never inside a surrogate pair, and put back whole", async () => {
    await withStore(platform.broker, async (store) => {
      const outputs = new JobOutputRepository(store);
      const stored = store.collection<OutputChunk>("job_outputs");
      const jobId = `surrogates-${Date.now()}`;
      // The JSON text's high surrogate falls on the last place of the first chunk.
      const value = "a".repeat(CHUNK_CHARS - 2) + "\u{1F600}" + "b";
      const write = spillWrite(jobId, ["tasks", "t", "outgoing"], JSON.stringify(value));
      await outputs.write(jobId, [write]);
      const chunks = await stored.find({ jobId }, { sort: { n: 1 } });
      expect(chunks.map((c) => c.text.length)).toEqual([CHUNK_CHARS - 1, 4]);
      const doc = { _id: jobId, tasks: { t: { outgoing: null } }, spilled: [write.entry] };
      await outputs.hydrate(doc);
      expect(doc.tasks.t.outgoing).toBe(value);
      await outputs.deleteForJob(jobId);
    });
  });

  test("the job store writes a value before the job, replaces it, and removes it with the job", async () => {
    await withStore(platform.broker, async (store) => {
      const jobs = new JobStore(new JobRepository(store));
      const outputs = new JobOutputRepository(store);
      // What the store holds, read as a test reads it (the repositories answer no raw chunks).
      const chunksOf = store.collection<OutputChunk>("job_outputs");
      const job = newJob(
        chain("store-order", [["t1", auto("x", "y")]]),
        {},
        Date.now(),
        `store-order-${Date.now()}`,
      );
      await jobs.insert(job);
      const big = (fill: string) => ({ result: fill.repeat(SPILL_BYTES + 10) });
      const step = () =>
        new Step({ now: Date.now(), me: "test", budget: 0, claimTtlMs: 1000, newJobId: () => "unused" });

      await jobs.update(job._id, (draft) => {
        writableTask(draft, "t1")!.status = "running";
        finish(draft, "t1", { state: "success", outgoing: big("p") }, step());
      });
      let chunks = await chunksOf.find({ jobId: job._id });
      // 256 KiB and more of JSON: two chunks of at most 256 Ki characters.
      expect(chunks).toHaveLength(2);
      const stored = await readJob(platform.broker, job._id);
      expect(stored.tasks.t1.outgoing).toBeNull();
      expect(chunks.map((c: any) => c._id).sort()).toEqual(
        [0, 1].map((n) => `${stored.spilled[0].ref}:${n}`),
      );

      // A write that does not touch the value writes nothing to job_outputs.
      await jobs.update(job._id, (draft) => {
        draft.description = "changed";
      });
      expect(await chunksOf.find({ jobId: job._id })).toEqual(chunks);

      // A new value: stored under a new reference; the one it replaces is removed.
      await jobs.update(job._id, (draft) => {
        writableTask(draft, "t1")!.outgoing = big("q");
      });
      chunks = await chunksOf.find({ jobId: job._id });
      expect(chunks).toHaveLength(2);
      expect(chunks.find((c: any) => c.n === 0)!.text.startsWith('{"result":"qqq')).toBe(true);

      // Another replica reads the job whole.
      const fresh = await new JobStore(new JobRepository(store)).read(job._id);
      expect(fresh!.tasks.t1!.outgoing).toEqual(big("q"));

      // A value written whose job write never happened (a crash in between) is removed with the job.
      await outputs.write(job._id, [
        {
          entry: { path: ["tasks", "t1", "outgoing"], ref: `${job._id}/orphan`, chunks: 1, bytes: 2 },
          text: "{}",
        },
      ]);
      expect(await chunksOf.count({ jobId: job._id })).toBe(3);
      expect(await outputs.deleteForJob(job._id)).toBe(3);
    });
  });
});

describe("bounded job documents over NATS (store, engine and gateway on separate brokers)", () => {
  let platform: ShapePlatform;
  let admin: ReturnType<typeof client>;

  beforeAll(async () => {
    platform = await startShape("over NATS");
    platform.broker.createService(blobService);
    for (const member of platform.members) await member.broker.waitForServices(["blobtest"], 15_000);
    admin = client(platform.baseUrl, await login(platform.baseUrl));
  }, 60_000);
  afterAll(async () => {
    await platform?.stop();
  });

  test("outputs over the bound are stored apart through the store service and read back whole", async () => {
    // 300 KiB each: over the bound, and each message under nats-server's 1 MiB.
    const bytes = 300 * 1024;
    await createWorkflow(
      admin,
      platform.broker,
      chain("nats-outputs", [
        ["b1", auto("blobtest", "blob", { mib: 0, bytes, fill: "n" })],
        ["m1", auto("blobtest", "measure", { value: "$var.b1.result.data" })],
      ]),
    );
    const started = await admin.post(START, { workflow: "nats-outputs", options: { variables: {} } });
    expect(started.status).toBe(200);
    const done = await waitForJob(platform.broker, started.body._id, (j) => j.status !== "running", 30_000);
    expect(done.status).toBe("complete");
    expect(done.tasks.b1.outgoing).toBeNull();
    expect(done.spilled[0].chunks).toBe(2);
    const output = await admin.get(`/workflow_engine/job/${started.body._id}/output`);
    expect(output.status).toBe(200);
    expect(output.body.tasks.b1.outgoing.result.data).toBe("n".repeat(bytes));
    expect(output.body.tasks.m1.outgoing.result).toEqual({ length: bytes, first: "n" });
  }, 60_000);
});
