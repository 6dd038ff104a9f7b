/**
 * The lifecycle of accounts and groups over HTTP (docs/compatibility.md#accounts-groups-and-service-accounts):
 * the real product's PATCH /authorization/accounts/:accountId and /authorization/groups[/:groupId],
 * and ours beside them (DELETE of an account, forced logout, group members). Each with its roles
 * (403 for a non-admin), its 404 and 409 cases, and its effect on sessions and rights: a forced
 * logout or a deactivation ends the account's sessions at once, and a change of rights holds from
 * the next request (the gateways drop the callers it touches; AUTH_CACHE_MS is left at its default
 * here, so nothing but that drop could make it hold).
 */
import { client, expectError, login, request, usePlatform, type Client } from "../support/platform";

const PW = "correct-horse-battery";
const env = usePlatform();
let adminId: string;
let plain: Client;

async function newAccount(username: string, extra: Record<string, unknown> = {}): Promise<string> {
  const reply = await env.admin.post("/user-management/accounts", { username, password: PW, ...extra });
  expect(reply.status).toBe(200);
  return reply.body._id;
}

async function newGroup(name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const reply = await env.admin.post("/authorization/groups", { group: { name, ...extra } });
  expect(reply.status).toBe(200);
  return reply.body.data._id;
}

const whoami = (token: string) => request(env.platform.baseUrl, "GET", "/whoami", { token });

beforeAll(async () => {
  adminId = (await env.admin.get("/whoami")).body.account._id;
  await newAccount("plain");
  plain = client(env.platform.baseUrl, await login(env.platform.baseUrl, "plain", PW));
});

describe("roles: every lifecycle operation is admin-only", () => {
  test.each([
    ["GET", "/authorization/accounts/x", undefined],
    ["PATCH", "/authorization/accounts/x", { updates: { inactive: true } }],
    ["DELETE", "/authorization/accounts/x", undefined],
    ["POST", "/authorization/accounts/x/logout", undefined],
    ["GET", "/authorization/groups/x", undefined],
    ["POST", "/authorization/groups", { group: { name: "by-plain" } }],
    ["PATCH", "/authorization/groups/x", { updates: { description: "d" } }],
    ["DELETE", "/authorization/groups/x", undefined],
    ["POST", "/authorization/groups/x/members", { accounts: ["plain"] }],
    ["DELETE", "/authorization/groups/x/members/plain", undefined],
  ])("%s %s by a non-admin -> 403", async (method, path, body) => {
    const error = expectError(await plain.send(method, path, { body }), 403, "FORBIDDEN");
    expect(error.data.required).toContain("admin");
  });
});

