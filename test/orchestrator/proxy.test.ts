/**
 * Operations 1 and 2 over HTTP through an orchestrator adapter against a test orchestrator:
 * answers, error mappings (404, 400, 502, 504, 503), path-escape attempts, and the adapter's
 * credentials absent from every answer and log line while reaching the orchestrator.
 */
import { client, expectError, login, startPlatform, type Client, type Platform } from "../support/platform";
import { startOrchestrator, DEVICES, type TestOrchestrator } from "../support/orchestrator";

const PASSWORD = "orchestrator-secret-9f8e";
let platform: Platform;
let orch: TestOrchestrator;
let api: Client;
const logged: string[] = [];

function adapter(name: string, settings: Record<string, unknown>, type = "NSO") {
  return {
    properties: {
      name,
      type: "Application",
      properties: { id: name, type, properties: settings },
    },
  };
}

beforeAll(async () => {
  orch = await startOrchestrator();
  platform = await startPlatform();
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    jest.spyOn(stream, "write").mockImplementation((chunk: any, ...rest: any[]) => {
      logged.push(String(chunk));
      return write(chunk, ...rest);
    });
  }
  for (const level of ["log", "info", "warn", "error", "debug"] as const)
    jest
      .spyOn(console, level)
      .mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(" ")));
  api = client(platform.baseUrl, await login(platform.baseUrl));
  const base = {
    protocol: "http",
    host: "127.0.0.1",
    port: orch.port,
    username: "admin",
    password: PASSWORD,
  };
  for (const body of [
    adapter("nso", { ...base, timeout: 1000 }),
    adapter("nso-one", { ...base, maxInFlight: 1, maxQueue: 0 }),
    adapter("nso-based", { ...base, base_path: "/restconf" }),
    adapter("down", { ...base, port: 1, timeout: 500 }),
    adapter("aaa", { host: "10.0.0.1" }, "local_aaa"),
  ])
    expect((await api.post("/adapters", body)).status).toBe(200);
});

afterAll(async () => {
  jest.restoreAllMocks();
  await platform?.stop();
  await orch?.close();
});

const query = (adapterId: string, path: string, accept = "application/yang-data+json") =>
  api.post(`/orchestrator_manager/restQuery/${adapterId}`, { params: { path, accept } });

