/**
 * Workflow definitions: create, list, read, replace, delete over HTTP (in both shapes), every graph
 * rule (a 400 naming the offending task, nothing stored), and the actions through the broker.
 */
import { call } from "../../shared/contracts";
import { client, expectError, login, startPlatform, type Platform, type Reply } from "../support/platform";
import { describeInBothShapes } from "../support/shapes";

type Api = ReturnType<typeof client>;
const PW = "workflow-tests-password";

/** A workflow using each task type: automatic -> manual -> evaluation (failure reverts to the manual step). */
function workflow(name: string, overrides: Record<string, unknown> = {}): Record<string, any> {
  return {
    name,
    description: `The ${name} workflow`,
    tasks: {
      workflow_start: { name: "workflow_start", x: 0, y: 0 },
      a1: {
        name: "lookup",
        app: "devices",
        type: "automatic",
        summary: "Look up the device",
        variables: { incoming: { name: "$var.job.device" }, outgoing: { device: "$var.job.device_record" } },
        retrySettings: { autoRetry: true, limit: 2, delay: 100, state: ["error"] },
      },
      b2: {
        name: "Approve the change",
        type: "manual",
        groups: [],
        variables: { incoming: {}, outgoing: {} },
      },
      c3: {
        name: "evaluation",
        type: "operation",
        variables: {
          incoming: { evaluation_groups: [], all_true_flag: true },
          outgoing: { return_value: null },
        },
      },
      workflow_end: { name: "workflow_end", x: 100, y: 0 },
    },
    transitions: {
      workflow_start: { a1: { state: "success", type: "standard" } },
      a1: { b2: { state: "success", type: "standard" }, workflow_end: { state: "error", type: "standard" } },
      b2: { c3: { state: "success", type: "standard" } },
      c3: { workflow_end: { state: "success", type: "standard" }, b2: { state: "failure", type: "revert" } },
      workflow_end: {},
    },
    sla: 60,
    groups: [],
    tags: [],
    ...overrides,
  };
}

/** The fields of the 400 body's data. */
const fieldsOf = (reply: Reply) => (reply.body.data as { field: string }[]).map((d) => d.field).sort();

