/**
 * Every JSON operation answers what /openapi.json says it answers: the platform runs in-process,
 * one scenario exercises the routes with realistic data (accounts, groups, forms, workflows, jobs,
 * adapters and their devices, prebuilts, profiles, automations, triggers, parsers, golden configs,
 * backups, compliance, tags), and each 2xx JSON body is checked against the 200 response schema of
 * its operation in the document the gateway serves (generated from the contracts' result schemas,
 * shared/contracts/schema.ts `returns(rule)`). An operation with no declared result schema fails;
 * one the scenario cannot reach must be named in SKIPPED with the reason.
 */
import fs from "node:fs";
import path from "node:path";
import { operations, type Operation } from "../../shared/contracts";
import { chain, manual, waitForJob } from "../support/engine-fixtures";
import { startOrchestrator, type TestOrchestrator } from "../support/orchestrator";
import {
  client,
  login,
  noteSecret,
  startPlatform,
  type Client,
  type Platform,
  type Reply,
} from "../support/platform";

/** Operations this test does not exercise over HTTP, and why. Keep it short. */
const SKIPPED: Record<string, string> = {
  // (none: every JSON operation is exercised below)
};

/** Routes whose success body is not JSON (login's token as text, the event stream). */
const jsonOperations = operations().filter((op) => (op.produces ?? "json") === "json");

type Schema = Record<string, any>;

/** A small JSON Schema checker for what ruleToJsonSchema emits: $ref, anyOf, const, enum, type, properties, items. */
function check(schema: Schema, value: unknown, at: string, root: Schema, errors: string[]): void {
  if (errors.length > 20) return;
  if (schema.$ref) {
    const name = String(schema.$ref).replace("#/components/schemas/", "");
    const target = root.components?.schemas?.[name];
    if (!target) errors.push(`${at}: unknown $ref ${schema.$ref}`);
    else check(target, value, at, root, errors);
    return;
  }
  if (schema.anyOf) {
    const ok = (schema.anyOf as Schema[]).some((s) => {
      const sub: string[] = [];
      check(s, value, at, root, sub);
      return sub.length === 0;
    });
    if (!ok) errors.push(`${at}: ${JSON.stringify(value)?.slice(0, 120)} matches none of anyOf`);
    return;
  }
  if ("const" in schema && value !== schema.const)
    errors.push(`${at}: ${JSON.stringify(value)} is not ${JSON.stringify(schema.const)}`);
  if (schema.enum && !(schema.enum as unknown[]).includes(value))
    errors.push(`${at}: ${JSON.stringify(value)} not in ${JSON.stringify(schema.enum)}`);
  const type = schema.type as string | undefined;
  if (!type) return;
  const actual =
    value === null
      ? "null"
      : Array.isArray(value)
        ? "array"
        : typeof value === "number"
          ? Number.isInteger(value)
            ? "integer"
            : "number"
          : typeof value;
  const fits = type === actual || (type === "number" && actual === "integer");
  if (!fits) {
    errors.push(`${at}: expected ${type}, got ${actual} (${JSON.stringify(value)?.slice(0, 80)})`);
    return;
  }
  if (type === "string" && schema.pattern && !new RegExp(schema.pattern).test(value as string))
    errors.push(`${at}: '${value}' does not match ${schema.pattern}`);
  if (type === "array" && schema.items)
    (value as unknown[]).forEach((item, i) => check(schema.items, item, `${at}[${i}]`, root, errors));
  if (type === "object") {
    const obj = value as Record<string, unknown>;
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    for (const key of (schema.required ?? []) as string[])
      if (!(key in obj)) errors.push(`${at}: missing required '${key}'`);
    for (const [key, v] of Object.entries(obj)) {
      if (key in props) check(props[key], v, `${at}.${key}`, root, errors);
      else if (schema.additionalProperties === false) errors.push(`${at}: undeclared member '${key}'`);
      else if (schema.additionalProperties && typeof schema.additionalProperties === "object")
        check(schema.additionalProperties, v, `${at}.${key}`, root, errors);
    }
  }
}

function matcher(op: Operation): RegExp {
  const pattern = op.path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:([A-Za-z0-9_]+)/g, "[^/]+");
  return new RegExp(`^${pattern}$`);
}

