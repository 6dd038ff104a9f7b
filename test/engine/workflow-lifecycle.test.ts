/**
 * A workflow's end of life over HTTP (docs/engine-queries.md#deleting-a-workflow): a delete is refused with
 * 409 while an automation runs the workflow (named by the automation catalog's `workflow` or by the
 * operations manager's `componentId`) or one of its jobs is running or paused, unless `?force=true`;
 * a rename is refused while an automation runs it (automations run a workflow by its name).
 * And the real product's client `Itential.py` (tagmeh/Itential.py), each call sent exactly as it
 * sends it: `workflow.delete` (reads `name` from the answer), `workflow.upload` (posts
 * `{"workflow": {...}}` to /workflow_builder/import) and its 2023.1 `get_jobs(workflow_name=...)`
 * (a plain `equals=<name>` query parameter).
 */
import { chain, manual, waitForJob } from "../support/engine-fixtures";
import { clientWithRoles, expectError, usePlatform } from "../support/platform";

const env = usePlatform({ env: { SCHEDULER_TICK_MS: "100000" } }, 60_000);

async function createWorkflow(name: string, steps: Parameters<typeof chain>[1] = []) {
  const reply = await env.admin.post("/workflow_builder/workflows", { workflow: chain(name, steps) });
  expect(reply.status).toBe(200);
  return reply.body;
}

const exists = async (name: string) =>
  (await env.admin.get(`/workflow_builder/workflows/${encodeURIComponent(name)}`)).status === 200;

