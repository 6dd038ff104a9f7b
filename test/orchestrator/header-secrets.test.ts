/**
 * Credentials in an adapter's request headers (docs/catalog.md#encrypted-credentials): a header
 * whose name carries a credential (`Authorization`, `Cookie`, `*token*`, `*key*`, `*secret*`, any
 * case) is sealed at rest and answered only sealed; the orchestrator receives the plain value,
 * unsealed in memory when the request is built. Other headers are stored and sent as given.
 */
import fs from "node:fs";
import path from "node:path";
import { isEncrypted } from "../../shared/secrets";
import { expectSealed, withStore } from "../support/catalog";
import { usePlatform } from "../support/platform";
import { startOrchestrator, type TestOrchestrator } from "../support/orchestrator";

const SECRET_HEADERS = {
  Authorization: "Bearer header-authorization-plain-71c2",
  "X-Auth-Token": "header-x-auth-token-plain-83d4",
  "X-API-Key": "header-api-key-plain-95e6",
  cookie: "session=header-cookie-plain-a7f8",
  "X-Client-Secret": "header-client-secret-plain-b9a0",
  "x-keystone-id": "header-keystone-plain-c1b2",
};
const PLAIN_HEADERS = { "X-Request-Source": "automation-platform" };

const env = usePlatform();
let orch: TestOrchestrator;

beforeAll(async () => {
  orch = await startOrchestrator();
  const created = await env.admin.post("/adapters", {
    properties: {
      name: "nso-headers",
      type: "Application",
      properties: {
        id: "nso-headers",
        type: "NSO",
        properties: {
          protocol: "http",
          host: "127.0.0.1",
          port: orch.port,
          headers: { ...SECRET_HEADERS, ...PLAIN_HEADERS },
        },
      },
    },
  });
  expect(created.status).toBe(200);
});

afterAll(() => orch?.close());

/** Every file of the store's directory, as text: what is kept at rest. */
function storedText(): string {
  const dir = path.join(env.platform.dataDir, "store");
  return fs
    .readdirSync(dir)
    .map((f) => fs.readFileSync(path.join(dir, f), "latin1"))
    .join("\n");
}

test("the orchestrator receives every header value in plain text", async () => {
  const reply = await env.admin.post("/orchestrator_manager/restQuery/nso-headers", {
    params: { path: "/restconf/data/tailf-ncs:devices", accept: "application/yang-data+json" },
  });
  expect(reply.status).toBe(200);
  const sent = orch.seen.filter((r) => r.url !== "/").at(-1)!.headers;
  for (const [name, value] of Object.entries({ ...SECRET_HEADERS, ...PLAIN_HEADERS }))
    expect({ name, value: sent[name.toLowerCase()] }).toEqual({ name, value });
  expect(JSON.stringify(sent)).not.toContain("enc:v1:");
});

test("credential headers are sealed at rest and answered only sealed; the others as given", async () => {
  const one = await env.admin.get("/adapters/nso-headers");
  const list = await env.admin.get("/adapters");
  expect(one.status).toBe(200);
  expect(list.status).toBe(200);
  const answered = one.body.properties.properties.headers;
  for (const [name, value] of Object.entries(SECRET_HEADERS)) {
    expect(isEncrypted(answered[name])).toBe(true);
    for (const reply of [one, list]) expect(reply.text).not.toContain(value);
  }
  expect(answered["X-Request-Source"]).toBe(PLAIN_HEADERS["X-Request-Source"]);
  expect(one.body.isEncrypted).toBe(true);

  const stored = await withStore(env.platform, (store) =>
    store.collection("adapters").findOne({ name: "nso-headers" }),
  );
  for (const [name, value] of Object.entries(SECRET_HEADERS))
    expectSealed(env.platform, stored!.properties.properties.headers[name], value);
  const atRest = storedText();
  for (const value of Object.values(SECRET_HEADERS)) expect(atRest).not.toContain(value);
  expect(atRest).toContain(PLAIN_HEADERS["X-Request-Source"]);
});

test("an adapter header value a request cannot carry is a 400 naming the header, and nothing is stored", async () => {
  const reply = await env.admin.post("/adapters", {
    properties: {
      name: "nso-bad-header",
      type: "Application",
      properties: {
        id: "nso-bad-header",
        type: "NSO",
        properties: { host: "127.0.0.1", port: orch.port, headers: { "X-Trace": "a\r\nHost: evil" } },
      },
    },
  });
  expect(reply.status).toBe(400);
  expect(reply.body.data[0].field).toBe("properties.properties.properties.headers.X-Trace");
  expect((await env.admin.get("/adapters/nso-bad-header")).status).toBe(404);
});

test("a sealed value a caller copies under a header that is not a credential is sent as it is, never decrypted", async () => {
  const stored = await withStore(env.platform, (store) =>
    store.collection("adapters").findOne({ name: "nso-headers" }),
  );
  const sealed = stored!.properties.properties.headers.Authorization as string;
  const created = await env.admin.post("/adapters", {
    properties: {
      name: "nso-copy",
      type: "Application",
      properties: {
        id: "nso-copy",
        type: "NSO",
        properties: { host: "127.0.0.1", port: orch.port, headers: { "X-Trace": sealed } },
      },
    },
  });
  expect(created.status).toBe(200);
  const reply = await env.admin.post("/orchestrator_manager/restQuery/nso-copy", {
    params: { path: "/restconf/data/tailf-ncs:devices", accept: "application/yang-data+json" },
  });
  expect(reply.status).toBe(200);
  const sent = orch.seen.filter((r) => r.url !== "/").at(-1)!.headers;
  expect(sent["x-trace"]).toBe(sealed);
  expect(JSON.stringify(sent)).not.toContain(SECRET_HEADERS.Authorization);
});
