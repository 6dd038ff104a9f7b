/**
 * Service accounts and `POST /oauth/token` (issue: client compatibility; docs/compatibility.md#oauth).
 * ipsdk's recommended login: a form-encoded client credentials grant, then `Authorization: Bearer`.
 */
import { withStore } from "../support/engine-fixtures";
import { client, expectError, noteSecret, request, usePlatform } from "../support/platform";

const env = usePlatform();

beforeAll(async () => {
  const readers = await env.admin.post("/user-management/groups", {
    name: "oauth-readers",
    assignedRoles: ["apiread"],
  });
  expect(readers.status).toBe(200);
});

const FORM = { "Content-Type": "application/x-www-form-urlencoded" };
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

async function tokenFor(clientId: string, secret: string) {
  return request(env.platform.baseUrl, "POST", "/oauth/token", {
    raw: form({ grant_type: "client_credentials", client_id: clientId, client_secret: secret }),
    headers: FORM,
  });
}

async function createServiceAccount(name: string) {
  const created = await env.admin.post("/user-management/service-accounts", {
    name,
    description: "CI pipeline",
    memberOf: [{ groupId: "oauth-readers" }],
  });
  expect(created.status).toBe(200);
  noteSecret(created.body.clientSecret);
  return created.body as { _id: string; clientId: string; clientSecret: string; name: string };
}

test("an admin creates a service account: its secret is shown once and stored only as a slow hash", async () => {
  const sa = await createServiceAccount("ci-pipeline");
  expect(sa.clientId).toMatch(/^[0-9a-f]{24}$/);
  expect(sa.clientId).toBe(sa._id);
  expect(sa.clientSecret.length).toBeGreaterThanOrEqual(32);
  expect(sa).toEqual(
    expect.objectContaining({
      name: "ci-pipeline",
      memberOf: [expect.objectContaining({ groupId: expect.any(String) })],
    }),
  );

  const listed = await env.admin.get("/user-management/service-accounts");
  expect(listed.status).toBe(200);
  expect(listed.body.total).toBeGreaterThanOrEqual(1);
  expect(listed.text).not.toContain(sa.clientSecret);
  expect(listed.body.results.find((r: any) => r.clientId === sa.clientId)).not.toHaveProperty("clientSecret");

  const stored = await withStore(env.platform.broker, async (store) => ({
    account: await store.collection("service_accounts").findOne({ _id: sa._id }),
    credentials: await store.collection("account_credentials").findOne({ _id: sa._id }),
  }));
  expect(JSON.stringify(stored)).not.toContain(sa.clientSecret);
  expect(stored.credentials!.hash).toMatch(/^scrypt\$/);

  expectError(
    await env.admin.post("/user-management/service-accounts", { name: "ci-pipeline" }),
    409,
    "CONFLICT",
  );
  expectError(
    await env.admin.post("/user-management/service-accounts", { name: "x", groups: ["no-such-group"] }),
    400,
    "VALIDATION_ERROR",
  );
});

test("POST /oauth/token (form-encoded client credentials) answers a Bearer token that works as any other", async () => {
  const sa = await createServiceAccount("mcp-server");
  const reply = await tokenFor(sa.clientId, sa.clientSecret);
  expect(reply.status).toBe(200);
  expect(reply.body).toEqual({
    access_token: expect.any(String),
    token_type: "Bearer",
    expires_in: expect.any(Number),
  });
  expect(reply.body.expires_in).toBeGreaterThan(0);
  noteSecret(reply.body.access_token);

  const bearer = { headers: { Authorization: `Bearer ${reply.body.access_token}` } };
  const who = await request(env.platform.baseUrl, "GET", "/whoami", bearer);
  expect(who.status).toBe(200);
  expect(who.body.account).toEqual(
    expect.objectContaining({ _id: sa._id, username: "mcp-server", provenance: "service" }),
  );
  expect(who.body.roles).toEqual(["apiread"]);
  // Its groups' roles decide, as for an account: a read passes, an admin route does not.
  expect((await request(env.platform.baseUrl, "GET", "/adapters", bearer)).status).toBe(200);
  expectError(
    await request(env.platform.baseUrl, "GET", "/user-management/accounts", bearer),
    403,
    "FORBIDDEN",
  );

  // A JSON body is taken too.
  const json = await request(env.platform.baseUrl, "POST", "/oauth/token", {
    body: { grant_type: "client_credentials", client_id: sa.clientId, client_secret: sa.clientSecret },
  });
  expect(json.status).toBe(200);
  noteSecret(json.body.access_token);
});

