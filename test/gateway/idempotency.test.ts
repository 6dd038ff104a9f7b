/**
 * Idempotent writes over HTTP (shared/idempotency.ts, docs/compatibility.md#idempotency-key): a
 * request sent again with the same `Idempotency-Key` answers its first result and does nothing
 * twice; the same key with another body, or a malformed key, is a client error that changes nothing.
 */
import { chain, manual, withStore } from "../support/engine-fixtures";
import {
  client,
  clientWithRoles,
  expectError,
  login,
  startPlatform,
  type Client,
  type Platform,
} from "../support/platform";

let platform: Platform;
let admin: Client;

beforeAll(async () => {
  platform = await startPlatform();
  admin = client(platform.baseUrl, await login(platform.baseUrl));
  const workflow = await admin.post("/workflow_builder/workflows", {
    workflow: chain("Idempotent Approval", [["approve", manual("Approve")]]),
  });
  expect(workflow.status).toBe(200);
});
afterAll(() => platform.stop());

const withKey = (key: string) => ({ headers: { "Idempotency-Key": key } });

test("a create sent twice with one key creates once and answers the first result both times", async () => {
  const first = await admin.post("/user-management/groups", { name: "idem-group" }, withKey("k-group-1"));
  const again = await admin.post("/user-management/groups", { name: "idem-group" }, withKey("k-group-1"));
  expect(first.status).toBe(200);
  expect(again.status).toBe(200);
  expect(again.body).toEqual(first.body);
  const groups = (await admin.get("/user-management/groups?limit=1000")).body.results as { name: string }[];
  expect(groups.filter((g) => g.name === "idem-group")).toHaveLength(1);
  // Without the key, the same body is a new request: the name is taken.
  expectError(await admin.post("/user-management/groups", { name: "idem-group" }), 409, "CONFLICT");
});

test("a job start sent twice with one key starts one job; finishTask twice finishes it once", async () => {
  const body = { workflow: "Idempotent Approval", options: {} };
  const started = await Promise.all([
    admin.post("/operations-manager/jobs/start", body, withKey("k-job-1")),
    admin.post("/operations-manager/jobs/start", body, withKey("k-job-1")),
  ]);
  // Two at once: one runs, the other waits for its answer.
  expect(started.map((r) => r.status)).toEqual([200, 200]);
  expect(started[1].body._id).toBe(started[0].body._id);
  const jobs = await admin.get(`/operations-manager/jobs?equals[name]=Idempotent Approval`);
  expect(jobs.status).toBe(200);
  expect(jobs.body.metadata.total).toBe(1);

  const finish = { task_id: "approve", job_id: started[0].body._id, task_data: { ok: true } };
  const done = await admin.post("/workflow_engine/finishTask", finish, withKey("k-finish-1"));
  const repeat = await admin.post("/workflow_engine/finishTask", finish, withKey("k-finish-1"));
  expect(done.status).toBe(200);
  expect(repeat.status).toBe(200);
  expect(repeat.body).toEqual(done.body);
  // A new request (no key) for a task already finished is refused: the repeat above did not run it.
  expect((await admin.post("/workflow_engine/finishTask", finish)).status).toBeGreaterThanOrEqual(400);
});

test("the same key with another body is 409 and creates nothing", async () => {
  expect((await admin.post("/user-management/groups", { name: "idem-a" }, withKey("k-reuse"))).status).toBe(
    200,
  );
  const other = await admin.post("/user-management/groups", { name: "idem-b" }, withKey("k-reuse"));
  expectError(other, 409, "CONFLICT");
  const groups = (await admin.get("/user-management/groups?limit=1000")).body.results as { name: string }[];
  expect(groups.map((g) => g.name)).not.toContain("idem-b");
});

test("a key is the caller's own: another account's request with it runs as its own", async () => {
  const first = await admin.post("/user-management/groups", { name: "idem-mine" }, withKey("k-shared"));
  expect(first.status).toBe(200);
  const other = await clientWithRoles(platform, admin, ["admin"]);
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
  const reply = await admin.post("/user-management/groups", { name: "idem-bad" }, withKey("x".repeat(256)));
  expect(expectError(reply, 400, "VALIDATION_ERROR").data[0].field).toBe("Idempotency-Key");
  const groups = (await admin.get("/user-management/groups?limit=1000")).body.results as { name: string }[];
  expect(groups.map((g) => g.name)).not.toContain("idem-bad");
});

describe("a replica that died after doing the work, before keeping its answer", () => {
  /** Makes the newest kept answer of `action` look as if its node died mid-call (running, node gone). */
  const orphan = (action: string) =>
    withStore(platform.broker, async (store) => {
      const records = store.collection("idempotency");
      const [newest] = await records.find({ action, state: "done" }, { sort: { expiresAt: -1 }, limit: 1 });
      return records.updateOne({ _id: newest._id }, { $set: { state: "running", node: "a-node-that-died" } });
    });

  test("a create taken over answers what the first attempt created, once", async () => {
    const first = await admin.post("/user-management/groups", { name: "idem-taken" }, withKey("k-take-1"));
    expect(first.status).toBe(200);
    expect(await orphan("accounts.createGroup")).toMatchObject({ modifiedCount: 1 });
    const again = await admin.post("/user-management/groups", { name: "idem-taken" }, withKey("k-take-1"));
    expect(again.status).toBe(200);
    expect(again.body._id).toBe(first.body._id);
    const groups = (await admin.get("/user-management/groups?limit=1000")).body.results as { name: string }[];
    expect(groups.filter((g) => g.name === "idem-taken")).toHaveLength(1);
  });

  test("a job start taken over answers the job already started; finishTask taken over answers the job", async () => {
    const body = { workflow: "Idempotent Approval", options: { description: "taken over" } };
    const first = await admin.post("/operations-manager/jobs/start", body, withKey("k-take-2"));
    expect(first.status).toBe(200);
    expect(await orphan("engine.startJob")).toMatchObject({ modifiedCount: 1 });
    const again = await admin.post("/operations-manager/jobs/start", body, withKey("k-take-2"));
    expect(again.status).toBe(200);
    expect(again.body._id).toBe(first.body._id);
    const jobs = await admin.get(`/operations-manager/jobs?equals[description]=taken over`);
    expect(jobs.body.metadata.total).toBe(1);

    const finish = { task_id: "approve", job_id: first.body._id, task_data: {} };
    expect((await admin.post("/workflow_engine/finishTask", finish, withKey("k-take-3"))).status).toBe(200);
    expect(await orphan("engine.finishTask")).toMatchObject({ modifiedCount: 1 });
    const repeat = await admin.post("/workflow_engine/finishTask", finish, withKey("k-take-3"));
    expect(repeat.status).toBe(200);
    expect(repeat.body.status).toBe("complete");
  });
});
