/**
 * The real product's path for a forced logout, `POST /authorization/accounts/:accountId/forceLogout`
 * (no body), beside ours (`.../logout`): the same operation, its sessions end at once, admin only
 * (docs/compatibility.md#accounts-groups-and-service-accounts).
 */
import { client, expectError, login, request, usePlatform } from "../support/platform";

const PW = "correct-horse-battery";
const env = usePlatform();

const whoami = (token: string) => request(env.platform.baseUrl, "GET", "/whoami", { token });

test("POST /authorization/accounts/:accountId/forceLogout ends every session of the account at once", async () => {
  const created = await env.admin.post("/user-management/accounts", { username: "kicked", password: PW });
  expect(created.status).toBe(200);
  const first = await login(env.platform.baseUrl, "kicked", PW);
  const second = await login(env.platform.baseUrl, "kicked", PW);
  expect((await whoami(first)).status).toBe(200);

  const reply = await env.admin.post(`/authorization/accounts/${created.body._id}/forceLogout`);
  expect(reply.status).toBe(200);
  expect(reply.body).toEqual({ status: "OK", message: expect.stringContaining("2 session(s)") });
  expectError(await whoami(first), 401, "UNAUTHORIZED");
  expectError(await whoami(second), 401, "UNAUTHORIZED");

  // Not an admin: 403; an unknown account: 404, as on our own path.
  const kicked = client(env.platform.baseUrl, await login(env.platform.baseUrl, "kicked", PW));
  expectError(await kicked.post(`/authorization/accounts/${created.body._id}/forceLogout`), 403, "FORBIDDEN");
  expectError(
    await env.admin.post("/authorization/accounts/000000000000000000000000/forceLogout"),
    404,
    "NOT_FOUND",
  );
});