test("wrong secret, unknown client and a bad grant are refused; nothing else takes a form body", async () => {
  const sa = await createServiceAccount("wrong-secret");
  expectError(await tokenFor(sa.clientId, "not-the-secret"), 401, "UNAUTHORIZED");
  expectError(await tokenFor("0123456789abcdef01234567", sa.clientSecret), 401, "UNAUTHORIZED");
  expectError(await tokenFor("not-an-id", sa.clientSecret), 401, "UNAUTHORIZED");
  const badGrant = await request(env.platform.baseUrl, "POST", "/oauth/token", {
    raw: form({ grant_type: "password", client_id: sa.clientId, client_secret: sa.clientSecret }),
    headers: FORM,
  });
  expectError(badGrant, 400, "VALIDATION_ERROR");
  const missing = await request(env.platform.baseUrl, "POST", "/oauth/token", {
    raw: form({ grant_type: "client_credentials", client_id: sa.clientId }),
    headers: FORM,
  });
  expectError(missing, 400, "VALIDATION_ERROR");
  const repeated = await request(env.platform.baseUrl, "POST", "/oauth/token", {
    raw: `grant_type=client_credentials&client_id=${sa.clientId}&client_id=${sa.clientId}&client_secret=x`,
    headers: FORM,
  });
  expectError(repeated, 400, "VALIDATION_ERROR");
  const loginByForm = await request(env.platform.baseUrl, "POST", "/login", {
    raw: form({ username: "admin", password: "x" }),
    headers: FORM,
  });
  expectError(loginByForm, 415, "UNSUPPORTED_MEDIA_TYPE");
  expect(reply(badGrant)).not.toContain(sa.clientSecret);
});

const reply = (r: { text: string }) => r.text;

test("rotating the secret ends the old secret and its tokens; deleting the service account ends every token", async () => {
  const sa = await createServiceAccount("rotated");
  const first = await tokenFor(sa.clientId, sa.clientSecret);
  noteSecret(first.body.access_token);
  const bearer = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });
  expect(
    (await request(env.platform.baseUrl, "GET", "/whoami", bearer(first.body.access_token))).status,
  ).toBe(200);

  const rotated = await env.admin.put(`/user-management/service-accounts/${sa.clientId}/secret`);
  expect(rotated.status).toBe(200);
  noteSecret(rotated.body.clientSecret);
  expect(rotated.body.clientSecret).not.toBe(sa.clientSecret);
  expectError(
    await request(env.platform.baseUrl, "GET", "/whoami", bearer(first.body.access_token)),
    401,
    "UNAUTHORIZED",
  );
  expectError(await tokenFor(sa.clientId, sa.clientSecret), 401, "UNAUTHORIZED");

  const second = await tokenFor(sa.clientId, rotated.body.clientSecret);
  expect(second.status).toBe(200);
  noteSecret(second.body.access_token);
  const deleted = await env.admin.delete(`/user-management/service-accounts/${sa.clientId}`);
  expect(deleted.status).toBe(200);
  expectError(
    await request(env.platform.baseUrl, "GET", "/whoami", bearer(second.body.access_token)),
    401,
    "UNAUTHORIZED",
  );
  expectError(await tokenFor(sa.clientId, rotated.body.clientSecret), 401, "UNAUTHORIZED");
  expectError(await env.admin.delete(`/user-management/service-accounts/${sa.clientId}`), 404, "NOT_FOUND");
  expectError(await env.admin.delete(`/user-management/service-accounts/not-an-id`), 400, "VALIDATION_ERROR");
});

test("service accounts are the admin's: other roles get 403, no credentials 401", async () => {
  const sa = await createServiceAccount("reader-probe");
  const token = await tokenFor(sa.clientId, sa.clientSecret);
  noteSecret(token.body.access_token);
  const reader = client(env.platform.baseUrl, token.body.access_token);
  expectError(await reader.get("/user-management/service-accounts"), 403, "FORBIDDEN");
  expectError(await reader.post("/user-management/service-accounts", { name: "escalate" }), 403, "FORBIDDEN");
  expectError(
    await client(env.platform.baseUrl).get("/user-management/service-accounts"),
    401,
    "UNAUTHORIZED",
  );
});

test("GET /user-management/service-accounts pages by name: {results, total, skip, limit}", async () => {
  for (const name of ["page-c", "page-a", "page-b"]) await createServiceAccount(name);
  const all = (await env.admin.get("/user-management/service-accounts?limit=1000")).body;
  const names = all.results.map((r: { name: string }) => r.name);
  expect(names).toEqual([...names].sort());
  expect(all).toEqual(expect.objectContaining({ skip: 0, limit: 1000, total: names.length }));
  const start = names.indexOf("page-a");
  const page = (await env.admin.get(`/user-management/service-accounts?skip=${start}&limit=2`)).body;
  expect(page).toEqual({
    results: all.results.slice(start, start + 2),
    total: names.length,
    skip: start,
    limit: 2,
  });
  expect(page.results.map((r: { name: string }) => r.name)).toEqual(["page-a", "page-b"]);
  expect((await env.admin.get("/user-management/service-accounts")).body.limit).toBe(25);
  expectError(await env.admin.get("/user-management/service-accounts?limit=0"), 400, "VALIDATION_ERROR");
});