/** The operation a request reached: the matching route with the fewest path params (literal segments win). */
function operationOf(method: string, url: string): Operation | undefined {
  const pathname = url.split("?")[0];
  return operations()
    .filter((op) => op.method === method && matcher(op).test(pathname))
    .sort((a, b) => a.path.split(":").length - b.path.split(":").length)[0];
}

let platform: Platform;
let orch: TestOrchestrator;
let doc: Schema;
/** action -> how many of its 2xx answers were checked, and what disagreed. */
const checked = new Map<string, number>();
const mismatches = new Map<string, string[]>();
/** Requests that were meant to succeed and did not: the scenario is broken, not the schema. */
const unexpected: string[] = [];

function responseSchema(op: Operation): Schema | undefined {
  const entry = doc.paths[op.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")]?.[op.method.toLowerCase()];
  return entry?.responses?.["200"]?.content?.["application/json"]?.schema;
}

/** A client whose every answer is checked against /openapi.json. */
function checking(api: Client): Client {
  const send = async (method: string, url: string, options?: Parameters<Client["send"]>[2]) => {
    const reply = await api.send(method, url, options);
    record(method, url, reply);
    return reply;
  };
  return {
    get: (url, options) => send("GET", url, options),
    post: (url, body, options) => send("POST", url, { body, ...options }),
    put: (url, body, options) => send("PUT", url, { body, ...options }),
    patch: (url, body, options) => send("PATCH", url, { body, ...options }),
    delete: (url, options) => send("DELETE", url, options),
    send,
  };
}

function record(method: string, url: string, reply: Reply): void {
  const op = operationOf(method, url);
  if (!op) throw new Error(`no route for ${method} ${url}`);
  if (reply.status < 200 || reply.status >= 300) {
    unexpected.push(`${method} ${url}: ${reply.status} ${reply.text.slice(0, 200)}`);
    return;
  }
  if ((op.produces ?? "json") !== "json") return;
  const schema = responseSchema(op);
  const errors: string[] = [];
  if (!schema || Object.keys(schema).length === 0) errors.push("no result schema declared");
  else if (reply.body === undefined && reply.text !== "") errors.push("body is not JSON");
  else check(schema, reply.body, "body", doc, errors);
  checked.set(op.action, (checked.get(op.action) ?? 0) + 1);
  if (errors.length > 0)
    mismatches.set(op.action, [...(mismatches.get(op.action) ?? []), `${method} ${url}`, ...errors]);
}

const fixtures = path.join(__dirname, "../fixtures/configuration");
const IOS = fs.readFileSync(path.join(fixtures, "ios-edge-rtr1.cfg"), "utf8");
const SPEC = fs.readFileSync(path.join(fixtures, "ios-base.spec"), "utf8");

async function scenario(admin: Client): Promise<void> {
  const ok = async (reply: Promise<Reply>) => (await reply).body;

  // gateway: probes, document, health and applications
  for (const url of [
    "/health",
    "/ready",
    "/openapi.json",
    "/version",
    "/health/status",
    "/health/system",
    "/health/server",
    "/health/applications",
    "/health/applications/accounts",
    "/applications",
    "/applications/engine",
  ])
    await admin.get(url);

  // accounts and groups
  await admin.get("/whoami");
  await admin.get("/myTtl");
  await admin.post("/user-management/groups", {
    name: "conformance-team",
    description: "Operators of the conformance test",
    assignedRoles: ["operator", "apiread"],
  });
  await admin.get("/user-management/groups");
  await admin.post("/user-management/accounts", {
    username: "conformance-user",
    password: "long-enough-pw",
    firstname: "Conny",
    groups: ["conformance-team"],
  });
  await admin.get("/user-management/accounts");
  await admin.get("/authorization/accounts?equals=admin");
  await admin.get("/authorization/groups?equals=conformance-team");

  // the lifecycle of accounts and groups (a group and an account of their own, deleted at the end)
  const lifeGroup = await ok(
    admin.post("/authorization/groups", { group: { name: "conformance-life", assignedRoles: ["apiread"] } }),
  );
  await admin.get(`/authorization/groups/${lifeGroup.data._id}`);
  await admin.patch(`/authorization/groups/${lifeGroup.data._id}`, { updates: { description: "lifecycle" } });
  const lifer = await ok(
    admin.post("/user-management/accounts", { username: "conformance-lifer", password: "long-enough-pw" }),
  );
  await admin.post(`/authorization/groups/${lifeGroup.data._id}/members`, {
    accounts: ["conformance-lifer"],
  });
  await admin.delete(`/authorization/groups/${lifeGroup.data._id}/members/conformance-lifer`);
  await admin.get(`/authorization/accounts/${lifer._id}`);
  await admin.patch(`/authorization/accounts/${lifer._id}`, {
    updates: { email: "lifer@example.com", memberOf: [{ groupId: lifeGroup.data._id, aaaManaged: true }] },
  });
  await admin.post(`/authorization/accounts/${lifer._id}/logout`);
  await admin.delete(`/authorization/accounts/${lifer._id}`);
  await admin.delete(`/authorization/groups/${lifeGroup.data._id}`);

  // roles (built-in and custom) and the methods they allow
  await admin.get("/authorization/methods");
  const role = await ok(
    admin.post("/authorization/roles", {
      role: { name: "conformance-role", allowedMethods: [{ name: "listTasks", provenance: "engine" }] },
    }),
  );
  await admin.get("/authorization/roles");
  await admin.get("/authorization/roles/apiread");
  await admin.get(`/authorization/roles/${role.data._id}`);
  await admin.patch(`/authorization/roles/${role.data._id}`, { updates: { description: "conformance" } });
  await admin.delete(`/authorization/roles/${role.data._id}`);

  // service accounts and OAuth
  const sa = await ok(
    admin.post("/user-management/service-accounts", { name: "conformance-sa", groups: ["conformance-team"] }),
  );
  await admin.get("/user-management/service-accounts");
  const rotated = await ok(admin.put(`/user-management/service-accounts/${sa.clientId}/secret`));
  noteSecret(sa.clientSecret);
  noteSecret(rotated.clientSecret);
  const issued = await ok(
    admin.send("POST", "/oauth/token", {
      raw: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: sa.clientId,
        client_secret: rotated.clientSecret,
      }).toString(),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    }),
  );
  noteSecret(issued.access_token);
  await admin.delete(`/user-management/service-accounts/${sa.clientId}`);
  await admin.put("/user-management/accounts/conformance-user/password", { password: "another-long-pw" });
  const user = checking(
    client(platform.baseUrl, await login(platform.baseUrl, "conformance-user", "another-long-pw")),
  );
  await user.put("/user-management/password", {
    currentPassword: "another-long-pw",
    newPassword: "third-long-pw",
  });
  await user.get("/whoami");
  await user.get("/logout");

  // forms
  await admin.post("/formbuilder/forms", {
    name: "conformance-form",
    children: [{ type: "text", name: "device", properties: { type: "string" } }],
    elements: [{ type: "form", id: { name: "device" } }],
    groups: [],
  });
  await admin.get("/service_catalog/GetForms");
  await admin.get("/formbuilder/forms/conformance-form");
  await admin.post("/formbuilder/preserveFormData", {
    form_name: "conformance-form",
    data: { device: "rtr1" },
  });

  // workflows and jobs
  const workflow = await ok(
    admin.post("/workflow_builder/workflows", {
      workflow: chain("Conformance WF", [["approve", manual("Approve the change")]]),
    }),
  );
  await admin.post("/workflow_builder/workflows", { workflow: chain("Conformance Spare", []) });
  await admin.get("/workflow_builder/workflows");
  await admin.get("/workflow_builder/workflows/Conformance%20WF");
  await admin.put("/workflow_builder/workflows/Conformance%20Spare", {
    workflow: { ...chain("Conformance Spare", []), description: "changed" },
  });
  const first = await ok(
    admin.post("/operations-manager/jobs/start", {
      workflow: "Conformance WF",
      options: { description: "first", variables: { device: "rtr1" } },
    }),
  );
  const second = await ok(
    admin.post("/operations-manager/jobs/start", { workflow: "Conformance WF", options: {} }),
  );
  await waitForJob(platform.broker, first._id, (j) => j.tasks?.approve?.status === "waiting");
  await waitForJob(platform.broker, second._id, (j) => j.tasks?.approve?.status === "waiting");
  await admin.get("/operations-manager/admin/jobs");
  await admin.get("/operations-manager/jobs");
  await admin.get(`/operations-manager/jobs/${first._id}`);
  await admin.get("/operations-manager/tasks");
  await admin.post("/workflow_engine/finishTask", { task_id: "approve", job_id: first._id, task_data: {} });
  await waitForJob(platform.broker, first._id, (j) => j.status === "complete");
  await admin.post(`/operations-manager/jobs/${second._id}/cancel`);
  await admin.get("/operations-manager/tasks?status=complete");
  await admin.get("/workflow_engine/tasks/metrics");
  await admin.get("/workflow_builder/tasks/list");

  // the real product's job and workflow routes (docs/compatibility.md)
  const third = await ok(
    admin.post("/operations_manager/jobs/start", { workflow: "Conformance WF", options: {} }),
  );
  await waitForJob(platform.broker, third._id, (j) => j.tasks?.approve?.status === "waiting");
  await admin.post("/operations-manager/jobs/pause", { jobIds: [third._id] });
  await admin.post("/operations-manager/jobs/resume", { jobIds: [third._id] });
  await admin.post("/operations-manager/jobs/cancel", { jobIds: [third._id] });
  await admin.get(`/workflow_engine/job/${first._id}/output`);
  await admin.get("/workflow_engine/jobs/metrics");
  await admin.get(`/workflow_engine/getJob/${first._id}`);
  await admin.post("/workflow_engine/jobs/search", { options: { query: { status: "complete" }, limit: 5 } });
  await admin.post("/workflow_engine/workflows/search", { options: { query: { name: "Conformance WF" } } });
  await admin.get("/automation-studio/workflows?equals[name]=Conformance%20WF&expand=created_by");
  const exportedWorkflow = await ok(admin.post("/workflow_builder/export", { name: "Conformance WF" }));
  await admin.post("/workflow_builder/import", { ...exportedWorkflow, name: "Conformance Imported" });
  await admin.delete("/workflow_builder/workflows/delete/Conformance%20Imported");

  // adapters, the orchestrator proxy, devices
  const settings = { host: "127.0.0.1", port: orch.port, username: "admin", password: "nso-pass-77" };
  const adapter = (name: string, type: string, properties: Record<string, unknown>) => ({
    properties: { name, type: "Application", properties: { id: name, type, properties } },
  });
  await admin.post("/adapters", adapter("nso", "NSO", settings));
  await admin.post("/adapters", adapter("lab", "Inventory", {}));
  await admin.post("/adapters", adapter("spare", "Inventory", {}));
  await admin.get("/adapters");
  await admin.get("/adapters/nso");
  await admin.put("/adapters/nso/properties", adapter("nso", "NSO", { ...settings, timeout: 5000 }));
  for (const verb of ["stop", "start", "restart"]) await admin.put(`/adapters/nso/${verb}`);
  await admin.get("/health/adapters");
  await admin.get("/health/adapters/nso");
  await admin.post("/orchestrator_manager/restAction/nso", {
    params: { path: "/restconf/operations/echo", accept: "application/yang-data+json", method: "POST" },
    body: { hello: "world" },
  });
  await admin.post("/orchestrator_manager/restQuery/nso", {
    params: { path: "/restconf/data/tailf-ncs:devices", accept: "application/yang-data+json" },
  });
  await admin.put("/adapters/lab/devices/rtr-lab-1", {
    address: "10.9.0.1",
    port: 22,
    authgroup: "lab",
    "device-type": "cli",
    ned: "cisco-ios-cli-6.42",
    groups: ["lab"],
  });
  await admin.get("/adapters/lab/devices");
  await admin.post("/mop/deviceObjects", { options: { limit: 10 } });
  await admin.delete("/adapters/lab/devices/rtr-lab-1");
  await admin.delete("/adapters/spare");

  // prebuilts
  await admin.post("/prebuilts-repository/configs", {
    name: "conformance-repo",
    config: {
      enabled: true,
      type: "gitlab",
      hostname: "gitlab.example.com",
      path: "/prebuilts",
      credentials: { token: "repo-token-123" },
    },
  });
  await admin.get("/prebuilts-repository/configs/conformance-repo");
  await admin.get("/prebuilts-repository/configs");

  // profiles
  await admin.get("/schema/profiles");
  await admin.post("/profiles", {
    properties: {
      id: "conformance-a",
      description: "first",
      redisProps: { host: "redis", password: "redis-pw" },
    },
  });
  await admin.post("/profiles", {
    properties: { id: "conformance-b", description: "second", uiProps: { layout: "main" } },
  });
  await admin.get("/profiles");
  await admin.get("/profiles/conformance-a");
  await admin.put("/profiles/conformance-b/active");
  await admin.delete("/profiles/conformance-a");

  // automations (automation catalog)
  const automation = await ok(
    admin.post("/automation_catalog/automations", {
      name: "Conformance nightly",
      workflow: "Conformance WF",
      variables: { device: "rtr1" },
    }),
  );
  await admin.put(`/automation_catalog/automations/${automation._id}`, {
    changes: { description: "changed" },
  });
  await admin.put(`/automation_catalog/automations/${automation._id}/schedule`, {
    options: { nextRunAt: "2030-01-01T00:00:00Z", repeatInterval: "1 day" },
  });
  await admin.get("/automation_catalog/automations");
  await admin.get(`/automation_catalog/automations/${automation._id}`);
  await admin.get(`/automation_catalog/automations/${automation._id}/runs`);

  // automations and triggers (operations-manager)
  const om = (
    await ok(
      admin.post("/operations-manager/automations", {
        name: "Conformance OM",
        componentType: "workflows",
        componentId: workflow._id,
      }),
    )
  ).data;
  await admin.get("/operations-manager/automations");
  await admin.get(`/operations-manager/automations/${om._id}`);
  await admin.patch(`/operations-manager/automations/${om._id}`, { description: "changed" });
  const manualTrigger = (
    await ok(
      admin.post("/operations-manager/triggers", {
        name: "conformance-manual",
        type: "manual",
        actionType: "automations",
        actionId: om._id,
        enabled: true,
      }),
    )
  ).data;
  await admin.post("/operations-manager/triggers", {
    name: "conformance-endpoint",
    type: "endpoint",
    actionType: "automations",
    actionId: om._id,
    enabled: true,
    routeName: "conformance-route",
  });
  await admin.post("/operations-manager/triggers", {
    name: "conformance-schedule",
    type: "schedule",
    actionType: "automations",
    actionId: om._id,
    enabled: true,
    firstRunAt: Date.parse("2030-01-01T00:00:00Z"),
    repeatUnit: "day",
    repeatFrequency: 1,
  });
  await admin.get("/operations-manager/triggers");
  await admin.get(`/operations-manager/triggers/${manualTrigger._id}`);
  await admin.patch(`/operations-manager/triggers/${manualTrigger._id}`, { description: "by hand" });
  await admin.post(`/operations-manager/triggers/manual/${manualTrigger._id}/run`, {
    formData: { device: "rtr2" },
  });
  await admin.post("/operations-manager/triggers/endpoint/conformance-route", { device: "rtr3" });
  await admin.delete(`/operations-manager/triggers/${manualTrigger._id}`);

  // parsers, golden configs, backups, compliance
  await admin.get("/configuration_manager/configurations/parser");
  await admin.post("/configuration_manager/configurations/parser", { name: "ios-lab", template: "ios" });
  await admin.get("/configuration_manager/configurations/parser/ios-lab");
  await admin.put("/configuration_manager/configurations/parser/ios-lab", { lexRules: [["^!", "comment"]] });
  await admin.delete("/configuration_manager/configurations/parser/ios-lab");
  const tree = await ok(
    admin.post("/configuration_manager/configs", { name: "Edge", deviceType: "cisco-ios" }),
  );
  const base = `/configuration_manager/configs/${tree._id}`;
  await admin.get("/configuration_manager/configs");
  await admin.put(`${base}/versions/initial/nodes`, {
    nodePath: "base",
    config: SPEC,
    devices: ["edge-rtr1"],
  });
  await admin.put(`${base}/versions/initial/nodes`, { nodePath: "base/dc1", config: "hostname x\n" });
  await admin.put(`${base}/initial`, { name: "initial", variables: { site: "dc1" } });
  await admin.get(`${base}/versions/initial/node?nodePath=base`);
  await admin.post(`${base}/versions`, { version: "v2", base: "initial" });
  await admin.delete(`${base}/versions/v2/node?nodePath=base/dc1`);
  await admin.get(base);
  const backup = await ok(
    admin.post("/configuration_manager/backups", { deviceName: "edge-rtr1", config: IOS }),
  );
  await admin.get(`/configuration_manager/backups/${backup._id}`);
  await admin.get("/configuration_manager/backups?deviceName=edge-rtr1");
  const run = await ok(
    admin.post("/configuration_manager/compliance_reports", { treeId: tree._id, version: "initial" }),
  );
  for (let i = 0; i < 200; i++) {
    const batch = await platform.broker.call<any, any>("configuration.getBatch", { batchId: run.batchId });
    if (batch.state === "complete" || batch.state === "error") break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await admin.get(`/configuration_manager/compliance_reports/batches/${run.batchId}`);
  const reports = (
    await ok(admin.get(`/configuration_manager/compliance_reports/batches/${run.batchId}/reports`))
  ).results;
  await admin.get(`/configuration_manager/compliance_reports/${reports[0].id}`);
  await admin.get(`/configuration_manager/compliance_reports?batchId=${run.batchId}`);
  await admin.post("/configuration_manager/compliance_reports/history/backups", {
    options: { treeId: tree._id },
  });
  const exported = await ok(admin.post("/configuration_manager/export/goldenconfigs", { treeId: tree._id }));
  await admin.post("/configuration_manager/import/goldenconfigs", {
    data: [{ ...exported.data[0], name: "Edge copy" }],
  });
  const copy = (await ok(admin.get("/configuration_manager/configs"))).find(
    (t: any) => t.name === "Edge copy",
  );
  await admin.delete(`/configuration_manager/configs/${copy._id}`);

  // search and tags
  const tag = await ok(
    admin.post("/search/tags", { name: "conformance", description: "Tagged by the test" }),
  );
  await admin.get("/search/tags");
  await admin.post("/search/tags/attach", {
    collection: "workflows",
    objectId: workflow._id,
    tagId: tag._id,
  });
  await admin.post("/search/find", { data: { text: "Conformance" } });
  await admin.post("/search/tags/detach", {
    collection: "workflows",
    objectId: workflow._id,
    tagId: tag._id,
  });
  await admin.delete(`/search/tags/${tag._id}`);

  // reload a service in place (the last call of accounts in this scenario is over by now)
  await admin.put("/applications/forms/restart");

  // deletes last: what the reads above used
  await admin.delete(`/operations-manager/automations/${om._id}`);
  await admin.delete(`/automation_catalog/automations/${automation._id}`);
  await admin.delete("/workflow_builder/workflows/Conformance%20Spare");
  await admin.delete("/prebuilts-repository/configs/conformance-repo");
  await admin.delete("/formbuilder/forms/conformance-form");
  await admin.delete("/adapters/nso");
  await admin.delete(`/configuration_manager/configs/${tree._id}`);
}

