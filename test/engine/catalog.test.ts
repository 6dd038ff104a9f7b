/**
 * The task catalog (operation 20): gathered from the service registry. The engine's operations and
 * the manual task are always there; an action declaring task metadata appears while a node serves
 * it — also one on a broker that joins over NATS after the engine started — and disappears with it.
 */
import { randomUUID } from "node:crypto";
import type { ServiceBroker, ServiceSchema } from "moleculer";
import { call } from "../../shared/contracts";
import type { OperationTask } from "../../services/engine/operations/names";
import { OPERATION_VARIABLES } from "../../services/engine/operations";
import { loadConfig } from "../../shared/config";
import { createBroker } from "../../app/broker";
import {
  client,
  clientWithRoles,
  expectError,
  login,
  startPlatform,
  type Platform,
} from "../support/platform";
import { startShape } from "../support/shapes";
import { eventually } from "../support/processes";

const OPERATIONS = ["evaluation", "query", "merge", "delay", "childJob", "forEach"];

/** A service of a kind the platform does not ship: two task actions (one deprecated) and a helper. */
function netcheck(name: string): ServiceSchema {
  return {
    name,
    actions: {
      ping: {
        task: {
          displayName: "Ping a host",
          summary: "Check that a host answers",
          description: "Sends ICMP echo requests to host",
          variables: { incoming: { host: "", count: 3 }, outgoing: { reachable: null } },
        },
        params: { host: "string" },
        handler: (ctx: any) => ({ reachable: ctx.params.host !== "" }),
      },
      legacyPing: {
        task: {
          summary: "Old ping",
          description: "Use ping",
          location: "Adapter",
          variables: { incoming: { host: "" }, outgoing: {} },
          deprecated: true,
        },
        handler: () => ({}),
      },
      helper: { handler: () => "not a task" },
    },
  } as ServiceSchema;
}

const expectedEntries = (app: string) => [
  {
    name: "legacyPing",
    app,
    type: "automatic",
    location: "Adapter",
    displayName: "legacyPing",
    summary: "Old ping",
    description: "Use ping",
    variables: { incoming: { host: "" }, outgoing: {} },
    deprecated: true,
  },
  {
    name: "ping",
    app,
    type: "automatic",
    location: "Application",
    displayName: "Ping a host",
    summary: "Check that a host answers",
    description: "Sends ICMP echo requests to host",
    variables: { incoming: { host: "", count: 3 }, outgoing: { reachable: null } },
    deprecated: false,
  },
];

const byApp = (list: any[], app: string) => list.filter((t) => t.app === app);

describe("task catalog in one process", () => {
  let platform: Platform;
  let admin: ReturnType<typeof client>;
  beforeAll(async () => {
    platform = await startPlatform();
    admin = client(platform.baseUrl, await login(platform.baseUrl));
  });
  afterAll(() => platform.stop());

  test("the engine's operations and the manual task, each a full catalog entry", async () => {
    const reply = await admin.get("/workflow_builder/tasks/list");
    expect(reply.status).toBe(200);
    const engine = byApp(reply.body, "WorkFlowEngine");
    expect(engine.filter((t) => t.type === "operation").map((t) => t.name)).toEqual(OPERATIONS);
    expect(engine.filter((t) => t.type === "manual")).toEqual([
      expect.objectContaining({ name: "ManualTask", location: "Broker", deprecated: false }),
    ]);
    for (const entry of reply.body) {
      expect(Object.keys(entry).sort()).toEqual(
        [
          "app",
          "deprecated",
          "description",
          "displayName",
          "location",
          "name",
          "summary",
          "type",
          "variables",
        ].sort(),
      );
      expect(entry.variables).toEqual({ incoming: expect.any(Object), outgoing: expect.any(Object) });
    }
    // Each operation documents the variables the executor reads and writes.
    for (const name of OPERATIONS) {
      const entry = engine.find((t) => t.name === name);
      expect(entry).toEqual(
        expect.objectContaining({ type: "operation", location: "Broker", deprecated: false }),
      );
      expect(entry.variables).toEqual({
        incoming: OPERATION_VARIABLES[name as OperationTask].incoming,
        outgoing: OPERATION_VARIABLES[name as OperationTask].outgoing,
      });
      expect(entry.summary).toBe(OPERATION_VARIABLES[name as OperationTask].summary);
    }
    expect(Object.keys(engine.find((t) => t.name === "query").variables.incoming).sort()).toEqual([
      "obj",
      "pass_on_null",
      "query",
    ]);
  });

  test("a service created later is listed at once, only its task actions, and goes when it stops", async () => {
    const before = (await admin.get("/workflow_builder/tasks/list")).body;
    expect(byApp(before, "netcheck")).toEqual([]);
    const service = platform.broker.createService(netcheck("netcheck"));
    await platform.broker.waitForServices(["netcheck"], 5000);
    const listed = (await admin.get("/workflow_builder/tasks/list")).body;
    expect(byApp(listed, "netcheck")).toEqual(expectedEntries("netcheck"));
    // The same through the broker.
    expect(byApp(await call(platform.broker, "engine.listTasks", {}), "netcheck")).toEqual(
      expectedEntries("netcheck"),
    );
    await platform.broker.destroyService(service);
    expect(byApp((await admin.get("/workflow_builder/tasks/list")).body, "netcheck")).toEqual([]);
  });

  test("roles: support may read the catalog, apiread may not", async () => {
    const support = await clientWithRoles(platform, admin, ["support"]);
    const reader = await clientWithRoles(platform, admin, ["apiread"]);
    expect((await support.get("/workflow_builder/tasks/list")).status).toBe(200);
    expectError(await reader.get("/workflow_builder/tasks/list"), 403, "FORBIDDEN");
  });
});

describe("task catalog over NATS: a service on a broker that joins later", () => {
  let platform: Awaited<ReturnType<typeof startShape>>;
  let late: ServiceBroker | undefined;
  let admin: ReturnType<typeof client>;
  beforeAll(async () => {
    platform = await startShape("over NATS");
    admin = client(platform.baseUrl, await login(platform.baseUrl));
  }, 60_000);
  afterAll(async () => {
    await late?.stop();
    await platform.stop();
  });

  const listed = async () => byApp((await admin.get("/workflow_builder/tasks/list")).body, "lateapp");

  test("appears without restarting the engine, and disappears when its node leaves", async () => {
    expect(await listed()).toEqual([]);
    late = createBroker(
      loadConfig({
        TRANSPORTER: platform.config.transporter!,
        NAMESPACE: platform.config.namespace,
        NODE_ID: `late-${randomUUID().slice(0, 8)}`,
        LOG_LEVEL: "warn",
      }),
    );
    late.createService(netcheck("lateapp"));
    await late.start();
    await eventually(async () => (await listed()).length === 2, 15_000, "lateapp's tasks in the catalog");
    expect(await listed()).toEqual(expectedEntries("lateapp"));
    await late.stop();
    late = undefined;
    await eventually(
      async () => (await listed()).length === 0,
      15_000,
      "lateapp's tasks to leave the catalog",
    );
  });
});
