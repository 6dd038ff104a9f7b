/**
 * Requests as the real product's clients send them (issue: client compatibility): runs of `/` in a
 * path route as one; an account created with the Account resource's own `memberOf: [{groupId}]`
 * gets those groups (and their roles); search pages count from 1.
 */
import {
  client,
  expectError,
  login,
  request,
  startPlatform,
  type Client,
  type Platform,
} from "../support/platform";

let platform: Platform;
let api: Client;
let token: string;

beforeAll(async () => {
  platform = await startPlatform();
  token = await login(platform.baseUrl);
  api = client(platform.baseUrl, token);
});
afterAll(() => platform?.stop());

test("repeated slashes in the path route as one; the query string is untouched", async () => {
  const reply = await request(platform.baseUrl, "GET", "//user-management//accounts?limit=1", { token });
  expect(reply.status).toBe(200);
  expect(reply.body.results).toHaveLength(1);
  expect(reply.body.limit).toBe(1);
  expect((await request(platform.baseUrl, "GET", "///whoami", { token })).status).toBe(200);
  expect((await request(platform.baseUrl, "GET", "//no//such", { token })).status).toBe(404);
});

test("POST /user-management/accounts honours memberOf [{groupId}], by id or name, beside groups", async () => {
  const ops = await api.post("/user-management/groups", { name: "compat-ops", assignedRoles: ["operator"] });
  expect(ops.status).toBe(200);
  const eng = await api.post("/user-management/groups", {
    name: "compat-eng",
    assignedRoles: ["engineering"],
  });
  expect(eng.status).toBe(200);
  const created = await api.post("/user-management/accounts", {
    username: "compat-user",
    password: "compat-user-password-1",
    memberOf: [{ groupId: ops.body._id }],
    groups: ["compat-eng"],
  });
  expect(created.status).toBe(200);
  expect(created.body.memberOf.map((m: any) => m.groupId).sort()).toEqual(
    [eng.body._id, ops.body._id].sort(),
  );
  const who = await client(
    platform.baseUrl,
    await login(platform.baseUrl, "compat-user", "compat-user-password-1"),
  ).get("/whoami");
  expect(who.body.roles).toEqual(expect.arrayContaining(["operator", "engineering"]));
  const unknown = expectError(
    await api.post("/user-management/accounts", {
      username: "compat-user-2",
      password: "compat-user-password-2",
      memberOf: [{ groupId: "no-such-group" }],
    }),
    400,
    "VALIDATION_ERROR",
  );
  expect(unknown.message).toContain("no-such-group");
  expectError(
    await api.post("/user-management/accounts", {
      username: "compat-user-3",
      password: "compat-user-password-3",
      memberOf: [{ group: "compat-ops" }],
    }),
    400,
    "VALIDATION_ERROR",
  );
});
