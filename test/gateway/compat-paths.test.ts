/**
 * The real product's other paths for what we serve (issue: client compatibility;
 * docs/compatibility.md): aliases of our routes, the search bodies, the plain job read, the Automation
 * Studio workflow list, workflow export and import.
 */
import { chain, createWorkflow, op, waitForJob } from "../support/engine-fixtures";
import { ADMIN_PASSWORD, client, expectError, noteSecret, request, usePlatform } from "../support/platform";

const env = usePlatform();
let jobId: string;

beforeAll(async () => {
  await createWorkflow(
    env.admin,
    env.platform.broker,
    chain("compat-flow", [["wait", op("delay", { time: 0 })]]),
  );
  await createWorkflow(
    env.admin,
    env.platform.broker,
    chain("compat-other", [["wait", op("delay", { time: 0 })]]),
  );
  // The underscore path of the job start (itential-mcp's operations_manager) starts a job.
  const started = await env.admin.post("/operations_manager/jobs/start", {
    workflow: "compat-flow",
    options: { variables: { site: "lab" } },
  });
  expect(started.status).toBe(200);
  jobId = started.body._id;
  await waitForJob(env.platform.broker, jobId, (job) => job.status === "complete");
});

test("GET /authorization/accounts and /authorization/groups answer {results, total} with the accounts query", async () => {
  const ours = await env.admin.get("/user-management/accounts?equals=admin");
  const theirs = await env.admin.get("/authorization/accounts?equals=admin");
  expect(theirs.status).toBe(200);
  expect(theirs.body).toEqual(ours.body);
  await env.admin.post("/user-management/groups", { name: "compat-netops", assignedRoles: ["operator"] });
  const groups = await env.admin.get("/authorization/groups?equals=compat-netops&equalsField=name");
  expect(groups.status).toBe(200);
  expect(groups.body).toEqual({
    results: [expect.objectContaining({ name: "compat-netops", assignedRoles: ["operator"] })],
    total: 1,
    skip: 0,
    limit: 25,
  });
  const wrapped = await env.admin.get("/authorization/groups", {
    body: { queryOptions: { contains: "netops" } },
  });
  expect(wrapped.body.total).toBe(1);
  expectError(await env.admin.get("/authorization/groups?equalsField=password"), 400, "VALIDATION_ERROR");
  expectError(await client(env.platform.baseUrl).get("/authorization/accounts"), 401, "UNAUTHORIZED");
});

test("POST /workflow_engine/jobs/search takes {options: {query, limit, skip, sort, fields}}", async () => {
  const reply = await env.admin.post("/workflow_engine/jobs/search", {
    options: {
      query: { "workflow.name": "compat-flow", status: { $in: ["complete"] } },
      limit: 5,
      fields: { name: 1, status: 1 },
    },
  });
  expect(reply.status).toBe(200);
  expect(reply.body).toEqual({
    results: [{ _id: jobId, name: "compat-flow", status: "complete" }],
    total: 1,
    limit: 5,
    skip: 0,
  });
  const whole = await env.admin.post("/workflow_engine/jobs/search", { options: { query: { _id: jobId } } });
  expect(whole.body.results[0]).toEqual(
    expect.objectContaining({ _id: jobId, variables: expect.objectContaining({ site: "lab" }) }),
  );
  for (const internal of ["version", "sweepAt", "waitingTasks", "runAs"])
    expect(whole.body.results[0]).not.toHaveProperty(internal);

  // $regex runs on RE2: a nested quantifier is linear there, so it is accepted and answers.
  const regex = await env.admin.post("/workflow_engine/jobs/search", {
    options: { query: { name: { $regex: "^COMPAT-(f+)+low$", $options: "i" } }, fields: { name: 1 } },
  });
  expect(regex.body.results).toEqual([{ _id: jobId, name: "compat-flow" }]);
  // Only field paths and comparison/logical operators reach the store, and RE2 patterns.
  for (const query of [
    { $where: "sleep(1000)" },
    { name: { $regex: "(a)\\1" } },
    { name: { $regex: "a", $options: "x" } },
    { $expr: { $gt: ["$a", 1] } },
    { "$bad.path": 1 },
    { name: { $function: {} } },
    { $or: [] },
  ])
    expectError(
      await env.admin.post("/workflow_engine/jobs/search", { options: { query } }),
      400,
      "VALIDATION_ERROR",
    );
  expectError(
    await env.admin.post("/workflow_engine/jobs/search", { options: { fields: { name: 1, status: 0 } } }),
    400,
    "VALIDATION_ERROR",
  );
});

test("GET /workflow_engine/getJob/:id answers the job document itself, without the engine's bookkeeping", async () => {
  const reply = await env.admin.get(`/workflow_engine/getJob/${jobId}`);
  expect(reply.status).toBe(200);
  expect(reply.body).toEqual(
    expect.objectContaining({ _id: jobId, name: "compat-flow", status: "complete" }),
  );
  expect(reply.body).not.toHaveProperty("version");
  expect(reply.body.created_by).toBe((await env.admin.get("/whoami")).body.account._id);
  expectError(await env.admin.get("/workflow_engine/getJob/0123456789abcdef01234567"), 404, "NOT_FOUND");
});

