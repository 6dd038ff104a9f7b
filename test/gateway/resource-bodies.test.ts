/**
 * Create and update bodies take their resource as a client reads it back (issue 25): forms (the
 * spec's "Form document"), a job start (operation 17's `options`), workflows (create, update and
 * import, as Itential.py and itential-mcp send them) and the scheduler's automations and triggers
 * (as itential-mcp sends them). The resource's own fields are taken; the read-only ones
 * (`_id`, `created`, `last_updated`, ...) are ignored, never a 400 "is not allowed"
 * (docs/compatibility.md#request-bodies-and-the-resources-they-hold).
 */
import { chain, op } from "../support/engine-fixtures";
import { usePlatform } from "../support/platform";

const env = usePlatform({ env: { SCHEDULER_TICK_MS: "100000", SCHEDULER_TIMERS: "false" } });
let workflowId: string;

beforeAll(async () => {
  const reply = await env.admin.post("/workflow_builder/workflows", {
    workflow: chain("Bodies", [["noop", op("delay", { time: 0 })]]),
  });
  expect(reply.status).toBe(200);
  workflowId = reply.body._id;
});

const OLD = "2001-01-01T00:00:00.000Z";

describe("forms", () => {
  const field = {
    type: "field",
    name: "hostname",
    properties: { type: "string", prefix: "" },
    description: "Device",
    element: JSON.stringify({ type: "method", id: { name: "getDevices" } }),
    source_type: "method",
    source: "getDevices",
    id: "6f1c2a43-0a43-4c27-a3c5-9cf1a1d4f4c2",
    yangkey: "",
    key: "hostname",
  };

  test("a form read back with GET and posted under a new name is taken; its read-only members are ignored", async () => {
    const created = await env.admin.post("/formbuilder/forms", {
      name: "form-a",
      children: [field],
      elements: [{ type: "method", id: { name: "getDevices" } }],
      groups: ["admins"],
      description: "Port turn-up",
    });
    expect(created.status).toBe(200);
    const read = (await env.admin.get("/formbuilder/forms/form-a")).body;
    const copy = await env.admin.post("/formbuilder/forms", {
      ...read,
      name: "form-b",
      created: OLD,
      last_updated: OLD,
      created_by: "someone-else",
      last_updated_by: "someone-else",
    });
    expect(copy.status).toBe(200);
    expect(copy.body._id).not.toBe(read._id);
    expect(copy.body.created).not.toBe(OLD);
    expect(copy.body.last_updated).not.toBe(OLD);
    expect(copy.body.created_by).not.toBe("someone-else");
    expect(copy.body.groups).toEqual(read.groups);
    expect(copy.body.description).toBe("Port turn-up");
    expect(copy.body.children).toEqual(read.children);
    expect(copy.body.elements).toEqual(read.elements);
  });

  test("a form list item (GET /service_catalog/GetForms) posted back is taken too, its expanded groups by _id", async () => {
    const item = (await env.admin.get("/service_catalog/GetForms")).body.find(
      (f: any) => f.name === "form-a",
    );
    const copy = await env.admin.post("/formbuilder/forms", { ...item, name: "form-c" });
    expect(copy.status).toBe(200);
    expect(item.groups[0]).toEqual(expect.objectContaining({ name: "admins" }));
    expect(copy.body.groups).toEqual([item.groups[0]._id]);
    expect(copy.body).not.toHaveProperty("form_name");
    expect(copy.body).not.toHaveProperty("lastUpdated");
  });
});

