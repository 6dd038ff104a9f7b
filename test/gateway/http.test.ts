/**
 * The gateway's HTTP behaviour outside any one operation: docs/platform-rules.md (#errors, #object-parameters-on-get, #probes-and-extras).
 */
import { operations } from "../../shared/contracts";
import { client, expectError, login, request, startPlatform, type Platform } from "../support/platform";

let platform: Platform;
let token: string;

beforeAll(async () => {
  platform = await startPlatform({ env: { BODY_LIMIT: "2kb", CORS_ORIGINS: "https://ui.example.net" } });
  token = await login(platform.baseUrl);
});
afterAll(() => platform.stop());

describe("error model", () => {
  test("unknown path -> 404 NOT_FOUND", async () => {
    expectError(await request(platform.baseUrl, "GET", "/no/such/thing", { token }), 404, "NOT_FOUND");
  });

  test("a body over BODY_LIMIT -> 413 and nothing is written", async () => {
    const api = client(platform.baseUrl, token);
    const reply = await api.post("/user-management/groups", { name: "big", description: "x".repeat(4000) });
    expectError(reply, 413, "PAYLOAD_TOO_LARGE");
    expect(
      (await api.get("/user-management/groups?limit=1000")).body.results.map((g: { name: string }) => g.name),
    ).not.toContain("big");
  });

  test("a non-JSON body -> 415", async () => {
    const reply = await request(platform.baseUrl, "POST", "/user-management/groups", {
      token,
      raw: "name=x",
      headers: { "content-type": "text/plain" },
    });
    expectError(reply, 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  test("malformed JSON -> 400 INVALID_REQUEST_BODY", async () => {
    expectError(
      await request(platform.baseUrl, "POST", "/user-management/groups", { token, raw: '{"name": ' }),
      400,
      "INVALID_REQUEST_BODY",
    );
  });

  test("a 5xx body carries the request id; a 4xx body never carries a stack", async () => {
    // A 5xx on demand: an orchestrator adapter whose target refuses connections answers 502.
    const created = await request(platform.baseUrl, "POST", "/adapters", {
      token,
      body: {
        properties: {
          name: "refusing",
          type: "Application",
          properties: {
            id: "refusing",
            type: "NSO",
            properties: { host: "127.0.0.1", port: 1, timeout: 3000 },
          },
        },
      },
    });
    expect(created.status).toBe(200);
    const reply = await request(platform.baseUrl, "POST", "/orchestrator_manager/restQuery/refusing", {
      token,
      body: { params: { path: "/restconf/data", accept: "application/yang-data+json" } },
      headers: { "x-request-id": "trace-5xx-check" },
    });
    expect(expectError(reply, 502, "BAD_GATEWAY").data.requestId).toBe("trace-5xx-check");
  });

  test("unknown top-level properties are ignored and not stored where the spec does not forbid them", async () => {
    const api = client(platform.baseUrl, token);
    const reply = await api.post("/user-management/groups", {
      name: "noc",
      assignedRoles: ["operations"],
      color: "red",
    });
    expect(reply.status).toBe(200);
    expect(reply.body).not.toHaveProperty("color");
  });
});

describe("X-Request-ID", () => {
  test("echoed when the caller sends one", async () => {
    const reply = await request(platform.baseUrl, "GET", "/health", {
      headers: { "x-request-id": "abc-123" },
    });
    expect(reply.headers.get("x-request-id")).toBe("abc-123");
  });

  test("generated when absent, and replaced when it is not a safe token", async () => {
    const none = await request(platform.baseUrl, "GET", "/health");
    expect(none.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const unsafe = await request(platform.baseUrl, "GET", "/health", {
      headers: { "x-request-id": "bad id <script>" },
    });
    expect(unsafe.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("CORS", () => {
  test("a preflight from an allowed origin is answered with the CORS headers", async () => {
    const res = await fetch(`${platform.baseUrl}/user-management/accounts`, {
      method: "OPTIONS",
      headers: { origin: "https://ui.example.net", "access-control-request-method": "GET" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://ui.example.net");
    expect(res.headers.get("access-control-allow-credentials")).toBe("true");
  });

  test("no CORS headers for another origin", async () => {
    const res = await fetch(`${platform.baseUrl}/health`, {
      headers: { origin: "https://evil.example.com" },
    });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("probes, OpenAPI and version (no credentials)", () => {
  test("/health and /ready", async () => {
    expect((await request(platform.baseUrl, "GET", "/health")).body).toEqual({ status: "ok" });
    const ready = await request(platform.baseUrl, "GET", "/ready");
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual(expect.objectContaining({ accounts: "ok", engine: "ok", store: "ok" }));
  });

  test("/openapi.json documents every route with its parameters, roles and the error body", async () => {
    const doc = (await request(platform.baseUrl, "GET", "/openapi.json")).body;
    expect(doc.openapi).toBe("3.1.0");
    for (const op of operations()) {
      const entry = doc.paths[op.path.replace(/:(\w+)/g, "{$1}")]?.[op.method.toLowerCase()];
      expect(entry).toBeDefined();
      expect(entry.operationId).toBe(op.aliasOf ? `${op.action}@${op.path}` : op.action);
    }
    const adapters = doc.paths["/adapters"].post.requestBody.content["application/json"].schema;
    expect(adapters.properties.properties.required).toEqual(["name", "type", "properties"]);
    const restQuery =
      doc.paths["/orchestrator_manager/restQuery/{adapterId}"].post.requestBody.content["application/json"]
        .schema;
    expect(restQuery.additionalProperties).toBe(false);
    const jobs = doc.paths["/operations-manager/admin/jobs"].get.parameters.find(
      (p: { name: string }) => p.name === "queryParameters",
    );
    expect(jobs.schema.properties.limit).toEqual({ type: "integer", minimum: 1 });
    expect(doc.paths["/user-management/accounts"].get.description).toContain("Roles: admin.");
  });

  test("/version", async () => {
    expect((await request(platform.baseUrl, "GET", "/version")).body).toEqual({
      platform: expect.stringMatching(/^\d+\.\d+\.\d+/),
      api: "1.0.0",
    });
  });
});

describe("object parameters on GET (docs/platform-rules.md#object-parameters-on-get)", () => {
  beforeAll(async () => {
    const api = client(platform.baseUrl, token);
    for (const name of ["ana", "andre", "bea"]) {
      expect(
        (
          await api.post("/user-management/accounts", {
            username: name,
            password: "long-enough-pw",
            firstname: name.toUpperCase(),
          })
        ).status,
      ).toBe(200);
    }
  });

  const forms = {
    flattened: "/user-management/accounts?startsWith=an&limit=1&sort=username&order=-1",
    "wrapped in brackets":
      "/user-management/accounts?queryOptions[startsWith]=an&queryOptions[limit]=1&queryOptions[sort]=username&queryOptions[order]=-1",
    "wrapped as JSON text": `/user-management/accounts?queryOptions=${encodeURIComponent(JSON.stringify({ startsWith: "an", limit: 1, sort: "username", order: -1 }))}`,
  };

  test.each(Object.entries(forms))("%s gives the same page", async (_form, url) => {
    const reply = await request(platform.baseUrl, "GET", url, { token });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      results: [expect.objectContaining({ username: "andre" })],
      skip: 0,
      limit: 1,
      total: 2,
    });
  });

  test("a JSON body on the GET gives the same page, and wins over the query", async () => {
    const body = { queryOptions: { startsWith: "an", limit: 1, sort: "username", order: -1 } };
    const reply = await request(platform.baseUrl, "GET", "/user-management/accounts?startsWith=b", {
      token,
      body,
    });
    expect(reply.body).toEqual({
      results: [expect.objectContaining({ username: "andre" })],
      skip: 0,
      limit: 1,
      total: 2,
    });
  });

  test("a limit over 1000 is capped", async () => {
    expect(
      (await request(platform.baseUrl, "GET", "/user-management/accounts?limit=5000", { token })).body.limit,
    ).toBe(1000);
  });
});

describe("rate limit", () => {
  let limited: Platform;
  beforeAll(async () => {
    limited = await startPlatform({ env: { RATE_LIMIT: "3", RATE_LIMIT_WINDOW: "60000" } });
  });
  afterAll(() => limited.stop());

  test("over the limit -> 429 with Retry-After (probes are never limited: test/security/rate-limits.test.ts)", async () => {
    for (let i = 0; i < 3; i++)
      expect((await request(limited.baseUrl, "GET", "/user-management/accounts")).status).toBe(401);
    const reply = await request(limited.baseUrl, "GET", "/user-management/accounts");
    expectError(reply, 429, "RATE_LIMITED");
    expect(Number(reply.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