describeInBothShapes("workflow definitions over HTTP", (platform) => {
  let admin: Api;
  let engineer: Api;
  let reader: Api;

  beforeAll(async () => {
    const { baseUrl } = platform();
    admin = client(baseUrl, await login(baseUrl));
    for (const [group, role] of [
      ["wf-engineers", "engineering"],
      ["wf-readers", "apiread"],
    ]) {
      expect(
        (await admin.post("/user-management/groups", { name: group, assignedRoles: [role] })).status,
      ).toBe(200);
    }
    for (const [username, group] of [
      ["wf-eng", "wf-engineers"],
      ["wf-read", "wf-readers"],
    ]) {
      expect(
        (await admin.post("/user-management/accounts", { username, password: PW, groups: [group] })).status,
      ).toBe(200);
    }
    engineer = client(baseUrl, await login(baseUrl, "wf-eng", PW));
    reader = client(baseUrl, await login(baseUrl, "wf-read", PW));
  });

  test("create answers the stored workflow with its bookkeeping fields; read answers the same", async () => {
    const sent = workflow("change-interface", { bogus: "dropped" });
    const created = await engineer.post("/workflow_builder/workflows", { workflow: sent });
    expect(created.status).toBe(200);
    const doc = created.body;
    expect(doc).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      name: "change-interface",
      description: "The change-interface workflow",
      type: "automation",
      tasks: sent.tasks,
      transitions: sent.transitions,
      sla: 60,
      groups: [],
      tags: [],
      created: expect.any(String),
      created_by: "wf-eng",
      last_updated: doc.created,
      last_updated_by: "wf-eng",
    });
    expect(Date.parse(doc.created)).toBeGreaterThan(Date.now() - 60_000);
    const read = await reader.get("/workflow_builder/workflows/change-interface");
    expect(read.status).toBe(200);
    expect(read.body).toEqual(doc);
  });

  test("a duplicate name is a 409 and leaves the first alone", async () => {
    await admin.post("/workflow_builder/workflows", { workflow: workflow("dup-wf") });
    const again = await admin.post("/workflow_builder/workflows", {
      workflow: workflow("dup-wf", { description: "second" }),
    });
    expect(expectError(again, 409, "CONFLICT").message).toContain("dup-wf");
    expect((await admin.get("/workflow_builder/workflows/dup-wf")).body.description).toBe(
      "The dup-wf workflow",
    );
  });

  test("an unknown workflow is a 404 on read, replace and delete", async () => {
    expectError(await admin.get("/workflow_builder/workflows/nope"), 404, "NOT_FOUND");
    expectError(
      await admin.put("/workflow_builder/workflows/nope", { workflow: workflow("nope") }),
      404,
      "NOT_FOUND",
    );
    expectError(await admin.delete("/workflow_builder/workflows/nope"), 404, "NOT_FOUND");
    // The replace of nothing created nothing.
    expectError(await admin.get("/workflow_builder/workflows/nope"), 404, "NOT_FOUND");
  });

  test("list: sorted by name, paged with skip and limit", async () => {
    for (const name of ["list-c", "list-a", "list-b"])
      expect((await admin.post("/workflow_builder/workflows", { workflow: workflow(name) })).status).toBe(
        200,
      );
    const first = (await reader.get("/workflow_builder/workflows?limit=1000")).body;
    // The project's page (docs/compatibility.md#list-shapes).
    expect(first).toMatchObject({ skip: 0, limit: 1000, total: first.results.length });
    const all = first.results.map((w: any) => w.name);
    const listed = all.filter((n: string) => n.startsWith("list-"));
    expect(listed).toEqual(["list-a", "list-b", "list-c"]);
    expect(all).toEqual([...all].sort());
    const start = all.indexOf("list-a");
    const page = await reader.get(`/workflow_builder/workflows?skip=${start + 1}&limit=1`);
    expect(page.body.results.map((w: any) => w.name)).toEqual(["list-b"]);
  });

  test("PUT replaces the definition: fields left out are gone, _id and created stay", async () => {
    const created = (await engineer.post("/workflow_builder/workflows", { workflow: workflow("replace-me") }))
      .body;
    const next = workflow("replace-me", { description: "v2", groups: ["g-1"], tags: ["t-1"] });
    delete next.sla;
    delete next.tasks.c3;
    next.transitions = {
      workflow_start: { a1: { state: "success", type: "standard" } },
      a1: { b2: { state: "success", type: "standard" } },
      b2: { workflow_end: { state: "success", type: "standard" } },
    };
    const replaced = await admin.put("/workflow_builder/workflows/replace-me", { workflow: next });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual({
      _id: created._id,
      name: "replace-me",
      description: "v2",
      type: "automation",
      tasks: next.tasks,
      transitions: next.transitions,
      groups: ["g-1"],
      tags: ["t-1"],
      created: created.created,
      created_by: "wf-eng",
      last_updated: expect.any(String),
      last_updated_by: "admin",
    });
    expect(replaced.body.last_updated >= created.last_updated).toBe(true);
    expect((await admin.get("/workflow_builder/workflows/replace-me")).body).toEqual(replaced.body);
  });

  test("PUT may rename, but not onto another workflow's name", async () => {
    await admin.post("/workflow_builder/workflows", { workflow: workflow("old-name") });
    await admin.post("/workflow_builder/workflows", { workflow: workflow("taken-name") });
    expectError(
      await admin.put("/workflow_builder/workflows/old-name", { workflow: workflow("taken-name") }),
      409,
      "CONFLICT",
    );
    expect((await admin.get("/workflow_builder/workflows/old-name")).status).toBe(200);
    const renamed = await admin.put("/workflow_builder/workflows/old-name", {
      workflow: workflow("new-name"),
    });
    expect(renamed.body.name).toBe("new-name");
    expectError(await admin.get("/workflow_builder/workflows/old-name"), 404, "NOT_FOUND");
    expect((await admin.get("/workflow_builder/workflows/new-name")).body._id).toBe(renamed.body._id);
  });

  test("delete removes it", async () => {
    await admin.post("/workflow_builder/workflows", { workflow: workflow("delete-me") });
    const deleted = await engineer.delete("/workflow_builder/workflows/delete-me");
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({
      status: "OK",
      message: "Workflow 'delete-me' deleted",
      name: "delete-me",
    });
    expectError(await admin.get("/workflow_builder/workflows/delete-me"), 404, "NOT_FOUND");
  });

  test("roles: apiread reads but may not write", async () => {
    expectError(
      await reader.post("/workflow_builder/workflows", { workflow: workflow("r") }),
      403,
      "FORBIDDEN",
    );
    expectError(await reader.delete("/workflow_builder/workflows/change-interface"), 403, "FORBIDDEN");
    expect((await reader.get("/workflow_builder/workflows/change-interface")).status).toBe(200);
  });

  describe("graph rules: a 400 naming the offending task, and nothing stored", () => {
    const reject = async (wf: Record<string, any>, fields: string[]) => {
      const reply = await admin.post("/workflow_builder/workflows", { workflow: wf });
      expectError(reply, 400, "VALIDATION_ERROR");
      expect(fieldsOf(reply)).toEqual([...fields].sort());
      expectError(await admin.get(`/workflow_builder/workflows/${wf.name}`), 404, "NOT_FOUND");
      return reply;
    };

    test("workflow_start and workflow_end must exist", async () => {
      const wf = workflow("no-start");
      delete wf.tasks.workflow_start;
      delete wf.transitions.workflow_start;
      await reject(wf, ["workflow.tasks.workflow_start"]);
      const noEnd = workflow("no-end");
      delete noEnd.tasks.workflow_end;
      delete noEnd.transitions.workflow_end;
      noEnd.transitions.a1 = { b2: { state: "success", type: "standard" } };
      noEnd.transitions.c3 = { b2: { state: "failure", type: "revert" } };
      await reject(noEnd, ["workflow.tasks.workflow_end"]);
    });

    test("a transition to an unknown task names the transition", async () => {
      const wf = workflow("to-unknown");
      wf.transitions.a1.ghost = { state: "failure", type: "standard" };
      const reply = await reject(wf, ["workflow.transitions.a1.ghost"]);
      expect(reply.body.message).toContain("ghost");
    });

    test("a transition from an unknown task names it", async () => {
      const wf = workflow("from-unknown");
      wf.transitions.ghost = { a1: { state: "success", type: "standard" } };
      await reject(wf, ["workflow.transitions.ghost"]);
    });

    test("every task must be reachable from workflow_start", async () => {
      const wf = workflow("orphans");
      wf.tasks.orphan = { name: "Lonely", type: "manual" };
      wf.tasks.island = { name: "delay", type: "operation" };
      wf.transitions.orphan = { island: { state: "success", type: "standard" } };
      await reject(wf, ["workflow.tasks.orphan", "workflow.tasks.island"]);
      const endless = workflow("end-unreachable");
      endless.transitions.a1 = { b2: { state: "success", type: "standard" } };
      endless.transitions.c3 = { b2: { state: "failure", type: "revert" } };
      await reject(endless, ["workflow.tasks.workflow_end"]);
    });

    test("transition states and types are checked", async () => {
      const wf = workflow("bad-transition");
      wf.transitions.a1.b2 = { state: "done", type: "standard" };
      wf.transitions.b2.c3 = { state: "success", type: "sideways" };
      await reject(wf, ["workflow.transitions.a1.b2.state", "workflow.transitions.b2.c3.type"]);
      const loops = workflow("loop-transition");
      loops.transitions.c3.c3 = { state: "loop", type: "loop" };
      expect((await admin.post("/workflow_builder/workflows", { workflow: loops })).status).toBe(200);
    });

    test("task types, and what each type needs", async () => {
      const wf = workflow("bad-tasks");
      wf.tasks.a1 = { name: "lookup", type: "automatic" }; // no app
      wf.tasks.b2 = { type: "manual" }; // no name
      wf.tasks.c3 = { name: "teleport", type: "operation" }; // not a built-in
      await reject(wf, ["workflow.tasks.a1.app", "workflow.tasks.b2.name", "workflow.tasks.c3.name"]);
      const typeless = workflow("bad-type");
      typeless.tasks.b2 = { name: "Approve", type: "robotic" };
      await reject(typeless, ["workflow.tasks.b2.type"]);
    });

    test("every built-in operation name is accepted", async () => {
      const wf = workflow("all-operations");
      const ops = ["evaluation", "query", "merge", "delay", "childJob", "forEach"];
      let previous = "workflow_start";
      wf.tasks = { workflow_start: {}, workflow_end: {} };
      wf.transitions = {};
      for (const op of ops) {
        wf.tasks[`op_${op}`] = { name: op, type: "operation" };
        wf.transitions[previous] = { [`op_${op}`]: { state: "success", type: "standard" } };
        previous = `op_${op}`;
      }
      wf.transitions[previous] = { workflow_end: { state: "success", type: "standard" } };
      const reply = await admin.post("/workflow_builder/workflows", { workflow: wf });
      expect(reply.status).toBe(200);
      expect(Object.keys(reply.body.tasks).sort()).toEqual(
        [...ops.map((o) => `op_${o}`), "workflow_end", "workflow_start"].sort(),
      );
      // The ends are named after themselves when the client sent no name.
      expect(reply.body.tasks.workflow_start).toEqual({ name: "workflow_start" });
    });

    test("task ids cannot become store paths or operators", async () => {
      const wf = workflow("bad-ids");
      wf.tasks["a.b"] = { name: "x", type: "manual" };
      wf.tasks.$where = { name: "y", type: "manual" };
      await reject(wf, ["workflow.tasks.a.b", "workflow.tasks.$where"]);
    });

    test("nothing may leave workflow_end", async () => {
      const wf = workflow("end-leaves");
      wf.transitions.workflow_end = { a1: { state: "success", type: "standard" } };
      await reject(wf, ["workflow.transitions.workflow_end"]);
    });

    test("task fields have their types", async () => {
      const wf = workflow("bad-fields");
      wf.tasks.a1.variables = { incoming: "x" };
      wf.tasks.b2.retrySettings = { limit: -1 };
      wf.tasks.c3.x = "left";
      await reject(wf, [
        "workflow.tasks.a1.variables.incoming",
        "workflow.tasks.b2.retrySettings.limit",
        "workflow.tasks.c3.x",
      ]);
    });

    test("every problem is reported at once", async () => {
      const wf = workflow("many-problems");
      wf.tasks.a1.type = "robotic";
      wf.transitions.b2.ghost = { state: "success", type: "standard" };
      const reply = await reject(wf, ["workflow.tasks.a1.type", "workflow.transitions.b2.ghost"]);
      expect(reply.body.message).toMatch(/and 1 more/);
    });

    test("schema: tasks and transitions are required objects", async () => {
      const wf = workflow("no-tasks");
      delete wf.tasks;
      const reply = await admin.post("/workflow_builder/workflows", { workflow: wf });
      expectError(reply, 400, "VALIDATION_ERROR");
      expect(fieldsOf(reply)).toEqual(["workflow.tasks"]);
    });

    test("a bad replacement leaves the stored workflow as it was", async () => {
      const before = (await admin.post("/workflow_builder/workflows", { workflow: workflow("keep-me") }))
        .body;
      const broken = workflow("keep-me", { description: "broken" });
      broken.transitions.a1.ghost = { state: "success", type: "standard" };
      expectError(
        await admin.put("/workflow_builder/workflows/keep-me", { workflow: broken }),
        400,
        "VALIDATION_ERROR",
      );
      expect((await admin.get("/workflow_builder/workflows/keep-me")).body).toEqual(before);
    });
  });
});

