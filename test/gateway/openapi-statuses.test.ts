/**
 * /openapi.json declares the error statuses operations really answer, from the contracts (an
 * action's `errors`, gateway/openapi.ts `errorStatuses`): every declared status is in the document,
 * and each error this suite drives over HTTP (502 and 504 from the orchestrator proxy, and the
 * adapter lifecycle and device lookup against an orchestrator that is down) has its status
 * declared on its operation, with the `type` shared/errors.ts lists for that status.
 */
import { operations, type Operation } from "../../shared/contracts";
import { ERROR_TYPES } from "../../shared/errors";
import { startOrchestrator, type TestOrchestrator } from "../support/orchestrator";
import { usePlatform, type Reply } from "../support/platform";

const env = usePlatform({ env: { ADAPTER_HEALTH_TICK_MS: "100000" } });
let orch: TestOrchestrator;
let doc: any;

/** Every reply of the suite, with the operation it reached. */
const replies: { op: Operation; route: string; reply: Reply }[] = [];

function matcher(op: Operation): RegExp {
  const pattern = op.path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:([A-Za-z0-9_]+)/g, "[^/]+");
  return new RegExp(`^${pattern}$`);
}

function operationOf(method: string, url: string): Operation {
  const pathname = url.split("?")[0];
  const op = operations()
    .filter((o) => o.method === method && matcher(o).test(pathname))
    .sort((a, b) => a.path.split(":").length - b.path.split(":").length)[0];
  if (!op) throw new Error(`no route for ${method} ${url}`);
  return op;
}

const responsesOf = (op: Operation) =>
  doc.paths[op.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")]?.[op.method.toLowerCase()]?.responses ?? {};

async function send(method: string, url: string, body?: unknown): Promise<Reply> {
  const reply = await env.admin.send(method, url, body === undefined ? {} : { body });
  replies.push({ op: operationOf(method, url), route: `${method} ${url}`, reply });
  return reply;
}

const adapter = (name: string, settings: Record<string, unknown>) => ({
  properties: { name, type: "Application", properties: { id: name, type: "NSO", properties: settings } },
});
const query = (path: string) => ({ params: { path, accept: "application/yang-data+json" } });
const action = (path: string, method = "POST") => ({
  params: { path, accept: "application/yang-data+json", method },
  body: { hello: "world" },
});

beforeAll(async () => {
  orch = await startOrchestrator();
  doc = (await env.admin.get("/openapi.json")).body;
  const common = { host: "127.0.0.1", timeout: 300, breakerThreshold: 1000, healthCheckInterval: 86_400_000 };
  expect((await env.admin.post("/adapters", adapter("up", { ...common, port: orch.port }))).status).toBe(200);
  // Port 1 on the loopback: nothing listens, the connection is refused.
  expect(
    (await env.admin.post("/adapters", adapter("down", { ...common, port: 1, timeout: 10_000 }))).status,
  ).toBe(200);
}, 60_000);

afterAll(() => orch?.close());

test("every status a contract declares is in /openapi.json on each of its routes, 502 only there", () => {
  const withErrors = operations().filter((op) => op.contract.errors);
  expect(withErrors.map((op) => op.action).sort()).toEqual(
    expect.arrayContaining(["adapters.restAction", "adapters.restQuery"]),
  );
  for (const op of operations()) {
    const responses = responsesOf(op);
    for (const [status, description] of Object.entries(op.contract.errors ?? {}))
      expect({
        route: `${op.method} ${op.path}`,
        status,
        description: responses[status]?.description,
      }).toEqual({
        route: `${op.method} ${op.path}`,
        status,
        description,
      });
    if (!op.contract.errors?.[502])
      expect({ route: `${op.method} ${op.path}`, has502: "502" in responses }).toEqual({
        route: `${op.method} ${op.path}`,
        has502: false,
      });
    // Every declared error status has its types in the catalogue.
    for (const status of Object.keys(responses).filter((s) => s !== "200"))
      expect(ERROR_TYPES[Number(status)]).toBeDefined();
  }
});

describe("the errors the proxy really answers are declared", () => {
  test("restQuery: 502 for an upstream 5xx and for an unreachable orchestrator, 504 for a slow one", async () => {
    const failing = await send("POST", "/orchestrator_manager/restQuery/up", query("/failing"));
    expect(failing.status).toBe(502);
    expect(failing.body.data.status).toBe(500);
    expect(
      (await send("POST", "/orchestrator_manager/restQuery/down", query("/restconf/data/x"))).status,
    ).toBe(502);
    const slow = await send("POST", "/orchestrator_manager/restQuery/up", query("/slow"));
    expect(slow.status).toBe(504);
    expect(slow.body.data).toMatchObject({ adapter: "up", timeoutMs: 300 });
  });

  test("restAction: the same three", async () => {
    expect((await send("POST", "/orchestrator_manager/restAction/up", action("/failing"))).status).toBe(502);
    expect(
      (await send("POST", "/orchestrator_manager/restAction/down", action("/restconf/data/x"))).status,
    ).toBe(502);
    expect((await send("POST", "/orchestrator_manager/restAction/up", action("/slow", "GET"))).status).toBe(
      504,
    );
  });

  test("adapter start and restart do not call a down orchestrator; a lookup whose only adapter is down fails naming it", async () => {
    // Start and restart only change the stored state and ask for a health check (docs/orchestrator.md#lifecycle).
    expect((await send("PUT", "/adapters/down/stop")).status).toBe(200);
    expect((await send("PUT", "/adapters/down/start")).status).toBe(200);
    expect((await send("PUT", "/adapters/down/restart")).status).toBe(200);
    // A lookup whose every adapter failed fails naming them (one among others would be left out).
    const lookup = await send("POST", "/mop/deviceObjects", { options: { entity: "down" } });
    expect(lookup.status).toBe(502);
    expect(lookup.body.data.adapters).toEqual([{ adapter: "down", reason: "BAD_GATEWAY" }]);
  });

  // Runs after the tests above (jest keeps their order): every error they got.
  test("each error answered above is declared on its operation, with its status's type", () => {
    const undeclared = replies
      .filter(({ reply }) => reply.status >= 400)
      .filter(
        ({ op, reply }) =>
          !(String(reply.status) in responsesOf(op)) ||
          !ERROR_TYPES[reply.status]?.includes(reply.body?.type),
      )
      .map(({ route, reply }) => `${route}: ${reply.status} ${reply.body?.type}`);
    expect(undeclared).toEqual([]);
    expect(replies.filter(({ reply }) => reply.status === 502).length).toBe(5);
    expect(replies.filter(({ reply }) => reply.status === 504).length).toBe(2);
  });
});
