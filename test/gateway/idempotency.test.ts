/**
 * Idempotent writes over HTTP (shared/idempotency.ts, docs/compatibility.md#idempotency-key): a
 * request sent again with the same `Idempotency-Key` answers its first result and does nothing
 * twice; the same key with another body, or a malformed key, is a client error that changes nothing.
 */
import { IDEMPOTENCY_META, KEY_MADE_META } from "../../shared/idempotency";
import { auto, chain, manual, waitForJob, withStore } from "../support/engine-fixtures";
import { clientWithRoles, expectError, usePlatform } from "../support/platform";

const env = usePlatform();

beforeAll(async () => {
  const workflow = await env.admin.post("/workflow_builder/workflows", {
    workflow: chain("Idempotent Approval", [["approve", manual("Approve")]]),
  });
  expect(workflow.status).toBe(200);
});

const withKey = (key: string) => ({ headers: { "Idempotency-Key": key } });

test("a create sent twice with one key creates once and answers the first result both times", async () => {
  const first = await env.admin.post("/user-management/groups", { name: "idem-group" }, withKey("k-group-1"));
  const again = await env.admin.post("/user-management/groups", { name: "idem-group" }, withKey("k-group-1"));
  expect(first.status).toBe(200);
  expect(again.status).toBe(200);
  expect(again.body).toEqual(first.body);
  const groups = (await env.admin.get("/user-management/groups?limit=1000")).body.results as {
    name: string;
  }[];
  expect(groups.filter((g) => g.name === "idem-group")).toHaveLength(1);
  // Without the key, the same body is a new request: the name is taken.
  expectError(await env.admin.post("/user-management/groups", { name: "idem-group" }), 409, "CONFLICT");
});

test("a job start sent twice with one key starts one job; finishTask twice finishes it once", async () => {
  const body = { workflow: "Idempotent Approval", options: {} };
  const started = await Promise.all([
    env.admin.post("/operations-manager/jobs/start", body, withKey("k-job-1")),
    env.admin.post("/operations-manager/jobs/start", body, withKey("k-job-1")),
  ]);
  // Two at once: one runs, the other waits for its answer.
  expect(started.map((r) => r.status)).toEqual([200, 200]);
  expect(started[1].body._id).toBe(started[0].body._id);
  const jobs = await env.admin.get(`/operations-manager/jobs?equals[name]=Idempotent Approval`);
  expect(jobs.status).toBe(200);
  expect(jobs.body.metadata.total).toBe(1);

  const finish = { task_id: "approve", job_id: started[0].body._id, task_data: { ok: true } };
  const done = await env.admin.post("/workflow_engine/finishTask", finish, withKey("k-finish-1"));
  const repeat = await env.admin.post("/workflow_engine/finishTask", finish, withKey("k-finish-1"));
  expect(done.status).toBe(200);
  expect(repeat.status).toBe(200);
  expect(repeat.body).toEqual(done.body);
  // A new request (no key) for a task already finished is refused: the repeat above did not run it.
  expect((await env.admin.post("/workflow_engine/finishTask", finish)).status).toBeGreaterThanOrEqual(400);
});

test("the same key with another body is 409 and creates nothing", async () => {
  expect(
    (await env.admin.post("/user-management/groups", { name: "idem-a" }, withKey("k-reuse"))).status,
  ).toBe(200);
  const other = await env.admin.post("/user-management/groups", { name: "idem-b" }, withKey("k-reuse"));
  expectError(other, 409, "CONFLICT");
  const groups = (await env.admin.get("/user-management/groups?limit=1000")).body.results as {
    name: string;
  }[];
  expect(groups.map((g) => g.name)).not.toContain("idem-b");
});

test("a key is the caller's own: another account's request with it runs as its own", async () => {
  const first = await env.admin.post("/user-management/groups", { name: "idem-mine" }, withKey("k-shared"));
  expect(first.status).toBe(200);
  const other = await clientWithRoles(env.platform, env.admin, ["admin"]);
  // Not admin's kept answer: their own request, refused since the name is taken...
  expectError(
    await other.post("/user-management/groups", { name: "idem-mine" }, withKey("k-shared")),
    409,
    "CONFLICT",
  );
  // ...and with a name of their own, their own group.
  const theirs = await other.post("/user-management/groups", { name: "idem-theirs" }, withKey("k-shared-2"));
  expect(theirs.status).toBe(200);
  expect(theirs.body.name).toBe("idem-theirs");
});