describe("accounts", () => {
  test("GET /authorization/accounts/:accountId answers the account; an unknown id is 404", async () => {
    const id = await newAccount("reader");
    const reply = await env.admin.get(`/authorization/accounts/${id}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(expect.objectContaining({ _id: id, username: "reader", inactive: false }));
    expect(reply.body).not.toHaveProperty("_rev");
    expectError(await env.admin.get("/authorization/accounts/000000000000000000000000"), 404, "NOT_FOUND");
  });

  test("POST /user-management/accounts takes the Account's own fields; read-only ones are ignored", async () => {
    const ops = await newGroup("ops-readers", { assignedRoles: ["apiread"] });
    const reply = await env.admin.post("/user-management/accounts", {
      _id: "0123456789abcdef01234567",
      provenance: "LDAP",
      username: "spec-shaped",
      password: PW,
      firstname: "Spec",
      memberOf: [{ groupId: ops, aaaManaged: true }],
      lastLogin: "2020-01-01T00:00:00Z",
      inactive: false,
      _meta: { created: "2020-01-01T00:00:00Z", updated: "2020-01-01T00:00:00Z" },
    });
    expect(reply.status).toBe(200);
    expect(reply.body._id).not.toBe("0123456789abcdef01234567");
    expect(reply.body).toEqual(
      expect.objectContaining({
        provenance: "local",
        lastLogin: null,
        memberOf: [{ groupId: ops, aaaManaged: true }],
      }),
    );
    expect(reply.body._meta.created).not.toBe("2020-01-01T00:00:00Z");
  });

  test("PATCH updates email, assignedRoles and memberOf in the real product's shapes; rights hold from the next request", async () => {
    const id = await newAccount("patched");
    const netops = await newGroup("netops-patch", { assignedRoles: ["engineering"] });
    const token = await login(env.platform.baseUrl, "patched", PW);
    expect((await whoami(token)).body.roles).toEqual([]);
    const before = (await env.admin.get(`/authorization/accounts/${id}`)).body;

    const reply = await env.admin.patch(`/authorization/accounts/${id}`, {
      updates: {
        email: "patched@example.com",
        assignedRoles: [{ roleId: "apiread" }],
        memberOf: [{ groupId: netops, aaaManaged: true }],
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      status: "OK",
      message: expect.any(String),
      data: expect.objectContaining({
        _id: id,
        email: "patched@example.com",
        assignedRoles: ["apiread"],
        memberOf: [{ groupId: netops, aaaManaged: true }],
        last_updated_by: adminId,
      }),
    });
    expect(reply.body.data._meta.updated >= before._meta.updated).toBe(true);
    expect(reply.body.data).not.toHaveProperty("_rev");
    // The same token, no wait: the gateway dropped its cached caller when the account changed.
    expect((await whoami(token)).body.roles).toEqual(["apiread", "engineering"]);
  });

  test("PATCH: bad input is a 400 naming the field and changes nothing; an unknown account is 404", async () => {
    const id = await newAccount("unchanged");
    const before = (await env.admin.get(`/authorization/accounts/${id}`)).body;
    const cases: [unknown, string][] = [
      [{ updates: { memberOf: [{ groupId: "no-such-group" }] } }, "updates.memberOf"],
      [{ updates: { assignedRoles: [{ roleId: "no-such-role" }] } }, "updates.assignedRoles"],
      [{ updates: { email: "not an email" } }, "updates.email"],
      [{ updates: { inactive: "yes" } }, "updates.inactive"],
      [{ updates: { memberOf: Array(101).fill("ops-readers") } }, "updates.memberOf"],
      [{ updates: {} }, "updates"],
    ];
    for (const [body, field] of cases) {
      const error = expectError(
        await env.admin.patch(`/authorization/accounts/${id}`, body),
        400,
        "VALIDATION_ERROR",
      );
      expect(error.data.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect((await env.admin.get(`/authorization/accounts/${id}`)).body).toEqual(before);
    expectError(
      await env.admin.patch("/authorization/accounts/000000000000000000000000", {
        updates: { inactive: true },
      }),
      404,
      "NOT_FOUND",
    );
  });

  test("deactivating ends the account's sessions at once and stops sign-in; reactivating lets it in again", async () => {
    const id = await newAccount("deactivated");
    const token = await login(env.platform.baseUrl, "deactivated", PW);
    expect((await whoami(token)).status).toBe(200);
    expect(
      (await env.admin.patch(`/authorization/accounts/${id}`, { updates: { inactive: true } })).status,
    ).toBe(200);
    expectError(await whoami(token), 401, "UNAUTHORIZED");
    await expect(login(env.platform.baseUrl, "deactivated", PW)).rejects.toThrow(/401/);
    const basic = await request(env.platform.baseUrl, "GET", "/whoami", {
      headers: { authorization: `Basic ${Buffer.from(`deactivated:${PW}`).toString("base64")}` },
    });
    expectError(basic, 401, "UNAUTHORIZED");

    expect(
      (await env.admin.patch(`/authorization/accounts/${id}`, { updates: { inactive: false } })).status,
    ).toBe(200);
    expect((await whoami(await login(env.platform.baseUrl, "deactivated", PW))).status).toBe(200);
  });

  test("an admin may not deactivate or delete its own account (409)", async () => {
    expectError(
      await env.admin.patch(`/authorization/accounts/${adminId}`, { updates: { inactive: true } }),
      409,
      "CONFLICT",
    );
    expectError(await env.admin.delete(`/authorization/accounts/${adminId}`), 409, "CONFLICT");
    expect((await env.admin.get("/whoami")).status).toBe(200);
  });

  test("forced logout: every session of the account ends at once, and it may sign in again", async () => {
    const id = await newAccount("forced");
    const first = await login(env.platform.baseUrl, "forced", PW);
    const second = await login(env.platform.baseUrl, "forced", PW);
    expect((await whoami(first)).status).toBe(200);
    const reply = await env.admin.post(`/authorization/accounts/${id}/logout`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ status: "OK", message: expect.stringContaining("2 session(s)") });
    expectError(await whoami(first), 401, "UNAUTHORIZED");
    expectError(await whoami(second), 401, "UNAUTHORIZED");
    expect((await whoami(await login(env.platform.baseUrl, "forced", PW))).status).toBe(200);
    expectError(
      await env.admin.post("/authorization/accounts/000000000000000000000000/logout"),
      404,
      "NOT_FOUND",
    );
  });

  test("DELETE: the account, its password and its sessions go; again is 404", async () => {
    const id = await newAccount("leaver");
    const token = await login(env.platform.baseUrl, "leaver", PW);
    const reply = await env.admin.delete(`/authorization/accounts/${id}`);
    expect(reply.status).toBe(200);
    expectError(await whoami(token), 401, "UNAUTHORIZED");
    await expect(login(env.platform.baseUrl, "leaver", PW)).rejects.toThrow(/401/);
    expectError(await env.admin.get(`/authorization/accounts/${id}`), 404, "NOT_FOUND");
    expectError(await env.admin.delete(`/authorization/accounts/${id}`), 404, "NOT_FOUND");
    // The username is free again.
    expect(
      (await env.admin.post("/user-management/accounts", { username: "leaver", password: PW })).status,
    ).toBe(200);
  });
});

describe("rights the platform stored (a job's runAs, an automation's owner)", () => {
  test("a group change reaches them at once on every node, not after AUTH_CACHE_MS", async () => {
    const group = await newGroup("stored-readers", { assignedRoles: ["apiread"] });
    const id = await newAccount("stored", { groups: ["stored-readers"] });
    // A caller as a job stores it: resolved long ago, so the middleware resolves it again (and caches it).
    const stale = { accountId: id, username: "stored", roles: [], groupIds: [], resolvedAt: 0 };
    const asStored = () =>
      env.platform.broker.call("engine.listWorkflows", {}, { meta: { caller: stale } }).then(
        () => "allowed",
        (err: { code?: number }) => err.code,
      );
    expect(await asStored()).toBe("allowed");
    expect(
      (await env.admin.patch(`/authorization/groups/${group}`, { updates: { inactive: true } })).status,
    ).toBe(200);
    expect(await asStored()).toBe(403);
  });
});

describe("groups", () => {
  test("POST /authorization/groups answers the envelope; a duplicate is 409; GET by id or name; unknown is 404", async () => {
    const reply = await env.admin.post("/authorization/groups", {
      group: { name: "created", description: "d", assignedRoles: [{ roleId: "apiread" }] },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      status: "OK",
      message: expect.any(String),
      data: expect.objectContaining({ name: "created", assignedRoles: ["apiread"], provenance: "local" }),
    });
    expectError(
      await env.admin.post("/authorization/groups", { group: { name: "created" } }),
      409,
      "CONFLICT",
    );
    const id = reply.body.data._id;
    expect((await env.admin.get(`/authorization/groups/${id}`)).body.name).toBe("created");
    expect((await env.admin.get("/authorization/groups/created")).body._id).toBe(id);
    expectError(await env.admin.get("/authorization/groups/no-such-group"), 404, "NOT_FOUND");
  });

  test("PATCH a group: its members' rights change from their next request; audit fields set", async () => {
    const id = await newGroup("patch-me");
    await newAccount("member-of-patch", { groups: ["patch-me"] });
    const token = await login(env.platform.baseUrl, "member-of-patch", PW);
    expect((await whoami(token)).body.roles).toEqual([]);
    const reply = await env.admin.patch(`/authorization/groups/${id}`, {
      updates: { description: "now engineers", assignedRoles: ["engineering"] },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual(
      expect.objectContaining({
        description: "now engineers",
        assignedRoles: ["engineering"],
        last_updated_by: adminId,
      }),
    );
    expect(reply.body.data).not.toHaveProperty("_rev");
    expect((await whoami(token)).body.roles).toEqual(["engineering"]);
    // Deactivating the group takes its roles away as promptly.
    expect(
      (await env.admin.patch(`/authorization/groups/${id}`, { updates: { inactive: true } })).status,
    ).toBe(200);
    expect((await whoami(token)).body.roles).toEqual([]);
  });

  test("PATCH a group: itself as a parent or an unknown parent is 400; an unknown group is 404", async () => {
    const id = await newGroup("self-parent");
    let error = expectError(
      await env.admin.patch(`/authorization/groups/${id}`, {
        updates: { memberOf: [{ groupId: id, aaaManaged: true }] },
      }),
      400,
      "VALIDATION_ERROR",
    );
    expect(error.data[0].field).toBe("updates.memberOf");
    error = expectError(
      await env.admin.patch(`/authorization/groups/${id}`, { updates: { memberOf: ["ghosts"] } }),
      400,
      "VALIDATION_ERROR",
    );
    expect(error.data[0].field).toBe("updates.memberOf");
    expectError(
      await env.admin.patch("/authorization/groups/ghosts", { updates: { inactive: true } }),
      404,
      "NOT_FOUND",
    );
  });

  test("members: concurrent additions to the same account all hold; removal; 404 for a non-member", async () => {
    const a = await newGroup("members-a");
    const b = await newGroup("members-b");
    const id = await newAccount("joiner");
    const replies = await Promise.all([
      env.admin.post(`/authorization/groups/${a}/members`, { accounts: ["joiner"] }),
      env.admin.post(`/authorization/groups/${b}/members`, { accounts: [id] }),
    ]);
    expect(replies.map((r) => r.status)).toEqual([200, 200]);
    const groups = (await env.admin.get(`/authorization/accounts/${id}`)).body.memberOf.map(
      (m: { groupId: string }) => m.groupId,
    );
    expect(groups.sort()).toEqual([a, b].sort());
    expect((await env.admin.delete(`/authorization/groups/${a}/members/joiner`)).status).toBe(200);
    expectError(await env.admin.delete(`/authorization/groups/${a}/members/joiner`), 404, "NOT_FOUND");
    expectError(
      await env.admin.post(`/authorization/groups/${a}/members`, { accounts: ["nobody-here"] }),
      400,
      "VALIDATION_ERROR",
    );
    expect((await env.admin.get(`/authorization/accounts/${id}`)).body.memberOf).toEqual([
      { groupId: b, aaaManaged: true },
    ]);
  });

  test("DELETE a group: it leaves every account and child group; again is 404", async () => {
    const parent = await newGroup("doomed", { assignedRoles: ["engineering"] });
    const child = await newGroup("doomed-child", { memberOf: ["doomed"] });
    const id = await newAccount("doomed-member", { groups: ["doomed", "doomed-child"] });
    const token = await login(env.platform.baseUrl, "doomed-member", PW);
    expect((await whoami(token)).body.roles).toEqual(["engineering"]);

    const reply = await env.admin.delete(`/authorization/groups/${parent}`);
    expect(reply.status).toBe(200);
    expect(reply.body.status).toBe("OK");
    expect((await env.admin.get(`/authorization/accounts/${id}`)).body.memberOf).toEqual([
      { groupId: child, aaaManaged: true },
    ]);
    expect((await env.admin.get(`/authorization/groups/${child}`)).body.memberOf).toEqual([]);
    expect((await whoami(token)).body.roles).toEqual([]);
    expectError(await env.admin.get(`/authorization/groups/${parent}`), 404, "NOT_FOUND");
    expectError(await env.admin.delete(`/authorization/groups/${parent}`), 404, "NOT_FOUND");
  });

  test("DELETE a group that is a workflow's or an automation's only owner group -> 409 naming them; with another group it goes", async () => {
    const owner = await newGroup("sole-owner");
    const other = await newGroup("other-owner");
    const workflow = await env.admin.post("/workflow_builder/workflows", {
      workflow: {
        name: "Owned by one group",
        groups: [owner],
        tasks: { workflow_start: {}, workflow_end: {} },
        transitions: { workflow_start: { workflow_end: { state: "success", type: "standard" } } },
      },
    });
    expect(workflow.status).toBe(200);
    const automation = await env.admin.post("/automation_catalog/automations", {
      name: "Owned automation",
      workflow: "Owned by one group",
      groups: [owner],
    });
    expect(automation.status).toBe(200);

    // The real product's view: gbac read groups only, no write group.
    const readOnly = await env.admin.post("/operations-manager/automations", {
      name: "Read by one group",
      componentId: "Owned by one group",
      gbac: { read: [owner], write: [] },
    });
    expect(readOnly.status).toBe(200);
    const readOnlyId = readOnly.body.data._id;
    const job = await env.admin.post("/operations-manager/jobs/start", {
      workflow: "Owned by one group",
      options: { groups: [owner, other] },
    });
    expect(job.status).toBe(200);

    const refused = expectError(await env.admin.delete(`/authorization/groups/${owner}`), 409, "CONFLICT");
    expect(refused.data.objects).toEqual(
      expect.arrayContaining([
        { type: "workflow", id: expect.any(String), name: "Owned by one group" },
        { type: "automation", id: automation.body._id, name: "Owned automation" },
        // Without its one read group it would have no group at all: open to every caller.
        { type: "automation", id: readOnlyId, name: "Read by one group" },
      ]),
    );
    expect(refused.data.objects).toHaveLength(3);
    expect((await env.admin.get(`/authorization/groups/${owner}`)).status).toBe(200);

    // Give both another owner group: now the delete goes, and they keep only the other one.
    const wf = (await env.admin.get("/workflow_builder/workflows/Owned%20by%20one%20group")).body;
    expect(
      (
        await env.admin.put("/workflow_builder/workflows/Owned%20by%20one%20group", {
          workflow: { ...wf, groups: [owner, other] },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await env.admin.put(`/automation_catalog/automations/${automation.body._id}`, {
          changes: { groups: [owner, other] },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await env.admin.patch(`/operations-manager/automations/${readOnlyId}`, {
          gbac: { read: [owner, other] },
        })
      ).status,
    ).toBe(200);
    const deleted = await env.admin.delete(`/authorization/groups/${owner}`);
    expect(deleted.status).toBe(200);
    expect((await env.admin.get("/workflow_builder/workflows/Owned%20by%20one%20group")).body.groups).toEqual(
      [other],
    );
    const after = (await env.admin.get(`/automation_catalog/automations/${automation.body._id}`)).body;
    expect(after.groups).toEqual([other]);
    expect((await env.admin.get(`/operations-manager/automations/${readOnlyId}`)).body.data.gbac).toEqual({
      read: [other],
      write: [],
    });
    // A job loses it too (a job is never open: without groups it is its starter's and admins').
    expect((await env.admin.get(`/workflow_engine/getJob/${job.body._id}`)).body.groups).toEqual([other]);
  });
});
