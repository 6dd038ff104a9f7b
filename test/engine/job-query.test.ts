/**
 * Job queries: operation 5 (GET /operations-manager/admin/jobs) with every queryParameters member
 * of docs/platform-rules.md#object-parameters-on-get, the group-filtered list and the job read (group-based access), over
 * HTTP in both shapes and through the broker. Jobs are seeded straight into the store, shaped like
 * model.ts JobDoc.
 */
import { randomBytes } from "node:crypto";
import { call } from "../../shared/contracts";
import type { Caller } from "../../shared/contracts/resources";
import { acquireStore } from "../../shared/runtime";
import type { Store } from "../../shared/store/types";
import type { JobDoc, JobStatus } from "../../shared/contracts/engine-documents";
import { client, expectError, login, startPlatform, type Platform, type Reply } from "../support/platform";
import { describeInBothShapes } from "../support/shapes";

type Api = ReturnType<typeof client>;
const PW = "job-query-password";
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1, 10); // 2026-01-01T10:00:00Z

const objectId = () => randomBytes(12).toString("hex");

function jobDoc(fields: {
  name: string;
  description: string;
  status: JobStatus;
  workflow: { _id: string; name: string };
  groups: string[];
  start: number;
  variables?: Record<string, unknown>;
  progress?: number;
}): JobDoc {
  const created = new Date(fields.start).toISOString();
  const ended = ["complete", "error", "canceled"].includes(fields.status);
  return {
    _id: objectId(),
    type: "automation",
    name: fields.name,
    description: fields.description,
    workflow: fields.workflow,
    status: fields.status,
    tasks: {
      workflow_start: { name: "workflow_start", type: "operation", status: "complete" } as any,
      a1: {
        name: "lookup",
        app: "devices",
        type: "automatic",
        status: ended ? "complete" : "running",
        start_time: created,
      },
      workflow_end: {
        name: "workflow_end",
        type: "operation",
        status: ended ? "complete" : "incomplete",
      } as any,
    },
    transitions: {
      workflow_start: { a1: { state: "success", type: "standard" } },
      a1: { workflow_end: { state: "success", type: "standard" } },
    },
    variables: fields.variables ?? {},
    error: [],
    errorHandler: null,
    decorators: [],
    groups: fields.groups,
    watchers: [],
    ancestors: [],
    metrics: {
      start_time: fields.start,
      end_time: ended ? fields.start + 60_000 : null,
      progress: fields.progress ?? (ended ? 100 : 50),
      user: "admin",
      owner: "admin",
      manual_time: 0,
    },
    created,
    created_by: "admin",
    last_updated: created,
    last_updated_by: "admin",
    lastUpdatedVersion: "1",
    canvasVersion: 3,
    font_size: 12,
    version: 1,
  };
}

/** Job names of a page: the spec's `items` (admin jobs) or the real product's envelope `data`. */
const names = (reply: Reply) => {
  expect(reply.status).toBe(200);
  return (reply.body.items ?? reply.body.data).map((j: { name: string }) => j.name);
};
const sorted = (list: string[]) => [...list].sort();
/** A stored job as answers show it: the engine's bookkeeping (`version`) stays in the store. */
const shown = <T extends { version?: number }>(job: T) => {
  const { version: _version, ...rest } = job;
  return rest;
};