describe("job start (operation 17)", () => {
  test("options as itential-mcp sends them", async () => {
    const reply = await env.admin.post("/operations_manager/jobs/start", {
      workflow: "Bodies",
      options: { type: "automation", groups: [], description: "", variables: {} },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.name).toBe("Bodies");
  });
});

describe("workflows", () => {
  test("a workflow read back and sent to its update is taken; read-only members ignored", async () => {
    const read = (await env.admin.get("/workflow_builder/workflows/Bodies")).body;
    const reply = await env.admin.put("/workflow_builder/workflows/Bodies", {
      workflow: { ...read, created: OLD, last_updated: OLD, description: "changed" },
    });
    expect(reply.status).toBe(200);
    expect(reply.body._id).toBe(read._id);
    expect(reply.body.created).toBe(read.created);
    expect(reply.body.description).toBe("changed");
  });

  test("a workflow read back and posted under a new name is a new workflow", async () => {
    const read = (await env.admin.get("/workflow_builder/workflows/Bodies")).body;
    const reply = await env.admin.post("/workflow_builder/workflows", {
      workflow: { ...read, name: "Bodies copy" },
    });
    expect(reply.status).toBe(200);
    expect(reply.body._id).not.toBe(read._id);
    expect(reply.body.created).not.toBe(read.created);
  });

  test("an Itential.py export posted to the import under another name", async () => {
    const exported = (
      await env.admin.post("/workflow_builder/export", { options: { name: "Bodies", type: "automation" } })
    ).body;
    const reply = await env.admin.post("/workflow_builder/import", {
      workflow: { ...exported, name: "Bodies import" },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.name).toBe("Bodies import");
  });
});

describe("a workflow as Itential.py's 2021.1 upload sends it", () => {
  test("every member of its workflow model, unset ones null, users expanded: taken, read-only ones ignored", async () => {
    const user = { provenance: "Local AAA", username: "bob", firstname: "Bob", inactive: false };
    const exported = (await env.admin.post("/workflow_builder/export", { name: "Bodies" })).body;
    // model_dump_to_import: the model's fields by alias, no `_id`, `errors`.
    const reply = await env.admin.post("/workflow_builder/import", {
      workflow: {
        name: "Bodies upload",
        type: "automation",
        tasks: exported.tasks,
        transitions: exported.transitions,
        font_size: 12,
        last_updated: OLD,
        last_updated_by: user,
        lastUpdatedVersion: null,
        inputSchema: {},
        outputSchema: {},
        created: OLD,
        created_by: user,
        createdVersion: null,
        canvasVersion: 3,
        tags: null,
        groups: null,
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.name).toBe("Bodies upload");
    expect(reply.body.created).not.toBe(OLD);
    expect(reply.body.created_by).toBe("admin");
    expect(reply.body).not.toHaveProperty("font_size");
  });
});

describe("automations and triggers, as itential-mcp sends them", () => {
  let automationId: string;
  test("create_automation", async () => {
    const reply = await env.admin.post("/operations-manager/automations", {
      name: "mcp-auto",
      componentType: "workflows",
      description: "from mcp",
      componentId: workflowId,
    });
    expect(reply.status).toBe(200);
    automationId = reply.body.data._id;
  });

  test("an automation read back and sent to its PATCH", async () => {
    const read = (await env.admin.get(`/operations-manager/automations/${automationId}`)).body.data;
    const reply = await env.admin.patch(`/operations-manager/automations/${automationId}`, {
      ...read,
      description: "changed",
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data.description).toBe("changed");
    expect(reply.body.data.created).toBe(read.created);
  });

  test("an automation read back and posted under a new name is a new one", async () => {
    const read = (await env.admin.get(`/operations-manager/automations/${automationId}`)).body.data;
    const reply = await env.admin.post("/operations-manager/automations", { ...read, name: "mcp-auto copy" });
    expect(reply.status).toBe(200);
    expect(reply.body.data._id).not.toBe(read._id);
    expect(reply.body.data.componentId).toBe(read.componentId);
  });

  test("create_manual_trigger, with no description (null)", async () => {
    const reply = await env.admin.post("/operations-manager/triggers", {
      actionId: automationId,
      actionType: "automations",
      name: "mcp-manual",
      type: "manual",
      description: null,
      enabled: true,
    });
    expect(reply.status).toBe(200);
  });

  test("create_endpoint_trigger with its default schema", async () => {
    const reply = await env.admin.post("/operations-manager/triggers", {
      actionId: automationId,
      actionType: "automations",
      name: "mcp-endpoint",
      type: "endpoint",
      verb: "POST",
      routeName: "mcp-route",
      description: null,
      enabled: true,
      schema: { type: "object", properties: {}, additionalProperties: true },
    });
    expect(reply.status).toBe(200);
    const read = (await env.admin.get(`/operations-manager/triggers/${reply.body.data._id}`)).body.data;
    const patched = await env.admin.patch(`/operations-manager/triggers/${read._id}`, {
      ...read,
      description: "x",
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data.description).toBe("x");
    expect(patched.body.data.created).toBe(read.created);
    const copy = await env.admin.post("/operations-manager/triggers", {
      ...read,
      name: "mcp-endpoint copy",
      routeName: "mcp-route-2",
    });
    expect(copy.status).toBe(200);
    expect(copy.body.data._id).not.toBe(read._id);
  });
  test("a schedule trigger read back and sent to its PATCH; the due times it answers are not taken", async () => {
    const created = await env.admin.post("/operations-manager/triggers", {
      actionId: automationId,
      actionType: "automations",
      name: "mcp-schedule",
      type: "schedule",
      enabled: true,
      firstRunAt: Date.now() + 3_600_000,
      repeatUnit: "hour",
      repeatFrequency: 1,
      repeatInterval: 3_600_000,
      processMissedRuns: "none",
    });
    expect(created.status).toBe(200);
    const read = (await env.admin.get(`/operations-manager/triggers/${created.body.data._id}`)).body.data;
    const patched = await env.admin.patch(`/operations-manager/triggers/${read._id}`, {
      ...read,
      description: "hourly",
      lastExecuted: 1,
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data.description).toBe("hourly");
    expect(patched.body.data.lastExecuted).toBe(read.lastExecuted);
    expect(patched.body.data.nextRunAt).toBe(read.nextRunAt);
  });
});

describe("members outside a resource's own and read-only ones", () => {
  test("are dropped, not stored (docs/compatibility.md#request-bodies-and-the-resources-they-hold)", async () => {
    const stray = { strayMember: "kept?" };
    const form = await env.admin.post("/formbuilder/forms", { name: "form-stray", ...stray });
    const read = (await env.admin.get("/workflow_builder/workflows/Bodies")).body;
    const workflow = await env.admin.post("/workflow_builder/workflows", {
      workflow: { ...read, name: "Bodies stray", ...stray },
    });
    const automation = await env.admin.post("/operations-manager/automations", {
      name: "stray-auto",
      componentType: "workflows",
      componentId: workflowId,
      ...stray,
    });
    const trigger = await env.admin.post("/operations-manager/triggers", {
      name: "stray-trigger",
      type: "manual",
      actionType: "automations",
      actionId: automation.body.data._id,
      ...stray,
    });
    for (const [reply, doc] of [
      [form, form.body],
      [workflow, workflow.body],
      [automation, automation.body.data],
      [trigger, trigger.body.data],
    ]) {
      expect(reply.status).toBe(200);
      expect(doc).not.toHaveProperty("strayMember");
    }
    expect((await env.admin.get("/workflow_builder/workflows/Bodies stray")).body).not.toHaveProperty(
      "strayMember",
    );
  });
});
