/**
 * Rate limits (docs/security.md#limits): probes, /openapi.json and /version are never limited; the
 * API is limited per client address; /login has a stricter limit of its own per address, and a
 * per-account limit on failed sign-ins that holds across every gateway (the count is in the store).
 */
import { client, expectError, login, request, startPlatform, type Platform } from "../support/platform";

describe("per client address", () => {
  let platform: Platform;
  beforeAll(async () => {
    platform = await startPlatform({
      env: { RATE_LIMIT: "5", LOGIN_RATE_LIMIT: "3", RATE_LIMIT_WINDOW: "60000" },
    });
  });
  afterAll(() => platform.stop());

  test("probes, /openapi.json and /version answer however often they are asked", async () => {
    for (let i = 0; i < 30; i++)
      for (const path of ["/health", "/ready", "/version", "/openapi.json"])
        expect((await request(platform.baseUrl, "GET", path)).status).toBeLessThan(429);
  });

  test("the API answers 429 with Retry-After past its limit; /login has its own, stricter one", async () => {
    const token = await login(platform.baseUrl);
    const api = client(platform.baseUrl, token);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await api.get("/whoami")).status);
    expect(statuses.slice(0, 5).every((s) => s === 200)).toBe(true);
    const limited = await api.get("/whoami");
    expectError(limited, 429, "RATE_LIMITED");
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
    // One login was used above; two more pass, the next is refused.
    for (let i = 0; i < 2; i++) await login(platform.baseUrl);
    expectError(
      await request(platform.baseUrl, "POST", "/login", {
        body: { user: { username: "admin", password: "x" } },
      }),
      429,
      "RATE_LIMITED",
    );
  });
});

test("failed sign-ins are limited per account, whatever the address", async () => {
  const platform = await startPlatform({ env: { LOGIN_MAX_FAILURES: "3" } });
  try {
    const attempt = (password: string) =>
      request(platform.baseUrl, "POST", "/login", { body: { user: { username: "admin", password } } });
    for (let i = 0; i < 3; i++) expectError(await attempt("wrong"), 401, "UNAUTHORIZED");
    expectError(await attempt("wrong"), 429, "RATE_LIMITED");
    // Even the right password waits for the window to end.
    expectError(await attempt("admin-test-password"), 429, "RATE_LIMITED");
    // Other accounts are not affected.
    expectError(
      await request(platform.baseUrl, "POST", "/login", {
        body: { user: { username: "someone", password: "x" } },
      }),
      401,
      "UNAUTHORIZED",
    );
  } finally {
    await platform.stop();
  }
});