describeInBothShapes("job queries over HTTP", (platform) => {
  let store: Store;
  let host: Platform;
  let admin: Api;
  let eastEng: Api;
  let westEng: Api;
  let loner: Api;
  let supportUser: Api;
  const groups: Record<string, string> = {};
  const jobs: Record<string, JobDoc> = {};
  let upgrade: { _id: string; name: string };

  beforeAll(async () => {
    const { baseUrl } = platform();
    // The broker that hosts the store service (members[0] in the NATS shape, the only one in-process).
    host = (platform() as Platform & { members?: Platform[] }).members?.[0] ?? platform();
    store = await acquireStore(host.broker);
    admin = client(baseUrl, await login(baseUrl));
    for (const [name, role] of [
      ["east", "engineering"],
      ["west", "engineering"],
      ["lonely", "engineering"],
      ["helpdesk", "support"],
    ]) {
      const reply = await admin.post("/user-management/groups", { name, assignedRoles: [role] });
      expect(reply.status).toBe(200);
      groups[name] = reply.body._id;
    }
    for (const [username, group] of [
      ["east-eng", "east"],
      ["west-eng", "west"],
      ["loner", "lonely"],
      ["helper", "helpdesk"],
    ])
      expect(
        (await admin.post("/user-management/accounts", { username, password: PW, groups: [group] })).status,
      ).toBe(200);
    eastEng = client(baseUrl, await login(baseUrl, "east-eng", PW));
    westEng = client(baseUrl, await login(baseUrl, "west-eng", PW));
    loner = client(baseUrl, await login(baseUrl, "loner", PW));
    supportUser = client(baseUrl, await login(baseUrl, "helper", PW));

    const wf = (name: string) => ({
      name,
      tasks: { workflow_start: {}, workflow_end: {} },
      transitions: { workflow_start: { workflow_end: { state: "success", type: "standard" } } },
    });
    const upgradeWf = await admin.post("/workflow_builder/workflows", { workflow: wf("upgrade") });
    const backupWf = await admin.post("/workflow_builder/workflows", { workflow: wf("backup") });
    upgrade = { _id: upgradeWf.body._id, name: "upgrade" };
    const backup = { _id: backupWf.body._id, name: "backup" };
    const vlan = { _id: objectId(), name: "vlan" }; // a workflow that no longer exists

    jobs.j1 = jobDoc({
      name: "Upgrade core-router-1",
      description: "IOS upgrade on the Core",
      status: "complete",
      workflow: upgrade,
      groups: [groups.east],
      start: T0,
      variables: { site: "nyc", count: 5, dry: true },
    });
    jobs.j2 = jobDoc({
      name: "Upgrade edge-2",
      description: "Edge upgrade",
      status: "running",
      workflow: upgrade,
      groups: [groups.west],
      start: T0 + DAY,
      variables: { site: "sfo", count: "5" },
    });
    jobs.j3 = jobDoc({
      name: "Backup configs",
      description: "Nightly backup, 50% done",
      status: "error",
      workflow: backup,
      groups: [groups.east, groups.west],
      start: T0 + 2 * DAY,
      variables: { site: "nyc", count: 12 },
    });
    jobs.j4 = jobDoc({
      name: "Change VLAN 100",
      description: "Change [a.b]* on access",
      status: "canceled",
      workflow: vlan,
      groups: [],
      start: T0 + 3 * DAY,
      variables: { count: 1 },
    });
    jobs.j5 = jobDoc({
      name: "upgrade lab",
      description: "",
      status: "paused",
      workflow: upgrade,
      groups: ["a-deleted-group"],
      start: T0 + 4 * DAY,
    });
    await store.collection("jobs").insertMany(Object.values(jobs));
  });
  afterAll(async () => {
    await store.close();
  });

  const N = {
    j1: "Upgrade core-router-1",
    j2: "Upgrade edge-2",
    j3: "Backup configs",
    j4: "Change VLAN 100",
    j5: "upgrade lab",
  };
  const adminJobs = (query: string) => admin.get(`/operations-manager/admin/jobs${query}`);

  describe("operation 5: every queryParameters member", () => {
    test("no parameters: every job, newest first, the full page shape", async () => {
      const reply = await adminJobs("");
      expect(names(reply)).toEqual([N.j5, N.j4, N.j3, N.j2, N.j1]);
      expect(reply.body).toEqual(
        expect.objectContaining({
          total: 5,
          currentPageSize: 5,
          hints: [],
          skip: 0,
          limit: 25,
          nextPageSkip: -1,
          previousPageSkip: -1,
        }),
      );
      // The stored documents, whole but for the engine's bookkeeping.
      expect(reply.body.items[4]).toEqual(shown(jobs.j1));
      expect(reply.body.items[4]).not.toHaveProperty("version");
    });

    test("equals: exact text; numbers on number fields", async () => {
      expect(names(await adminJobs("?equals[status]=running"))).toEqual([N.j2]);
      expect(names(await adminJobs("?equals[name]=upgrade%20edge-2"))).toEqual([]);
      expect(names(await adminJobs("?equals[metrics.progress]=100"))).toEqual([N.j4, N.j3, N.j1]);
      expect(names(await adminJobs(`?equals[workflow._id]=${upgrade._id}`))).toEqual([N.j5, N.j2, N.j1]);
      expect(names(await adminJobs("?equals[tasks.a1.status]=running"))).toEqual([N.j5, N.j2]);
    });

    test("equals on other fields (job variables): the text, or its number or boolean", async () => {
      expect(names(await adminJobs("?equals[variables.count]=5"))).toEqual([N.j2, N.j1]);
      expect(names(await adminJobs("?equals[variables.dry]=true"))).toEqual([N.j1]);
      expect(names(await adminJobs("?equals[variables.site]=nyc"))).toEqual([N.j3, N.j1]);
    });

    test("contains, starts-with, ends-with: case-insensitive, the text is data", async () => {
      expect(names(await adminJobs("?contains[name]=UPGRADE"))).toEqual([N.j5, N.j2, N.j1]);
      expect(names(await adminJobs("?starts-with[name]=upgrade%20"))).toEqual([N.j5, N.j2, N.j1]);
      expect(names(await adminJobs("?starts-with[name]=edge"))).toEqual([]);
      expect(names(await adminJobs("?ends-with[name]=-2"))).toEqual([N.j2]);
      expect(names(await adminJobs("?ends-with[description]=core"))).toEqual([N.j1]);
      expect(names(await adminJobs(`?contains[description]=${encodeURIComponent("[a.b]*")}`))).toEqual([
        N.j4,
      ]);
      expect(names(await adminJobs(`?contains[description]=${encodeURIComponent(".*")}`))).toEqual([]);
      expect(names(await adminJobs(`?contains[description]=${encodeURIComponent("50%")}`))).toEqual([N.j3]);
      expect((await adminJobs(`?contains[name]=${encodeURIComponent("(")}`)).body.total).toBe(0);
    });

    test("contains on a number field is a 400", async () => {
      const reply = await adminJobs("?contains[metrics.start_time]=17");
      expect(expectError(reply, 400, "VALIDATION_ERROR").data[0].field).toBe(
        "queryParameters.contains.metrics.start_time",
      );
    });

    test("in and not-in: comma-separated text, repeated keys, or JSON arrays", async () => {
      expect(names(await adminJobs("?in[status]=running,paused"))).toEqual([N.j5, N.j2]);
      expect(names(await adminJobs("?in[status][]=error&in[status][]=canceled"))).toEqual([N.j4, N.j3]);
      expect(
        names(
          await admin.get("/operations-manager/admin/jobs", {
            body: { queryParameters: { in: { status: ["complete"] } } },
          }),
        ),
      ).toEqual([N.j1]);
      expect(names(await adminJobs("?not-in[status]=complete,%20running"))).toEqual([N.j5, N.j4, N.j3]);
      expect(names(await adminJobs(`?in[groups]=${groups.west}`))).toEqual([N.j3, N.j2]);
      expect(names(await adminJobs("?in[variables.count]=1,12"))).toEqual([N.j4, N.j3]);
      expect(names(await adminJobs("?not-in[variables.site]=nyc,sfo"))).toEqual([N.j5, N.j4]);
    });

    test("gt, gte, lt, lte on an epoch-ms field: ISO dates and numbers", async () => {
      const iso = (ms: number) => encodeURIComponent(new Date(ms).toISOString());
      expect(names(await adminJobs(`?gt[metrics.start_time]=${iso(T0 + 2 * DAY)}`))).toEqual([N.j5, N.j4]);
      expect(names(await adminJobs(`?gte[metrics.start_time]=${iso(T0 + 2 * DAY)}`))).toEqual([
        N.j5,
        N.j4,
        N.j3,
      ]);
      expect(names(await adminJobs(`?lt[metrics.start_time]=${T0 + DAY}`))).toEqual([N.j1]);
      expect(names(await adminJobs(`?lte[metrics.start_time]=${T0 + DAY}`))).toEqual([N.j2, N.j1]);
      // A date without a time is midnight UTC; a date-time without an offset is UTC too.
      expect(names(await adminJobs("?gte[metrics.start_time]=2026-01-04"))).toEqual([N.j5, N.j4]);
      expect(names(await adminJobs("?lt[metrics.start_time]=2026-01-02T10:00:00"))).toEqual([N.j1]);
      expect(
        names(await adminJobs("?gt[metrics.start_time]=2026-01-02&lt[metrics.start_time]=2026-01-04")),
      ).toEqual([N.j3, N.j2]);
    });

    test("gt, gte, lt, lte on an ISO-string field: dates and epoch ms", async () => {
      expect(names(await adminJobs("?gt[created]=2026-01-03"))).toEqual([N.j5, N.j4, N.j3]);
      expect(names(await adminJobs(`?lte[created]=${T0 + DAY}`))).toEqual([N.j2, N.j1]);
      expect(
        names(
          await adminJobs(`?gte[tasks.a1.start_time]=${encodeURIComponent("2026-01-05T10:00:00+00:00")}`),
        ),
      ).toEqual([N.j5]);
    });

    test("gt, gte, lt, lte on numbers", async () => {
      expect(names(await adminJobs("?lt[metrics.progress]=100"))).toEqual([N.j5, N.j2]);
      expect(names(await adminJobs("?gte[metrics.progress]=100"))).toEqual([N.j4, N.j3, N.j1]);
      // On a variable: numeric text compares numbers (the text "5" of j2 is not a number).
      expect(names(await adminJobs("?gt[variables.count]=4"))).toEqual([N.j3, N.j1]);
      expect(names(await adminJobs("?lte[variables.count]=5"))).toEqual([N.j4, N.j1]);
    });

    test("a value that is not a date or number where one is needed is a 400", async () => {
      const reply = await adminJobs("?gt[metrics.start_time]=yesterday");
      expect(expectError(reply, 400, "VALIDATION_ERROR").data).toEqual([
        expect.objectContaining({ field: "queryParameters.gt.metrics.start_time" }),
      ]);
      expectError(await adminJobs("?lt[created]=2026-13-45"), 400, "VALIDATION_ERROR");
      expectError(await adminJobs("?equals[metrics.progress]=full"), 400, "VALIDATION_ERROR");
    });

    test("include and exclude", async () => {
      const included = await adminJobs("?include=name,status,metrics.progress&equals[status]=complete");
      expect(included.body.items).toEqual([
        { _id: jobs.j1._id, name: N.j1, status: "complete", metrics: { progress: 100 } },
      ]);
      const noId = await adminJobs("?include=name&exclude=_id&equals[status]=complete");
      expect(noId.body.items).toEqual([{ name: N.j1 }]);
      const excluded = await adminJobs(
        "?exclude=tasks,transitions,variables,metrics.user&equals[status]=complete",
      );
      const { tasks: _t, transitions: _tr, variables: _v, version: _ver, ...rest } = jobs.j1;
      const { user: _u, ...metrics } = jobs.j1.metrics;
      expect(excluded.body.items).toEqual([{ ...rest, metrics }]);
      expectError(await adminJobs("?include=name&exclude=status"), 400, "VALIDATION_ERROR");
      // A projection shapes the answer only: the stored job is whole afterwards.
      expect((await adminJobs("?equals[status]=complete")).body.items).toEqual([shown(jobs.j1)]);
    });

    test("sort and order", async () => {
      expect(names(await adminJobs("?sort=name"))).toEqual([N.j3, N.j4, N.j1, N.j2, N.j5]);
      expect(names(await adminJobs("?sort=name&order=-1"))).toEqual([N.j5, N.j2, N.j1, N.j4, N.j3]);
      expect(names(await adminJobs("?sort=metrics.start_time"))).toEqual([N.j1, N.j2, N.j3, N.j4, N.j5]);
      expect(
        names(await adminJobs("?sort=variables.count&order=-1&in[status]=complete,error,canceled")),
      ).toEqual([N.j3, N.j1, N.j4]);
    });

    test("skip and limit: pages, and nextPageSkip / previousPageSkip at both ends", async () => {
      const first = await adminJobs("?limit=2");
      expect(names(first)).toEqual([N.j5, N.j4]);
      expect(first.body).toEqual(
        expect.objectContaining({
          skip: 0,
          limit: 2,
          total: 5,
          currentPageSize: 2,
          nextPageSkip: 2,
          previousPageSkip: -1,
        }),
      );
      const middle = await adminJobs("?skip=2&limit=2");
      expect(names(middle)).toEqual([N.j3, N.j2]);
      expect(middle.body).toEqual(expect.objectContaining({ nextPageSkip: 4, previousPageSkip: 0 }));
      const last = await adminJobs("?skip=4&limit=2");
      expect(names(last)).toEqual([N.j1]);
      expect(last.body).toEqual(
        expect.objectContaining({ currentPageSize: 1, nextPageSkip: -1, previousPageSkip: 2 }),
      );
      const beyond = await adminJobs("?skip=10&limit=2");
      expect(beyond.body).toEqual(
        expect.objectContaining({
          items: [],
          total: 5,
          currentPageSize: 0,
          nextPageSkip: -1,
          previousPageSkip: 8,
        }),
      );
    });

    test("a limit over 1000 is capped, and the hints say so", async () => {
      const reply = await adminJobs("?limit=5000");
      expect(reply.body.limit).toBe(1000);
      expect(reply.body.items).toHaveLength(5);
      expect(reply.body.hints).toEqual([expect.stringMatching(/5000.*capped at 1000/)]);
      expectError(await adminJobs("?limit=0"), 400, "VALIDATION_ERROR");
      expectError(await adminJobs("?skip=-1"), 400, "VALIDATION_ERROR");
    });

    test("q: free text on name and description", async () => {
      expect(names(await adminJobs("?q=upgrade"))).toEqual([N.j5, N.j2, N.j1]);
      expect(names(await adminJobs("?q=NIGHTLY"))).toEqual([N.j3]);
      expect(names(await adminJobs("?q=ios%20upgrade"))).toEqual([N.j1]);
      expect(names(await adminJobs("?q=upgrade&equals[status]=running"))).toEqual([N.j2]);
    });

    test("dereference=workflow: the workflow document; a deleted one keeps its reference and hints", async () => {
      const reply = await adminJobs("?dereference=workflow&in[status]=complete,canceled");
      const [j4, j1] = reply.body.items;
      expect(j1.workflow).toEqual((await admin.get("/workflow_builder/workflows/upgrade")).body);
      expect(j4.workflow).toEqual(jobs.j4.workflow);
      expect(reply.body.hints).toEqual([expect.stringContaining("'vlan' no longer exists")]);
    });

    test("dereference=groups: group objects; an unknown id becomes {_id} and a hint", async () => {
      const reply = await adminJobs("?dereference=groups&in[status]=error,paused");
      const [j5, j3] = reply.body.items;
      expect(j3.groups.map((g: any) => g.name)).toEqual(["east", "west"]);
      expect(j3.groups[0]).toEqual(
        expect.objectContaining({ _id: groups.east, assignedRoles: ["engineering"] }),
      );
      expect(j5.groups).toEqual([{ _id: "a-deleted-group" }]);
      expect(reply.body.hints).toEqual([expect.stringContaining("'a-deleted-group' does not exist")]);
      expectError(await adminJobs("?dereference=tasks"), 400, "VALIDATION_ERROR");
    });

    test("the parameter in each form of docs/platform-rules.md#object-parameters-on-get gives the same page", async () => {
      const flat = await adminJobs("?equals[status]=error&include=name");
      const wrapped = await adminJobs("?queryParameters[equals][status]=error&queryParameters[include]=name");
      const json = await adminJobs(
        `?queryParameters=${encodeURIComponent(JSON.stringify({ equals: { status: "error" }, include: "name" }))}`,
      );
      const body = await admin.get("/operations-manager/admin/jobs", {
        body: { queryParameters: { equals: { status: "error" }, include: "name" } },
      });
      expect(flat.body.items).toEqual([{ _id: jobs.j3._id, name: N.j3 }]);
      for (const reply of [wrapped, json, body]) expect(reply.body).toEqual(flat.body);
    });

    test("field paths cannot carry operators", async () => {
      for (const query of [
        "?equals[$where]=1",
        "?equals[metrics.$gt]=1",
        "?gt[name..x]=a",
        "?sort=$natural",
        "?include=name,$where",
        "?exclude=$x",
        "?in[$or]=a",
      ]) {
        expectError(await adminJobs(query), 400, "VALIDATION_ERROR");
      }
      // Values are scalars: an operator object in a JSON body is refused by the schema.
      expectError(
        await admin.get("/operations-manager/admin/jobs", {
          body: { queryParameters: { equals: { status: { $ne: "x" } } } },
        }),
        400,
        "VALIDATION_ERROR",
      );
    });

    test("admin/jobs ignores groups; roles outside its list get 403", async () => {
      expect((await eastEng.get("/operations-manager/admin/jobs")).body.total).toBe(5);
      expectError(await supportUser.get("/operations-manager/admin/jobs"), 403, "FORBIDDEN");
    });
  });

  describe("group-based access: GET /operations-manager/jobs and /operations-manager/jobs/:id", () => {
    test("a caller lists only the jobs of its groups; admin lists all", async () => {
      expect(sorted(names(await eastEng.get("/operations-manager/jobs")))).toEqual(sorted([N.j3, N.j1]));
      expect(sorted(names(await westEng.get("/operations-manager/jobs")))).toEqual(sorted([N.j3, N.j2]));
      const none = await loner.get("/operations-manager/jobs");
      expect(none.body).toEqual(
        expect.objectContaining({
          data: [],
          metadata: expect.objectContaining({ total: 0, nextPageSkip: null }),
        }),
      );
      expect((await admin.get("/operations-manager/jobs")).body.metadata.total).toBe(5);
    });

    test("filters narrow within what the caller may see, never beyond", async () => {
      expect(names(await eastEng.get("/operations-manager/jobs?equals[status]=error"))).toEqual([N.j3]);
      expect(names(await eastEng.get(`/operations-manager/jobs?equals[groups]=${groups.west}`))).toEqual([
        N.j3,
      ]);
      expect(names(await eastEng.get("/operations-manager/jobs?equals[status]=running"))).toEqual([]);
      const page = await eastEng.get("/operations-manager/jobs?limit=1");
      expect(page.body).toEqual({
        message: "Successfully retrieved items",
        data: [expect.objectContaining({ name: expect.any(String) })],
        metadata: {
          skip: 0,
          limit: 1,
          total: 2,
          currentPageSize: 1,
          nextPageSkip: 1,
          previousPageSkip: null,
          hints: [],
        },
      });
      const last = await eastEng.get("/operations-manager/jobs?limit=1&skip=1");
      expect(last.body.metadata).toMatchObject({
        nextPageSkip: null,
        previousPageSkip: 0,
        currentPageSize: 1,
      });
    });

    test("reading a job: visible -> the job; invisible or unknown -> the same 404", async () => {
      const read = await eastEng.get(`/operations-manager/jobs/${jobs.j3._id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual({
        message: "Successfully retrieved item",
        data: shown(jobs.j3),
        metadata: {},
      });
      const trimmed = await eastEng.get(`/operations-manager/jobs/${jobs.j3._id}?include=name,status`);
      expect(trimmed.body.data).toEqual({ _id: jobs.j3._id, name: jobs.j3.name, status: jobs.j3.status });
      const hidden = expectError(
        await eastEng.get(`/operations-manager/jobs/${jobs.j2._id}`),
        404,
        "NOT_FOUND",
      );
      const unknownId = objectId();
      const missing = expectError(
        await eastEng.get(`/operations-manager/jobs/${unknownId}`),
        404,
        "NOT_FOUND",
      );
      expect(hidden.message).toBe(`Job '${jobs.j2._id}' not found`);
      expect(missing.message).toBe(`Job '${unknownId}' not found`);
      expect((await admin.get(`/operations-manager/jobs/${jobs.j4._id}`)).body.data).toEqual(shown(jobs.j4));
      expectError(await admin.get("/operations-manager/jobs/not-an-id"), 400, "VALIDATION_ERROR");
      expectError(await supportUser.get(`/operations-manager/jobs/${jobs.j1._id}`), 403, "FORBIDDEN");
    });
  });
});

describe("job query actions through the broker", () => {
  let platform: Platform;
  let store: Store;
  const ids: string[] = [];
  beforeAll(async () => {
    platform = await startPlatform();
    store = await acquireStore(platform.broker);
    const wf = { _id: objectId(), name: "bus-wf" };
    const docs = [
      jobDoc({ name: "bus-a", description: "", status: "running", workflow: wf, groups: ["g1"], start: T0 }),
      jobDoc({
        name: "bus-b",
        description: "",
        status: "complete",
        workflow: wf,
        groups: ["g2"],
        start: T0 + DAY,
      }),
    ];
    ids.push(...docs.map((d) => d._id));
    await store.collection("jobs").insertMany(docs);
  });
  afterAll(async () => {
    await store.close();
    await platform.stop();
  });

  // Resolved just now (resolvedAt): the authorization middleware takes these rights as they are.
  const caller = (groupIds: string[], roles: Caller["roles"] = ["engineering"]): Caller => ({
    accountId: objectId(),
    username: "bus-user",
    roles,
    groupIds,
    resolvedAt: Date.now(),
  });

  test("adminJobs answers the page with the same rules as over HTTP", async () => {
    const page = await call(platform.broker, "engine.adminJobs", {
      queryParameters: { equals: { status: "running" }, include: "name" },
    });
    expect(page).toEqual({
      items: [{ _id: ids[0], name: "bus-a" }],
      total: 1,
      currentPageSize: 1,
      hints: [],
      skip: 0,
      limit: 25,
      nextPageSkip: -1,
      previousPageSkip: -1,
    });
    await expect(
      call(platform.broker, "engine.adminJobs", { queryParameters: { equals: { "tasks.$where": "x" } } }),
    ).rejects.toMatchObject({ code: 400, type: "VALIDATION_ERROR" });
  });

  test("listJobs and getJob honour ctx.meta.caller; a call without one is the platform and sees all", async () => {
    const g1 = { meta: { caller: caller(["g1"]) } };
    expect((await platform.broker.call("engine.listJobs", {}, g1)) as any).toEqual(
      expect.objectContaining({
        data: [expect.objectContaining({ name: "bus-a" })],
        metadata: expect.objectContaining({ total: 1 }),
      }),
    );
    const admin = { meta: { caller: caller([], ["admin"]) } };
    expect(((await platform.broker.call("engine.listJobs", {}, admin)) as any).metadata.total).toBe(2);
    const nobody = { meta: { caller: caller([]) } };
    expect(((await platform.broker.call("engine.listJobs", {}, nobody)) as any).metadata.total).toBe(0);
    expect((await call(platform.broker, "engine.listJobs", {})).metadata.total).toBe(2);
    expect(((await platform.broker.call("engine.getJob", { id: ids[0] }, g1)) as any).data.name).toBe(
      "bus-a",
    );
    await expect(platform.broker.call("engine.getJob", { id: ids[1] }, g1)).rejects.toMatchObject({
      code: 404,
    });
    expect((await call(platform.broker, "engine.getJob", { id: ids[1] })).data.name).toBe("bus-b");
  });
});
