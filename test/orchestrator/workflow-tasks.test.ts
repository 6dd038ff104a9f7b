/**
 * restAction, restQuery and device lookup are automatic tasks in the task catalog, and a workflow
 * whose task calls restQuery through the engine completes with the orchestrator's data in its
 * variables.
 */
import { auto, chain, createWorkflow, waitForJob } from "../support/engine-fixtures";
import { usePlatform } from "../support/platform";
import { DEVICES, startOrchestrator, type TestOrchestrator } from "../support/orchestrator";

const env = usePlatform();
let orch: TestOrchestrator;

beforeAll(async () => {
  orch = await startOrchestrator();
  const created = await env.admin.post("/adapters", {
    properties: {
      name: "nso",
      type: "Application",
      properties: { id: "nso", type: "NSO", properties: { host: "127.0.0.1", port: orch.port } },
    },
  });
  expect(created.status).toBe(200);
});

afterAll(() => orch?.close());

test("the task catalog lists restAction, restQuery and device lookup as automatic tasks", async () => {
  const catalog = (await env.admin.get("/workflow_builder/tasks/list")).body as any[];
  const names = catalog.filter((t) => t.type === "automatic").map((t) => `${t.app}.${t.name}`);
  expect(names).toEqual(
    expect.arrayContaining(["adapters.restAction", "adapters.restQuery", "devices.find"]),
  );
  const query = catalog.find((t) => t.app === "adapters" && t.name === "restQuery");
  expect(query).toMatchObject({ location: "Adapter", displayName: "Orchestrator REST query" });
  expect(query.variables.incoming).toHaveProperty("params");
});

test("a workflow's restQuery and device lookup tasks complete with the orchestrator's data in the job's variables", async () => {
  await createWorkflow(
    env.admin,
    env.platform.broker,
    chain("read-devices", [
      [
        "q1",
        auto(
          "adapters",
          "restQuery",
          {
            adapterId: "nso",
            params: { path: "/restconf/data/tailf-ncs:devices", accept: "application/yang-data+json" },
          },
          { result: "$var.job.devices" },
        ),
      ],
      ["d1", auto("devices", "find", { options: { filter: "pe" } }, { devices: "$var.job.found" })],
    ]),
  );
  const started = await env.admin.post("/operations-manager/jobs/start", {
    workflow: "read-devices",
    options: {},
  });
  expect(started.status).toBe(200);
  const id = started.body._id ?? started.body.data?._id;
  const job = await waitForJob(env.platform.broker, id);
  expect(job.status).toBe("complete");
  expect(job.variables.devices).toEqual(DEVICES);
  expect(job.variables.found.map((d: any) => `${d.host}/${d.name}`)).toEqual(["nso/pe1"]);
});