test("POST /workflow_engine/workflows/search and GET /automation-studio/workflows", async () => {
  const search = await env.admin.post("/workflow_engine/workflows/search", {
    options: {
      query: { name: { $in: ["compat-flow", "compat-other"] } },
      sort: { name: -1 },
      fields: { name: 1 },
    },
  });
  expect(search.status).toBe(200);
  expect(search.body.results.map((w: any) => w.name)).toEqual(["compat-other", "compat-flow"]);
  expect(search.body.total).toBe(2);

  // itential-mcp: equals[name] / equals[_id] on the query string.
  const byName = await env.admin.get("/automation-studio/workflows?equals[name]=compat-flow");
  expect(byName.status).toBe(200);
  expect(byName.body).toEqual(
    expect.objectContaining({ total: 1, items: [expect.objectContaining({ name: "compat-flow" })] }),
  );
  const byId = await env.admin.get(`/automation-studio/workflows?equals[_id]=${byName.body.items[0]._id}`);
  expect(byId.body.items.map((w: any) => w.name)).toEqual(["compat-flow"]);
  // Itential.py: a JSON body {options: {equals, expand, exclude}} on the GET; the users expand to accounts.
  const expanded = await env.admin.get("/automation-studio/workflows", {
    body: {
      options: {
        expand: "created_by,last_updated_by",
        exclude: "created_by._meta,created_by.memberOf",
        equals: { name: "compat-flow" },
      },
    },
  });
  expect(expanded.body.total).toBe(1);
  const workflow = expanded.body.items[0];
  expect(workflow.created_by).toEqual(
    expect.objectContaining({ username: "admin", _id: expect.any(String) }),
  );
  expect(workflow.created_by).not.toHaveProperty("_meta");
  expect(workflow.last_updated_by).toEqual(
    expect.objectContaining({ username: "admin", _meta: expect.any(Object) }),
  );
  expect(JSON.stringify(workflow)).not.toMatch(/hash|password/i);
  const starts = await env.admin.get(
    "/automation-studio/workflows?starts-with[name]=compat-&sort=name&order=-1&limit=1",
  );
  expect(starts.body).toEqual({
    items: [expect.objectContaining({ name: "compat-other" })],
    total: 2,
    skip: 0,
    limit: 1,
  });
});

test("workflow export and import: 409 on a name that exists unless overwrite; the import is validated as a create", async () => {
  const exported = await env.admin.post("/workflow_builder/export", { name: "compat-flow" });
  expect(exported.status).toBe(200);
  expect(exported.body).toEqual(
    expect.objectContaining({
      name: "compat-flow",
      tasks: expect.any(Object),
      transitions: expect.any(Object),
    }),
  );
  for (const key of ["_id", "created", "created_by", "last_updated", "last_updated_by"])
    expect(exported.body).not.toHaveProperty(key);
  // Itential.py's body.
  const theirs = await env.admin.post("/workflow_builder/export", {
    options: { name: "compat-flow", type: "automation" },
  });
  expect(theirs.body).toEqual(exported.body);
  expectError(await env.admin.post("/workflow_builder/export", {}), 400, "VALIDATION_ERROR");
  expectError(await env.admin.post("/workflow_builder/export", { name: "nope" }), 404, "NOT_FOUND");

  expectError(await env.admin.post("/workflow_builder/import", exported.body), 409, "CONFLICT");
  const copy = await env.admin.post("/workflow_builder/import", { ...exported.body, name: "compat-copy" });
  expect(copy.status).toBe(200);
  expect(copy.body).toEqual(expect.objectContaining({ name: "compat-copy", _id: expect.any(String) }));
  const replaced = await env.admin.post("/workflow_builder/import", {
    ...exported.body,
    description: "replaced",
    overwrite: true,
  });
  expect(replaced.status).toBe(200);
  expect((await env.admin.get("/workflow_builder/workflows/compat-flow")).body.description).toBe("replaced");
  const broken = await env.admin.post("/workflow_builder/import", {
    ...exported.body,
    name: "compat-broken",
    transitions: { workflow_start: { nowhere: { state: "success", type: "standard" } } },
  });
  expectError(broken, 400, "VALIDATION_ERROR");
  expectError(await env.admin.get("/workflow_builder/workflows/compat-broken"), 404, "NOT_FOUND");

  // The real product's delete path.
  expect((await env.admin.delete("/workflow_builder/workflows/delete/compat-copy")).status).toBe(200);
  expectError(await env.admin.get("/workflow_builder/workflows/compat-copy"), 404, "NOT_FOUND");
});

test("the health reads take the itential-iap-sdk's {queryOptions} body", async () => {
  const apps = await env.admin.get("/applications", { body: { queryOptions: { sort: "id", limit: 2 } } });
  expect(apps.status).toBe(200);
  expect(apps.body.results).toHaveLength(2);
  expect(apps.body.total).toBeGreaterThan(2);
  const sorted = [...apps.body.results.map((a: any) => a.id)].sort();
  expect(apps.body.results.map((a: any) => a.id)).toEqual(sorted);
});

test("POST /login/ with a trailing slash (Itential.py) signs in like /login", async () => {
  const reply = await request(env.platform.baseUrl, "POST", "/login/", {
    body: { user: { username: "admin", password: ADMIN_PASSWORD } },
  });
  expect(reply.status).toBe(200);
  noteSecret(reply.text);
  expect((await request(env.platform.baseUrl, "GET", "/whoami/", { token: reply.text })).status).toBe(200);
});