test("a malformed key is 400 and changes nothing", async () => {
  const reply = await env.admin.post(
    "/user-management/groups",
    { name: "idem-bad" },
    withKey("x".repeat(256)),
  );
  expect(expectError(reply, 400, "VALIDATION_ERROR").data[0].field).toBe("Idempotency-Key");
  const groups = (await env.admin.get("/user-management/groups?limit=1000")).body.results as {
    name: string;
  }[];
  expect(groups.map((g) => g.name)).not.toContain("idem-bad");
});

test("a started job's tasks are not its start request: their inserts are plain, not noted in its record", async () => {
  // Three tasks that each store a backup under an id of the service's own: while the start's
  // record noted them (its scope reached the tasks its first step launched), every insert a job
  // made on that replica grew the record by a note and a write.
  const backup = (i: number) =>
    [
      `b${i}`,
      auto("configuration", "createBackup", { deviceName: "idem-dev", config: `hostname r${i}` }),
    ] as [string, ReturnType<typeof auto>];
  const workflow = chain("Idempotent Backups", [backup(1), backup(2), backup(3)]);
  expect((await env.admin.post("/workflow_builder/workflows", { workflow })).status).toBe(200);
  const body = { workflow: "Idempotent Backups", options: {} };
  const started = await env.admin.post("/operations-manager/jobs/start", body, withKey("k-job-tasks"));
  expect(started.status).toBe(200);
  const job = await waitForJob(env.platform.broker, started.body._id);
  expect(job.status).toBe("complete");
  const ids = ["b1", "b2", "b3"].map((t) => job.tasks[t].outgoing.result._id as string);
  expect(new Set(ids).size).toBe(3);
  const record = await withStore(env.platform.broker, async (store) => {
    const [newest] = await store
      .collection("idempotency")
      .find({ action: "engine.startJob" }, { sort: { expiresAt: -1 }, limit: 1 });
    return newest;
  });
  expect(record).toMatchObject({ state: "done", result: { _id: started.body._id } });
  expect(record).not.toHaveProperty("inserts");
  // The start's repeat still answers its job, and starts none.
  const again = await env.admin.post("/operations-manager/jobs/start", body, withKey("k-job-tasks"));
  expect(again.body._id).toBe(started.body._id);
  const jobs = await env.admin.get(`/operations-manager/jobs?equals[name]=Idempotent Backups`);
  expect(jobs.body.metadata.total).toBe(1);
});

describe("a replica that died after doing the work, before keeping its answer", () => {
  /** Makes the newest kept answer of `action` look as if its node died mid-call (running, node gone). */
  const orphan = (action: string) =>
    withStore(env.platform.broker, async (store) => {
      const records = store.collection("idempotency");
      const [newest] = await records.find({ action, state: "done" }, { sort: { expiresAt: -1 }, limit: 1 });
      return records.updateOne({ _id: newest._id }, { $set: { state: "running", node: "a-node-that-died" } });
    });

  test("a create taken over answers what the first attempt created, once", async () => {
    const first = await env.admin.post(
      "/user-management/groups",
      { name: "idem-taken" },
      withKey("k-take-1"),
    );
    expect(first.status).toBe(200);
    expect(await orphan("accounts.createGroup")).toMatchObject({ modifiedCount: 1 });
    const again = await env.admin.post(
      "/user-management/groups",
      { name: "idem-taken" },
      withKey("k-take-1"),
    );
    expect(again.status).toBe(200);
    expect(again.body._id).toBe(first.body._id);
    const groups = (await env.admin.get("/user-management/groups?limit=1000")).body.results as {
      name: string;
    }[];
    expect(groups.filter((g) => g.name === "idem-taken")).toHaveLength(1);
  });

  test("a job start taken over answers the job already started; finishTask taken over answers the job", async () => {
    const body = { workflow: "Idempotent Approval", options: { description: "taken over" } };
    const first = await env.admin.post("/operations-manager/jobs/start", body, withKey("k-take-2"));
    expect(first.status).toBe(200);
    expect(await orphan("engine.startJob")).toMatchObject({ modifiedCount: 1 });
    const again = await env.admin.post("/operations-manager/jobs/start", body, withKey("k-take-2"));
    expect(again.status).toBe(200);
    expect(again.body._id).toBe(first.body._id);
    const jobs = await env.admin.get(`/operations-manager/jobs?equals[description]=taken over`);
    expect(jobs.body.metadata.total).toBe(1);

    const finish = { task_id: "approve", job_id: first.body._id, task_data: {} };
    expect((await env.admin.post("/workflow_engine/finishTask", finish, withKey("k-take-3"))).status).toBe(
      200,
    );
    expect(await orphan("engine.finishTask")).toMatchObject({ modifiedCount: 1 });
    const repeat = await env.admin.post("/workflow_engine/finishTask", finish, withKey("k-take-3"));
    expect(repeat.status).toBe(200);
    expect(repeat.body.status).toBe("complete");
  });
});

