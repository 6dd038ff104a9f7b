/**
 * Caller errors are not upstream failures (docs/orchestrator.md#circuit-breaker): a header value a
 * caller supplies (`params.accept`, `params.contentType`) holding CR/LF, NUL or a character outside
 * Latin-1 is a 400 naming the field, nothing is sent, and no number of them opens the adapter's
 * circuit. An orchestrator answering JSON nested too deep is a 502 naming the cause, never a 500.
 */
import { expectError, usePlatform } from "../support/platform";
import { startOrchestrator, type TestOrchestrator } from "../support/orchestrator";
import { MAX_UPSTREAM_BODY, MAX_UPSTREAM_DEPTH } from "../../services/adapters/orchestrator/proxy";

const env = usePlatform();
let orch: TestOrchestrator;

beforeAll(async () => {
  orch = await startOrchestrator();
  const settings = {
    protocol: "http",
    host: "127.0.0.1",
    port: orch.port,
    breakerThreshold: 3,
    breakerCooldown: 30_000,
  };
  const created = await env.admin.post("/adapters", {
    properties: {
      name: "nso",
      type: "Application",
      properties: { id: "nso", type: "NSO", properties: settings },
    },
  });
  expect(created.status).toBe(200);
});

afterAll(() => orch?.close());

/** Requests the orchestrator received, the adapter's health checks (GET /) aside. */
const sent = () => orch.seen.filter((r) => r.url !== "/").length;

const action = (params: Record<string, unknown>) =>
  env.admin.post("/orchestrator_manager/restAction/nso", {
    params: { path: "/restconf/operations/echo", accept: "application/yang-data+json", ...params },
    body: { input: {} },
  });

const BAD_VALUES: [string, string][] = [
  ["CR/LF", "application/json\r\nX-Injected: 1"],
  ["a lone LF", "application/json\nX"],
  ["NUL", "application/json\u0000"],
  ["a character outside Latin-1", "application/json; charset=ʊtf-8"],
  ["an emoji", "application/json 🙂"],
];

describe.each(["contentType", "accept"])("params.%s", (field) => {
  test.each(BAD_VALUES)("with %s: 400 naming the field, nothing sent", async (_why, value) => {
    const before = sent();
    const body = expectError(await action({ [field]: value }), 400, "VALIDATION_ERROR");
    expect(body.data[0].field).toBe(`params.${field}`);
    expect(sent()).toBe(before);
  });
});

test("restQuery: a bad accept is a 400 naming params.accept", async () => {
  const before = sent();
  const reply = await env.admin.post("/orchestrator_manager/restQuery/nso", {
    params: { path: "/restconf/data/tailf-ncs:devices", accept: "application/json\r\nX: 1" },
  });
  expect(expectError(reply, 400, "VALIDATION_ERROR").data[0].field).toBe("params.accept");
  expect(sent()).toBe(before);
});

test("many caller errors past the breaker's threshold leave the circuit closed for everyone", async () => {
  for (let i = 0; i < 10; i++) expectError(await action({ contentType: "a\r\nb" }), 400, "VALIDATION_ERROR");
  for (let i = 0; i < 10; i++) expectError(await action({ path: "/restconf/../x" }), 400, "VALIDATION_ERROR");
  const good = await action({ contentType: "application/yang-data+json" });
  expect(good.status).toBe(200);
  expect(good.body).toEqual([{ result: "200", body: { echo: { input: {} } } }]);
});

test("Latin-1 header values and tabs pass", async () => {
  const reply = await action({ contentType: "application/yang-data+json;\tprofile=café" });
  expect(reply.status).toBe(200);
  const received = orch.seen.filter((r) => r.url !== "/").at(-1)!;
  expect(received.headers["content-type"]).toBe("application/yang-data+json;\tprofile=café");
});

describe("upstream JSON nested too deep", () => {
  test("5,000 levels (30 KB): 502 naming the cause, and the platform answers on", async () => {
    const body = expectError(
      await env.admin.post("/orchestrator_manager/restQuery/nso", {
        params: { path: "/deep", accept: "application/yang-data+json" },
      }),
      502,
      "BAD_GATEWAY",
    );
    expect(body.message).toContain(`nested deeper than ${MAX_UPSTREAM_DEPTH} levels`);
    expect(body.data.body).toEqual({
      adapter: "nso",
      cause: `the answer's JSON is nested deeper than ${MAX_UPSTREAM_DEPTH} levels`,
    });
    expect((await env.admin.get("/health")).status).toBe(200);
  });

  test("the same through restAction; at the bound it is answered", async () => {
    const deep = await env.admin.post("/orchestrator_manager/restAction/nso", {
      params: { path: `/deep?levels=${MAX_UPSTREAM_DEPTH + 1}`, accept: "application/yang-data+json" },
      body: {},
    });
    expectError(deep, 502, "BAD_GATEWAY");
    const atBound = await env.admin.post("/orchestrator_manager/restQuery/nso", {
      params: { path: "/deep?levels=10", accept: "application/yang-data+json" },
    });
    expect(atBound.status).toBe(200);
    expect(JSON.stringify(atBound.body)).toBe('{"a":'.repeat(10) + "1" + "}".repeat(10));
  });
});

test.each([
  ["with a content-length (refused before it is read)", "/huge"],
  ["chunked, with no content-length (dropped as it streams in)", "/huge-chunked"],
])("an answer over the size bound, %s: 502 naming the cause", async (_how, path) => {
  const body = expectError(
    await env.admin.post("/orchestrator_manager/restQuery/nso", {
      params: { path, accept: "application/yang-data+json" },
    }),
    502,
    "BAD_GATEWAY",
  );
  expect(body.data.body).toEqual({
    adapter: "nso",
    cause: `the answer is larger than ${MAX_UPSTREAM_BODY} bytes`,
  });
});
