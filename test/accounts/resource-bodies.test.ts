/**
 * Create and update bodies of accounts, groups and service accounts take their resource's own fields
 * (the spec's "Group" and "Account"; our ServiceAccount) as sent, and ignore the read-only ones
 * (`_id`, `provenance`, `_meta`, `lastLogin`, `last_updated_by`): a client may send a resource back
 * as it read it (docs/compatibility.md#requests-as-the-real-products-clients-send-them). A name
 * that identifies the resource is taken only at its current value: a different one is a 400.
 */
import { expectError, login, noteSecret, request, usePlatform } from "../support/platform";

const PW = "correct-horse-battery";
const READ_ONLY = {
  _id: "11111111-2222-3333-4444-555555555555",
  provenance: "ldap",
  _meta: { created: "2001-01-01T00:00:00.000Z", updated: "2001-01-01T00:00:00.000Z" },
  last_updated_by: "someone-else",
};
const env = usePlatform();

beforeAll(async () => {
  expect((await env.admin.post("/user-management/groups", { name: "parent" })).status).toBe(200);
});

/** The read-only fields were not taken from the body. */
function expectOwnReadOnly(doc: Record<string, any>) {
  expect(doc._id).not.toBe(READ_ONLY._id);
  expect(doc.provenance).toBe("local");
  expect(doc._meta.created).not.toBe(READ_ONLY._meta.created);
  expect(doc.last_updated_by).not.toBe(READ_ONLY.last_updated_by);
}

describe("groups", () => {
  const own = {
    description: "Network operators",
    memberOf: ["parent"],
    assignedRoles: ["apiread"],
    inactive: true,
  };

  test("POST /user-management/groups takes the Group's own fields and ignores the read-only ones", async () => {
    const reply = await env.admin.post("/user-management/groups", { name: "g-flat", ...own, ...READ_ONLY });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(expect.objectContaining({ name: "g-flat", ...own }));
    expectOwnReadOnly(reply.body);
    expect((await env.admin.get(`/authorization/groups/${reply.body._id}`)).body).toEqual(reply.body);
  });

  test("POST /authorization/groups ({group}) takes the same", async () => {
    const reply = await env.admin.post("/authorization/groups", {
      group: { name: "g-wrapped", ...own, ...READ_ONLY },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual(expect.objectContaining({ name: "g-wrapped", ...own }));
    expectOwnReadOnly(reply.body.data);
  });

  test("PATCH /authorization/groups/:groupId takes the group as read, changed; its name only as it is", async () => {
    const created = (await env.admin.post("/user-management/groups", { name: "g-patch" })).body;
    const sentBack = { ...created, ...own, _meta: READ_ONLY._meta, provenance: "ldap" };
    const reply = await env.admin.patch(`/authorization/groups/${created._id}`, { updates: sentBack });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual(expect.objectContaining({ _id: created._id, name: "g-patch", ...own }));
    expect(reply.body.data.provenance).toBe("local");
    expect(reply.body.data._meta.created).toBe(created._meta.created);

    const renamed = expectError(
      await env.admin.patch(`/authorization/groups/${created._id}`, {
        updates: { name: "g-other", description: "x" },
      }),
      400,
      "VALIDATION_ERROR",
    );
    expect(renamed.data).toEqual([expect.objectContaining({ field: "updates.name", type: "immutable" })]);
    const after = (await env.admin.get(`/authorization/groups/${created._id}`)).body;
    expect(after).toEqual(expect.objectContaining({ name: "g-patch", description: own.description }));
  });
});

describe("accounts", () => {
  test("PATCH /authorization/accounts/:accountId takes the account as read, changed (firstname too); its username only as it is", async () => {
    const created = (
      await env.admin.post("/user-management/accounts", { username: "acc-patch", password: PW })
    ).body;
    const parent = (await env.admin.get("/authorization/groups/parent")).body;
    const sentBack = {
      ...created,
      firstname: "Ada",
      inactive: false,
      memberOf: [{ groupId: parent._id, aaaManaged: true }],
      lastLogin: "2001-01-01T00:00:00.000Z",
      _meta: READ_ONLY._meta,
      provenance: "ldap",
    };
    const reply = await env.admin.patch(`/authorization/accounts/${created._id}`, { updates: sentBack });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual(
      expect.objectContaining({
        _id: created._id,
        username: "acc-patch",
        firstname: "Ada",
        memberOf: [{ groupId: parent._id, aaaManaged: true }],
        lastLogin: null,
        provenance: "local",
      }),
    );
    expect(reply.body.data._meta.created).toBe(created._meta.created);

    const renamed = expectError(
      await env.admin.patch(`/authorization/accounts/${created._id}`, {
        updates: { username: "acc-other", firstname: "X" },
      }),
      400,
      "VALIDATION_ERROR",
    );
    expect(renamed.data).toEqual([expect.objectContaining({ field: "updates.username", type: "immutable" })]);
    const after = (await env.admin.get(`/authorization/accounts/${created._id}`)).body;
    expect(after).toEqual(expect.objectContaining({ username: "acc-patch", firstname: "Ada" }));
    // The account still signs in under its name.
    expect(await login(env.platform.baseUrl, "acc-patch", PW)).toEqual(expect.any(String));
  });
});

describe("service accounts", () => {
  test("POST /user-management/service-accounts takes inactive: an inactive one gets no token", async () => {
    const reply = await env.admin.post("/user-management/service-accounts", {
      name: "sa-off",
      inactive: true,
      ...READ_ONLY,
    });
    expect(reply.status).toBe(200);
    noteSecret(reply.body.clientSecret);
    expect(reply.body).toEqual(expect.objectContaining({ name: "sa-off", inactive: true }));
    expect(reply.body._id).toMatch(/^[0-9a-f]{24}$/);
    expect(reply.body._meta.created).not.toBe(READ_ONLY._meta.created);
    const token = await request(env.platform.baseUrl, "POST", "/oauth/token", {
      body: {
        grant_type: "client_credentials",
        client_id: reply.body.clientId,
        client_secret: reply.body.clientSecret,
      },
    });
    expectError(token, 401, "UNAUTHORIZED");
  });
});