describe("a key the gateway made (a call sent to another node)", () => {
  const broker = () => env.platform.broker;
  const startRecords = () =>
    withStore(broker(), (store) =>
      store
        .collection("idempotency")
        .count({ action: "engine.startJob" }, { scan: "a test counting one action's records" }),
    );

  test("a job start keeps no record: its repeat (the gateway's retry) answers the job it started", async () => {
    const meta = () => ({ [IDEMPOTENCY_META]: "made-job-1", [KEY_MADE_META]: true });
    const params = { workflow: "Idempotent Approval", options: { description: "made key" } };
    const before = await startRecords();
    const first = await broker().call<{ _id: string }, typeof params>("engine.startJob", params, {
      meta: meta(),
    });
    // Its job's id is made from the key: the repeat's insert finds it taken and answers that job.
    expect(await startRecords()).toBe(before);
    const again = await broker().call<{ _id: string; status: string }, typeof params>(
      "engine.startJob",
      params,
      { meta: meta() },
    );
    expect(again._id).toBe(first._id);
    expect(again.status).toBe("running");
    const jobs = await env.admin.get(`/operations-manager/jobs?equals[description]=made key`);
    expect(jobs.body.metadata.total).toBe(1);
    expect(await startRecords()).toBe(before);
  });

  test("two at once under one made key start one job, both answered with it", async () => {
    const params = { workflow: "Idempotent Approval", options: { description: "made key race" } };
    const meta = { [IDEMPOTENCY_META]: "made-job-2", [KEY_MADE_META]: true };
    const both = await Promise.all(
      [0, 1].map(() =>
        broker().call<{ _id: string }, typeof params>("engine.startJob", params, { meta: { ...meta } }),
      ),
    );
    expect(both[1]._id).toBe(both[0]._id);
    const jobs = await env.admin.get(`/operations-manager/jobs?equals[description]=made key race`);
    expect(jobs.body.metadata.total).toBe(1);
  });

  test("a made key's other keyed writes keep their record, without the answer", async () => {
    const records = () =>
      withStore(broker(), (store) =>
        store
          .collection("idempotency")
          .find({ action: "accounts.createGroup" }, { scan: "a test's look at a few records" }),
      );
    const before = (await records()).length;
    const made = { [IDEMPOTENCY_META]: "made-group-1", [KEY_MADE_META]: true };
    await broker().call("accounts.createGroup", { name: "idem-made-group" }, { meta: made });
    const after = await records();
    expect(after).toHaveLength(before + 1);
    const record = after.find((r) => (r.expiresAt as number) - Date.now() <= 10 * 60_000);
    expect(record).toMatchObject({ state: "done" });
    expect(record).not.toHaveProperty("result");
  });
});

/**
 * Form creates (the gateway bench's write): the form's id is made from the call's record (its key
 * and the claim's seed, shared/keyed-inserts.ts), so no note of the insert is written, and a
 * takeover finds the form by that id.
 */
