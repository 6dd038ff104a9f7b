/**
 * Password work is bounded (docs/security.md#stalls): past PASSWORD_WORK_CONCURRENCY requests doing
 * scrypt work and PASSWORD_WORK_QUEUE waiting, a sign-in is refused at once with a retryable 503
 * that changes nothing: it is not counted as a failed sign-in, so it cannot lock the account.
 */
import { metricsUrl, sample } from "../support/metrics";
import { ADMIN_PASSWORD, login, request, startPlatform, type Platform } from "../support/platform";

const signIn = (platform: Platform, username: string, password: string) =>
  request(platform.baseUrl, "POST", "/login", { body: { user: { username, password } } });

test("a burst of sign-ins past the line is refused with 503, counts no failure, and the line recovers", async () => {
  const platform = await startPlatform({
    env: { PASSWORD_WORK_CONCURRENCY: "1", PASSWORD_WORK_QUEUE: "1", LOGIN_MAX_FAILURES: "5" },
  });
  try {
    // 12 wrong passwords at once: one derives, one waits, the rest are refused while the first runs
    // (a derivation takes tens of milliseconds; the burst arrives within a few).
    const replies = await Promise.all(Array.from({ length: 12 }, () => signIn(platform, "admin", "wrong")));
    const refused = replies.filter((r) => r.status === 503);
    const checked = replies.filter((r) => r.status === 401);
    expect(refused.length + checked.length).toBe(12);
    expect(refused.length).toBeGreaterThanOrEqual(12 - 4);
    for (const reply of refused)
      expect(reply.body).toMatchObject({
        code: 503,
        type: "SERVICE_UNAVAILABLE",
        message: expect.stringContaining("retry shortly"),
      });
    // Operators see the refusals (docs/operations-guide.md, "Sign-ins refused").
    const text = await (await fetch(metricsUrl(platform.broker))).text();
    expect(
      sample(text, "moleculer_request_error_total", {
        service: "accounts",
        action: "accounts.login",
        errorType: "SERVICE_UNAVAILABLE",
      }),
    ).toBe(refused.length);
    // Had every wrong password been checked, the account would be locked (5 failures): it is not.
    expect(await login(platform.baseUrl, "admin", ADMIN_PASSWORD)).toMatch(/^\S{20,}$/);
  } finally {
    await platform.stop();
  }
});