beforeAll(async () => {
  orch = await startOrchestrator();
  platform = await startPlatform({ env: { SCHEDULER_TICK_MS: "100000" } });
  const token = await login(platform.baseUrl);
  doc = (await client(platform.baseUrl).get("/openapi.json")).body;
  await scenario(checking(client(platform.baseUrl, token)));
}, 120_000);

afterAll(async () => {
  await platform?.stop();
  await orch?.close();
});

test("every JSON operation declares a result schema in its contract", () => {
  const missing = jsonOperations.filter((op) => !op.contract.result?.rule).map((op) => op.action);
  expect(missing).toEqual([]);
});

test("the scenario's requests all succeeded", () => {
  expect(unexpected).toEqual([]);
});

test("the skip list names only operations that exist and were not exercised", () => {
  const actions = new Set(jsonOperations.map((op) => op.action));
  for (const action of Object.keys(SKIPPED)) {
    expect(actions.has(action)).toBe(true);
    expect(checked.has(action)).toBe(false);
  }
});

describe.each(jsonOperations.map((op) => [`${op.method} ${op.path}`, op] as const))("%s", (_route, op) => {
  const run = SKIPPED[op.action] ? test.skip : test;
  run(`${op.action} answers what /openapi.json declares`, () => {
    const schema = responseSchema(op);
    expect(schema && Object.keys(schema).length > 0 ? "declared" : `${op.action}: no result schema`).toBe(
      "declared",
    );
    expect(checked.get(op.action) ? "exercised" : `${op.action}: not exercised by the scenario`).toBe(
      "exercised",
    );
    expect(mismatches.get(op.action) ?? []).toEqual([]);
  });
});