describe("form creates: ids made from the key instead of noted inserts", () => {
  const form = (name: string) => ({ name, children: [], elements: [], groups: [] });
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  const formsNamed = async (name: string) =>
    ((await env.admin.get("/service_catalog/GetForms")).body as { name: string; _id: string }[]).filter(
      (f) => f.name === name,
    );
  /** The record of the newest keyed form create, changed by `update`. */
  const changeRecord = (update: Record<string, unknown>) =>
    withStore(env.platform.broker, async (store) => {
      const records = store.collection("idempotency");
      const [newest] = await records.find({ action: "forms.create" }, { sort: { expiresAt: -1 }, limit: 1 });
      await records.updateOne({ _id: newest._id }, update);
      return records.findOne({ _id: newest._id });
    });
  const removeForm = (id: string) =>
    withStore(env.platform.broker, (store) => store.collection("forms").deleteOne({ _id: id }));

  test("eight at once with one key create one form; all eight answer it", async () => {
    const replies = await Promise.all(
      Array.from({ length: 8 }, () =>
        env.admin.post("/formbuilder/forms", form("idem-form-race"), withKey("kf-1")),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(8).fill(200));
    for (const r of replies) expect(r.body).toEqual(replies[0].body);
    expect(replies[0].body._id).toMatch(UUID);
    expect(await formsNamed("idem-form-race")).toHaveLength(1);
  });

  test("a replay after the first succeeded answers the same form; another body is 409 and creates nothing", async () => {
    const first = await env.admin.post("/formbuilder/forms", form("idem-form-a"), withKey("kf-2"));
    expect(first.status).toBe(200);
    const again = await env.admin.post("/formbuilder/forms", form("idem-form-a"), withKey("kf-2"));
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expectError(
      await env.admin.post("/formbuilder/forms", form("idem-form-b"), withKey("kf-2")),
      409,
      "CONFLICT",
    );
    expect(await formsNamed("idem-form-b")).toHaveLength(0);
    expect(await formsNamed("idem-form-a")).toHaveLength(1);
    // The create wrote no note of its insert: its id is made, not remembered.
    const record = await changeRecord({ $set: {} });
    expect(record).toMatchObject({ state: "done", seed: expect.any(String) });
    expect(record).not.toHaveProperty("inserts");
  });

  test("taken over after the insert: answers the form the dead attempt stored, once", async () => {
    const first = await env.admin.post("/formbuilder/forms", form("idem-form-taken"), withKey("kf-3"));
    expect(first.status).toBe(200);
    await changeRecord({ $set: { state: "running", node: "a-node-that-died" } });
    const again = await env.admin.post("/formbuilder/forms", form("idem-form-taken"), withKey("kf-3"));
    expect(again.status).toBe(200);
    expect(again.body._id).toBe(first.body._id);
    expect(await formsNamed("idem-form-taken")).toHaveLength(1);
  });

  test("taken over before the insert: the takeover stores the form under the same made id", async () => {
    const first = await env.admin.post("/formbuilder/forms", form("idem-form-early"), withKey("kf-4"));
    expect(first.status).toBe(200);
    // As if the first attempt died before its insert: running on a dead node, no form.
    await changeRecord({ $set: { state: "running", node: "a-node-that-died" } });
    expect(await removeForm(first.body._id)).toBe(1);
    const again = await env.admin.post("/formbuilder/forms", form("idem-form-early"), withKey("kf-4"));
    expect(again.status).toBe(200);
    expect(again.body._id).toBe(first.body._id);
    expect(await formsNamed("idem-form-early")).toHaveLength(1);
  });

  test("a key whose record expired is a new request: a new form under a new id", async () => {
    const first = await env.admin.post("/formbuilder/forms", form("idem-form-old"), withKey("kf-5"));
    expect(first.status).toBe(200);
    await changeRecord({ $set: { expiresAt: Date.now() - 1000 } });
    const next = await env.admin.post("/formbuilder/forms", form("idem-form-new"), withKey("kf-5"));
    expect(next.status).toBe(200);
    expect(next.body._id).not.toBe(first.body._id);
    expect(await formsNamed("idem-form-old")).toHaveLength(1);
    expect(await formsNamed("idem-form-new")).toHaveLength(1);
  });

  test("a record from before made ids (notes, no seed) is taken over by its notes", async () => {
    const first = await env.admin.post("/formbuilder/forms", form("idem-form-legacy"), withKey("kf-6"));
    expect(first.status).toBe(200);
    await changeRecord({
      $set: { state: "running", node: "a-node-that-died", inserts: [{ c: "forms", id: first.body._id }] },
      $unset: { seed: "" },
    });
    const again = await env.admin.post("/formbuilder/forms", form("idem-form-legacy"), withKey("kf-6"));
    expect(again.status).toBe(200);
    expect(again.body._id).toBe(first.body._id);
    expect(await formsNamed("idem-form-legacy")).toHaveLength(1);
  });

  test("without a key, served on the gateway's node: no record kept, a random UUID each", async () => {
    const kept = () =>
      withStore(env.platform.broker, (store) =>
        store
          .collection("idempotency")
          .count({ action: "forms.create" }, { scan: "a test counting one action's records" }),
      );
    const before = await kept();
    const a = await env.admin.post("/formbuilder/forms", form("idem-form-nokey-1"));
    const b = await env.admin.post("/formbuilder/forms", form("idem-form-nokey-2"));
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body._id).toMatch(UUID);
    expect(b.body._id).not.toBe(a.body._id);
    // Nobody can repeat them (the gateway's key is used only once a call leaves its node:
    // test/unit/idempotency-made-keys.test.ts); with a key, the record is there.
    expect(await kept()).toBe(before);
    expect((await env.admin.post("/formbuilder/forms", form("idem-form-key"), withKey("kf-7"))).status).toBe(
      200,
    );
    expect(await kept()).toBe(before + 1);
  });
});