describe("deleting a workflow that is in use", () => {
  test("an automation catalog automation naming it: 409 naming the automation, then ?force=true deletes", async () => {
    await createWorkflow("Nightly backup");
    const automation = await env.admin.post("/automation_catalog/automations", {
      name: "Nightly backup schedule",
      workflow: "Nightly backup",
    });
    expect(automation.status).toBe(200);

    const refused = expectError(
      await env.admin.delete("/workflow_builder/workflows/Nightly%20backup"),
      409,
      "CONFLICT",
    );
    expect(refused.message).toMatch(/Nightly backup schedule/);
    expect(refused.message).toMatch(/force=true/);
    expect(refused.data).toEqual({
      workflow: "Nightly backup",
      automations: { total: 1, automations: [{ _id: automation.body._id, name: "Nightly backup schedule" }] },
      jobs: { total: 0, ids: [] },
    });
    expect(await exists("Nightly backup")).toBe(true);

    // Deleting the automation frees the workflow.
    expect((await env.admin.delete(`/automation_catalog/automations/${automation.body._id}`)).status).toBe(
      200,
    );
    const deleted = await env.admin.delete("/workflow_builder/workflows/Nightly%20backup");
    expect(deleted.status).toBe(200);
    expect(await exists("Nightly backup")).toBe(false);
  });

  test("an operations-manager automation naming it by componentId: 409; force deletes it anyway", async () => {
    const wf = await createWorkflow("Port turn-up");
    const om = await env.admin.post("/operations-manager/automations", {
      name: "Port turn-up automation",
      componentType: "workflows",
      componentId: wf._id,
    });
    expect(om.status).toBe(200);
    const refused = expectError(
      await env.admin.delete("/workflow_builder/workflows/Port%20turn-up"),
      409,
      "CONFLICT",
    );
    expect(refused.data.automations.automations.map((a: any) => a.name)).toEqual(["Port turn-up automation"]);

    // `force=false` is no force.
    expectError(
      await env.admin.delete("/workflow_builder/workflows/Port%20turn-up?force=false"),
      409,
      "CONFLICT",
    );
    const forced = await env.admin.delete("/workflow_builder/workflows/Port%20turn-up?force=true");
    expect(forced.status).toBe(200);
    expect(forced.body).toEqual({
      status: "OK",
      message: "Workflow 'Port turn-up' deleted",
      name: "Port turn-up",
    });
    expect(await exists("Port turn-up")).toBe(false);
  });

  test("a running (waiting) or paused job of it: 409 naming the job; a finished job does not hold it", async () => {
    await createWorkflow("Change with approval", [["approve", manual("Approve")]]);
    const job = (
      await env.admin.post("/operations-manager/jobs/start", {
        workflow: "Change with approval",
        options: {},
      })
    ).body;
    await waitForJob(env.platform.broker, job._id, (j) => j.tasks?.approve?.status === "waiting");

    const running = expectError(
      await env.admin.delete("/workflow_builder/workflows/Change%20with%20approval"),
      409,
      "CONFLICT",
    );
    expect(running.data.jobs).toEqual({ total: 1, ids: [job._id] });
    expect(running.data.automations.total).toBe(0);
    expect(running.message).toMatch(/1 running or paused job/);

    expect((await env.admin.post("/operations-manager/jobs/pause", { jobIds: [job._id] })).status).toBe(200);
    await waitForJob(env.platform.broker, job._id, (j) => j.status === "paused");
    expectError(
      await env.admin.delete("/workflow_builder/workflows/Change%20with%20approval"),
      409,
      "CONFLICT",
    );

    expect((await env.admin.post(`/operations-manager/jobs/${job._id}/cancel`)).status).toBe(200);
    await waitForJob(env.platform.broker, job._id, (j) => j.status === "canceled");
    expect((await env.admin.delete("/workflow_builder/workflows/Change%20with%20approval")).status).toBe(200);
  });

  test("roles as any workflow write; an unknown workflow is a 404 with or without force", async () => {
    await createWorkflow("Guarded");
    const reader = await clientWithRoles(env.platform, env.admin, ["apiread"]);
    expectError(await reader.delete("/workflow_builder/workflows/Guarded?force=true"), 403, "FORBIDDEN");
    expect(await exists("Guarded")).toBe(true);
    const engineer = await clientWithRoles(env.platform, env.admin, ["engineering"]);
    expect((await engineer.delete("/workflow_builder/workflows/Guarded")).status).toBe(200);

    expectError(await env.admin.delete("/workflow_builder/workflows/Never%20made"), 404, "NOT_FOUND");
    expectError(
      await env.admin.delete("/workflow_builder/workflows/Never%20made?force=true"),
      404,
      "NOT_FOUND",
    );
    const bad = expectError(
      await env.admin.delete("/workflow_builder/workflows/Guarded?force=maybe"),
      400,
      "VALIDATION_ERROR",
    );
    expect(bad.data[0].field).toBe("force");
  });

  test("a rename is refused too while an automation runs it (by its name); a replace keeping the name is not", async () => {
    await createWorkflow("Renamed later");
    const automation = (
      await env.admin.post("/automation_catalog/automations", {
        name: "Runs it by name",
        workflow: "Renamed later",
      })
    ).body;
    const replaced = await env.admin.put("/workflow_builder/workflows/Renamed%20later", {
      workflow: { ...chain("Renamed later", []), description: "same name, new text" },
    });
    expect(replaced.status).toBe(200);
    const refused = expectError(
      await env.admin.put("/workflow_builder/workflows/Renamed%20later", {
        workflow: chain("Renamed now", []),
      }),
      409,
      "CONFLICT",
    );
    expect(refused.message).toMatch(/Runs it by name/);
    expect(refused.data.automations).toEqual({
      total: 1,
      automations: [{ _id: automation._id, name: "Runs it by name" }],
    });
    expect(await exists("Renamed later")).toBe(true);
    expect(await exists("Renamed now")).toBe(false);

    expect((await env.admin.delete(`/automation_catalog/automations/${automation._id}`)).status).toBe(200);
    const renamed = await env.admin.put("/workflow_builder/workflows/Renamed%20later", {
      workflow: chain("Renamed now", []),
    });
    expect(renamed.status).toBe(200);
    expect(await exists("Renamed now")).toBe(true);
  });

  test("the scheduler answers the engine's question over the broker: internal only", async () => {
    const wf = await createWorkflow("Asked about");
    await env.admin.post("/automation_catalog/automations", { name: "Asker", workflow: "Asked about" });
    const users = await env.platform.broker.call("scheduler.workflowUsers", {
      name: "Asked about",
      id: wf._id,
    });
    expect(users).toEqual({ total: 1, automations: [{ _id: expect.any(String), name: "Asker" }] });
    // No route reaches it.
    expect((await env.admin.get("/scheduler/workflowUsers?name=Asked%20about")).status).toBe(404);
  });
});