describe("restQuery (operation 2)", () => {
  test("answers the upstream JSON body, RESTCONF and legacy REST, with the adapter's credentials", async () => {
    const reply = await query("nso", "/restconf/data/tailf-ncs:devices");
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(DEVICES);
    const sent = orch.seen.at(-1)!;
    expect(sent.method).toBe("GET");
    expect(sent.headers.accept).toBe("application/yang-data+json");
    expect(sent.headers.authorization).toBe("Basic " + Buffer.from(`admin:${PASSWORD}`).toString("base64"));
    const legacy = await query("nso", "/api/running/devices?deep", "application/vnd.yang.collection+json");
    expect(legacy.status).toBe(200);
    expect(legacy.body["tailf-ncs:device"]).toHaveLength(2);
  });

  test("answers the text for an XML media type", async () => {
    const reply = await query("nso", "/xml", "application/yang-data+xml");
    expect(reply.status).toBe(200);
    expect(reply.text).toContain("<devices><device><name>ce0</name>");
  });

  test("a path is resolved under the adapter's base path", async () => {
    const reply = await query("nso-based", "/data/tailf-ncs:devices");
    expect(reply.status).toBe(200);
    expect(orch.seen.at(-1)!.url).toBe("/restconf/data/tailf-ncs:devices");
  });

  test("unknown adapter 404, an adapter of another type 400", async () => {
    expectError(await query("nope", "/x"), 404, "NOT_FOUND");
    expectError(await query("aaa", "/x"), 400, "VALIDATION_ERROR");
  });

  test("upstream 4xx/5xx -> 502 with the upstream status and body", async () => {
    const failing = expectError(await query("nso", "/failing"), 502, "BAD_GATEWAY");
    expect(failing.data.status).toBe(500);
    expect(failing.data.body).toEqual({ errors: { error: [{ "error-message": "boom" }] } });
    expect(expectError(await query("nso", "/missing"), 502, "BAD_GATEWAY").data.status).toBe(404);
  });

  test("unreachable or a closed connection -> 502; past the timeout -> 504", async () => {
    expectError(await query("down", "/x"), 502, "BAD_GATEWAY");
    expectError(await query("nso", "/close"), 502, "BAD_GATEWAY");
    const slow = expectError(await query("nso", "/slow"), 504, "TIMEOUT");
    expect(slow.data).toEqual(expect.objectContaining({ adapter: "nso", timeoutMs: 1000 }));
  });

  test("an answer that stops halfway through its body -> 504 at the adapter's timeout", async () => {
    const started = Date.now();
    const stalled = expectError(await query("nso", "/stall"), 504, "TIMEOUT");
    expect(stalled.data).toEqual(expect.objectContaining({ adapter: "nso", timeoutMs: 1000 }));
    // The stand-in would finish the body (200) after 5 s: the 504 came from the deadline.
    expect(Date.now() - started).toBeLessThan(4000);
  });

  test("past the in-flight limit and queue, a call is refused at once with 503", async () => {
    const first = query("nso-one", "/slow");
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    expectError(await query("nso-one", "/restconf/data/tailf-ncs:devices"), 503, "ADAPTER_BUSY");
    expect(Date.now() - started).toBeLessThan(1000);
    expect((await first).status).toBe(200);
    expect((await query("nso-one", "/restconf/data/tailf-ncs:devices")).status).toBe(200);
  });

  test.each([
    ["a full URL", "http://evil.example/x"],
    ["a scheme-relative URL", "//evil.example/x"],
    ["no leading slash", "restconf/data"],
    ["a .. segment", "/restconf/../../etc/passwd"],
    ["an encoded .. segment", "/restconf/%2e%2e/%2e%2e/x"],
    ["a double-encoded .. segment", "/restconf/%252e%252e/x"],
    ["an encoded slash", "/restconf/..%2fx"],
    ["a backslash", "/restconf\\..\\x"],
    ["a scheme after the slash", "/http://evil.example"],
    ["a control character", "/restconf/%0d%0aHost: evil"],
  ])("a path with %s is refused with 400 and sends nothing", async (_why, path) => {
    const before = orch.seen.length;
    const body = expectError(await query("nso-based", path), 400, "VALIDATION_ERROR");
    expect(body.data[0].field).toBe("params.path");
    expect(orch.seen.length).toBe(before);
  });
});

describe("restAction (operation 1)", () => {
  test("a change without a body answers [{result: '204'}]", async () => {
    const reply = await api.post("/orchestrator_manager/restAction/nso", {
      params: { path: "/restconf/data/change", accept: "application/yang-data+json", method: "patch" },
      body: { "tailf-ncs:devices": {} },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([{ result: "204" }]);
    const sent = orch.seen.at(-1)!;
    expect(sent.method).toBe("PATCH");
    expect(sent.headers["content-type"]).toBe("application/yang-data+json");
    expect(JSON.parse(sent.body)).toEqual({ "tailf-ncs:devices": {} });
  });

  test("default POST with the given content type; the upstream body is answered", async () => {
    const reply = await api.post("/orchestrator_manager/restAction/nso", {
      params: {
        path: "/restconf/operations/echo",
        accept: "application/yang-data+json",
        contentType: "application/yang-data+json",
      },
      body: { input: { x: 1 } },
    });
    expect(reply.body).toEqual([{ result: "200", body: { echo: { input: { x: 1 } } } }]);
    expect(orch.seen.at(-1)!.method).toBe("POST");
  });

  test("a POST to a closed connection is not retried", async () => {
    const before = orch.seen.length;
    expectError(
      await api.post("/orchestrator_manager/restAction/nso", {
        params: { path: "/close", accept: "application/yang-data+json" },
        body: {},
      }),
      502,
      "BAD_GATEWAY",
    );
    expect(orch.seen.length - before).toBe(1);
  });
});

test("the adapter's password is in no answer and no log line", async () => {
  const read = await api.get("/adapters/nso");
  expect(read.text).not.toContain(PASSWORD);
  expect(read.text).not.toContain(Buffer.from(`admin:${PASSWORD}`).toString("base64"));
  expect(logged.length).toBeGreaterThan(0); // the 5xx answers above were logged
  for (const line of logged) {
    expect(line).not.toContain(PASSWORD);
    expect(line).not.toContain(Buffer.from(`admin:${PASSWORD}`).toString("base64"));
  }
});