describe("workflow actions through the broker", () => {
  let platform: Platform;
  beforeAll(async () => {
    platform = await startPlatform();
  });
  afterAll(() => platform.stop());

  test("create, read, replace and delete; a caller-less write is recorded as system", async () => {
    const { broker } = platform;
    const created = await call(broker, "engine.createWorkflow", { workflow: workflow("bus-wf") as any });
    expect(created).toEqual(
      expect.objectContaining({ name: "bus-wf", created_by: "system", type: "automation" }),
    );
    expect(await call(broker, "engine.getWorkflow", { name: "bus-wf" })).toEqual(created);
    const replaced = await call(broker, "engine.updateWorkflow", {
      name: "bus-wf",
      workflow: workflow("bus-wf", { sla: 5 }) as any,
    });
    expect(replaced.sla).toBe(5);
    expect(await call(broker, "engine.listWorkflows", {})).toEqual({
      results: [replaced],
      total: 1,
      skip: 0,
      limit: 25,
    });
    expect(await call(broker, "engine.deleteWorkflow", { name: "bus-wf" })).toEqual({
      status: "OK",
      message: "Workflow 'bus-wf' deleted",
      name: "bus-wf",
    });
    await expect(call(broker, "engine.getWorkflow", { name: "bus-wf" })).rejects.toMatchObject({
      code: 404,
      type: "NOT_FOUND",
    });
  });

  test("a bad graph is the same 400 on the bus", async () => {
    const wf = workflow("bus-bad");
    wf.tasks.c3.name = "teleport";
    await expect(
      call(platform.broker, "engine.createWorkflow", { workflow: wf as any }),
    ).rejects.toMatchObject({
      code: 400,
      type: "VALIDATION_ERROR",
      data: [expect.objectContaining({ field: "workflow.tasks.c3.name", type: "unknownOperation" })],
    });
  });
});