describe("Itential.py (tagmeh/Itential.py), its calls sent unchanged", () => {
  test("workflow.delete: DELETE /workflow_builder/workflows/delete/<name>, then response.json()['name']", async () => {
    await createWorkflow("py-delete-me");
    const reply = await env.admin.send("DELETE", "/workflow_builder/workflows/delete/py-delete-me");
    expect(reply.status).toBe(200);
    expect(reply.body.name).toBe("py-delete-me");
    expect(reply.body).toMatchObject({ status: "OK", message: "Workflow 'py-delete-me' deleted" });
  });

  test("workflow.upload: POST /workflow_builder/import with {workflow: <model_dump_to_import()>}, then ['name']", async () => {
    const exported = (
      await env.admin.post("/workflow_builder/export", { name: (await createWorkflow("py-src"))?.name })
    ).body;
    // What WorkflowModel2021_1.model_dump_to_import() gives for it: every model field, by alias,
    // null where the platform had none, canvasVersion added by upload().
    const dumped = {
      name: "py-uploaded",
      type: exported.type,
      tasks: exported.tasks,
      transitions: exported.transitions,
      font_size: null,
      last_updated: null,
      last_updated_by: null,
      lastUpdatedVersion: null,
      inputSchema: {},
      outputSchema: {},
      created: null,
      created_by: null,
      createdVersion: null,
      canvasVersion: 1,
      tags: null,
      groups: null,
    };
    const reply = await env.admin.post("/workflow_builder/import", { workflow: dumped });
    expect(reply.status).toBe(200);
    expect(reply.body.name).toBe("py-uploaded");
    const stored = (await env.admin.get("/workflow_builder/workflows/py-uploaded")).body;
    expect(stored).toMatchObject({ name: "py-uploaded", groups: [], tags: [], tasks: exported.tasks });

    // The wrapper follows the import's rules: a second upload of the name is a 409 (the client
    // deletes first), a broken workflow inside it a 400 naming the field under `workflow`.
    expectError(await env.admin.post("/workflow_builder/import", { workflow: dumped }), 409, "CONFLICT");
    const broken = expectError(
      await env.admin.post("/workflow_builder/import", {
        workflow: { ...dumped, name: "py-broken", tasks: "no" },
      }),
      400,
      "VALIDATION_ERROR",
    );
    expect(broken.data.map((d: any) => d.field)).toContain("workflow.tasks");
    const both = expectError(
      await env.admin.post("/workflow_builder/import", { ...dumped, name: "py-both", workflow: dumped }),
      400,
      "VALIDATION_ERROR",
    );
    expect(both.data[0].field).toBe("name");
    const neither = expectError(
      await env.admin.post("/workflow_builder/import", {}),
      400,
      "VALIDATION_ERROR",
    );
    expect(neither.data[0].field).toBe("name");
  });

  test("2023.1 get_jobs(workflow_name=...): GET /operations-manager/jobs?skip&limit&order&sort&equals=<name>", async () => {
    await createWorkflow("py jobs A", [["approve", manual("Approve")]]);
    await createWorkflow("py jobs B", [["approve", manual("Approve")]]);
    const started: Record<string, string[]> = { "py jobs A": [], "py jobs B": [] };
    for (const name of ["py jobs A", "py jobs B", "py jobs A"]) {
      const job = (await env.admin.post("/operations-manager/jobs/start", { workflow: name, options: {} }))
        .body;
      started[name].push(job._id);
    }
    // requests' urlencode of {"skip": 0, "limit": 10, "order": 1, "sort": "metrics.start_time", "equals": name}.
    const query = new URLSearchParams({
      skip: "0",
      limit: "10",
      order: "1",
      sort: "metrics.start_time",
      equals: "py jobs A",
    }).toString();
    expect(query).toContain("equals=py+jobs+A");
    const reply = await env.admin.get(`/operations-manager/jobs?${query}`);
    expect(reply.status).toBe(200);
    expect(reply.body.data.map((j: any) => j._id).sort()).toEqual([...started["py jobs A"]].sort());
    expect(reply.body.data.every((j: any) => j.name === "py jobs A")).toBe(true);
    expect(reply.body.metadata).toHaveProperty("nextPageSkip");

    // The admin list takes the same; the object form still works beside it.
    const adminList = await env.admin.get(`/operations-manager/admin/jobs?${query}`);
    expect(adminList.status).toBe(200);
    const objectForm = await env.admin.get("/operations-manager/jobs?equals[name]=py%20jobs%20B");
    expect(objectForm.body.data.map((j: any) => j._id)).toEqual(started["py jobs B"]);
    // Still bounded: an empty or over-long name is a 400 naming the member.
    const empty = expectError(
      await env.admin.get("/operations-manager/jobs?equals="),
      400,
      "VALIDATION_ERROR",
    );
    expect(JSON.stringify(empty.data)).toMatch(/queryParameters\.equals/);
    for (const ids of Object.values(started))
      await env.admin.post("/operations-manager/jobs/cancel", { jobIds: ids });
  });
});
