/**
 * The role table (docs/platform-rules.md#sign-in-and-roles), for every route of the API: no credentials -> 401; a
 * caller with an allowed role passes the gateway; a caller with none of the route's roles -> 403.
 * And every credential transport: Bearer, cookie, `token` query parameter, Basic.
 */
import { operations, type Operation } from "../../shared/contracts";
import { ROLES, type Role } from "../../shared/contracts/define";
import {
  client,
  expectError,
  login,
  request,
  startPlatform,
  ADMIN_PASSWORD,
  type Platform,
  type Reply,
} from "../support/platform";

const PASSWORD = "role-test-password";
let platform: Platform;
const tokens: Partial<Record<Role | "none", string>> = {};

beforeAll(async () => {
  platform = await startPlatform();
  const admin = client(platform.baseUrl, await login(platform.baseUrl));
  // One account per role (through a group granting it), and one with no role at all.
  for (const role of ROLES) {
    expect(
      (await admin.post("/user-management/groups", { name: `g-${role}`, assignedRoles: [role] })).status,
    ).toBe(200);
    expect(
      (
        await admin.post("/user-management/accounts", {
          username: `u-${role}`,
          password: PASSWORD,
          groups: [`g-${role}`],
        })
      ).status,
    ).toBe(200);
    tokens[role] = await login(platform.baseUrl, `u-${role}`, PASSWORD);
  }
  expect(
    (await admin.post("/user-management/accounts", { username: "u-none", password: PASSWORD })).status,
  ).toBe(200);
  tokens.none = await login(platform.baseUrl, "u-none", PASSWORD);
});
afterAll(() => platform.stop());

/** A concrete URL for a route: path parameters filled with values their schemas accept. */
function urlOf(op: Operation): string {
  return op.path.replace(/:([A-Za-z0-9_]+)/g, (_m, name) =>
    ["id", "treeId"].includes(name) ? "0123456789abcdef01234567" : `sample-${name}`,
  );
}

/** Logout would end the caller's session mid-table; it is tested on its own below. */
const routes = operations().filter((op) => op.access !== "public" && op.action !== "accounts.logout");

async function call(op: Operation, token?: string): Promise<Reply> {
  if (op.produces === "sse") {
    // An event stream never ends: read the status and error body (if any), then hang up.
    const controller = new AbortController();
    const res = await fetch(platform.baseUrl + urlOf(op), {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      signal: controller.signal,
    });
    const text = res.status === 200 ? "" : await res.text();
    controller.abort();
    return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
  }
  return client(platform.baseUrl, token).send(
    op.method,
    urlOf(op),
    op.method === "POST" || op.method === "PUT" || op.method === "PATCH" ? { body: {} } : {},
  );
}

test("the table covers the spec's 20 operations and every supporting route", () => {
  const specNumbers = operations()
    .filter((op) => op.spec)
    .map((op) => op.spec);
  expect(specNumbers.sort((a, b) => a! - b!)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  expect(routes.length).toBeGreaterThan(40);
});

describe.each(routes.map((op) => [`${op.method} ${op.path}`, op] as const))("%s", (_name, op) => {
  test("no credentials -> 401", async () => {
    expectError(await call(op), 401, "UNAUTHORIZED");
  });

  test("admin passes the gateway", async () => {
    expect([401, 403]).not.toContain((await call(op, tokens.admin)).status);
  });

  const access = op.access as Exclude<Operation["access"], "public">;
  const allowed: Role | "none" =
    access === "authenticated" ? "none" : (access.find((r) => r !== "admin") ?? "admin");
  test(`an allowed caller (${allowed}) passes the gateway`, async () => {
    expect([401, 403]).not.toContain((await call(op, tokens[allowed])).status);
  });

  if (access !== "authenticated") {
    const roles = access;
    const denied = ROLES.filter((r) => r !== "admin" && !roles.includes(r));
    test(`callers with none of its roles (${denied.join(", ")}, no role) -> 403`, async () => {
      for (const role of [...denied, "none" as const])
        expectError(await call(op, tokens[role]), 403, "FORBIDDEN");
    });
  }
});

describe("credential transports", () => {
  const whoami = (options: Parameters<typeof request>[3]) =>
    request(platform.baseUrl, "GET", "/whoami", options);

  test("Authorization: Bearer <token>", async () => {
    const reply = await whoami({ token: tokens.engineering });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(
      expect.objectContaining({
        roles: ["engineering"],
        account: expect.objectContaining({ username: "u-engineering" }),
      }),
    );
  });

  test("the session cookie set by /login", async () => {
    const res = await fetch(`${platform.baseUrl}/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ user: { username: "u-support", password: PASSWORD } }),
    });
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^token=[^;]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    const reply = await whoami({ headers: { cookie: cookie.split(";")[0] } });
    expect(reply.body.account.username).toBe("u-support");
  });

  test("the token query parameter", async () => {
    const reply = await request(
      platform.baseUrl,
      "GET",
      `/whoami?token=${encodeURIComponent(tokens.apiread!)}`,
    );
    expect(reply.body.account.username).toBe("u-apiread");
  });

  test("Authorization: Basic per request, and a wrong password -> 401", async () => {
    const basic = (user: string, pass: string) => ({
      authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`,
    });
    const reply = await whoami({ headers: basic("admin", ADMIN_PASSWORD) });
    expect(reply.body).toEqual(expect.objectContaining({ roles: ["admin"] }));
    expectError(await whoami({ headers: basic("admin", "wrong-password") }), 401, "UNAUTHORIZED");
    expectError(await whoami({ headers: basic("nobody", "whatever-pass") }), 401, "UNAUTHORIZED");
  });

  test("a token in the query does not reach the action's params", async () => {
    const reply = await request(
      platform.baseUrl,
      "GET",
      `/user-management/accounts?token=${encodeURIComponent(tokens.admin!)}&limit=1`,
    );
    expect(reply.status).toBe(200);
    expect(reply.body.limit).toBe(1);
  });

  test("wrong password at /login -> 401, unknown user -> 401 with the same message", async () => {
    const wrong = expectError(
      await request(platform.baseUrl, "POST", "/login", {
        body: { user: { username: "u-support", password: "nope-nope" } },
      }),
      401,
      "UNAUTHORIZED",
    );
    const unknown = expectError(
      await request(platform.baseUrl, "POST", "/login", {
        body: { user: { username: "ghost", password: "nope-nope" } },
      }),
      401,
      "UNAUTHORIZED",
    );
    expect(unknown.message).toBe(wrong.message);
  });

  test("/logout revokes the token at once and clears the cookie", async () => {
    const token = await login(platform.baseUrl, "u-operator", PASSWORD);
    expect((await whoami({ token })).status).toBe(200); // now cached by the gateway
    const out = await request(platform.baseUrl, "GET", "/logout", { token });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toMatch(/^token=; .*Max-Age=0/);
    expectError(await whoami({ token }), 401, "UNAUTHORIZED");
  });

  test("/myTtl answers the seconds left", async () => {
    const reply = await request(platform.baseUrl, "GET", "/myTtl", { token: tokens.other });
    expect(reply.body).toBeGreaterThan(3500);
    expect(reply.body).toBeLessThanOrEqual(3600);
  });
});

describe("session expiry", () => {
  let short: Platform;
  beforeAll(async () => {
    short = await startPlatform({ env: { SESSION_TTL: "1", AUTH_CACHE_MS: "0" } });
  });
  afterAll(() => short.stop());

  test("an idle session expires after SESSION_TTL", async () => {
    const token = await login(short.baseUrl);
    expect((await request(short.baseUrl, "GET", "/whoami", { token })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1300));
    expectError(await request(short.baseUrl, "GET", "/whoami", { token }), 401, "UNAUTHORIZED");
  });
});
