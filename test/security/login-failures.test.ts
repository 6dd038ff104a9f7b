/**
 * Failed sign-ins are counted under a keyed hash of the username (HMAC-SHA256 under the platform
 * key), never the typed text, with an expiry index so the counts of random usernames go away with
 * their window (docs/security.md#limits). The lock-out holds as before, and in another process that
 * holds the same key.
 */
import fs from "node:fs";
import path from "node:path";
import { withStore } from "../support/catalog";
import {
  ADMIN_PASSWORD,
  expectError,
  request,
  startPlatform,
  tempDir,
  type Platform,
} from "../support/platform";

/** What a user typed into the username box by mistake: their password. */
const TYPED = "Winter-Password-typed-as-username-42";

const signIn = (platform: Platform, username: string, password: string) =>
  request(platform.baseUrl, "POST", "/login", { body: { user: { username, password } } });

/** Every file of the store's directory, as text: what is kept at rest. */
function storedText(platform: Platform): string {
  const dir = path.join(platform.dataDir, "store");
  return fs
    .readdirSync(dir)
    .map((f) => fs.readFileSync(path.join(dir, f), "latin1"))
    .join("\n");
}

const failureDocs = (platform: Platform) =>
  withStore(platform, (store) => store.collection("login_failures").find({}));

test("a password typed into the username box is not stored; the count still locks the name out", async () => {
  const platform = await startPlatform({ env: { LOGIN_MAX_FAILURES: "3" } });
  try {
    for (let i = 0; i < 3; i++) expectError(await signIn(platform, TYPED, "x"), 401, "UNAUTHORIZED");
    expectError(await signIn(platform, TYPED, "x"), 429, "RATE_LIMITED");
    expect(storedText(platform)).not.toContain(TYPED);
    const docs = await failureDocs(platform);
    expect(docs).toHaveLength(1);
    expect(JSON.stringify(docs)).not.toContain(TYPED);
    expect(docs[0]).toEqual(
      expect.objectContaining({ count: 3, until: expect.any(Number), expireAt: expect.any(String) }),
    );
    expect(Date.parse(docs[0].expireAt)).toBe(docs[0].until);
  } finally {
    await platform.stop();
  }
});

test("the lock-out of an account holds, the right password included, and in another process with the same key", async () => {
  const dataDir = tempDir();
  const env = { LOGIN_MAX_FAILURES: "3" };
  let platform = await startPlatform({ dataDir, env });
  try {
    for (let i = 0; i < 3; i++) expectError(await signIn(platform, "admin", "wrong"), 401, "UNAUTHORIZED");
    expectError(await signIn(platform, "admin", ADMIN_PASSWORD), 429, "RATE_LIMITED");
    expectError(await signIn(platform, "someone", "x"), 401, "UNAUTHORIZED");
    await platform.stop();
    // Another process with the same platform key (here: the same data directory) counts under the same id.
    platform = await startPlatform({ dataDir, env });
    expectError(await signIn(platform, "admin", ADMIN_PASSWORD), 429, "RATE_LIMITED");
  } finally {
    await platform.stop();
  }
});

test("counts expire with their window: random usernames do not pile up", async () => {
  const platform = await startPlatform({ env: { LOGIN_FAILURE_WINDOW_MS: "1000" } });
  try {
    for (let i = 0; i < 10; i++) expectError(await signIn(platform, `random-${i}`, "x"), 401, "UNAUTHORIZED");
    expect((await failureDocs(platform)).length).toBeGreaterThan(0);
    // Past the window (and the embedded store's one-second sweep interval), the next failure's
    // write removes every expired count.
    await new Promise((r) => setTimeout(r, 2100));
    expectError(await signIn(platform, "random-last", "x"), 401, "UNAUTHORIZED");
    expect(await failureDocs(platform)).toHaveLength(1);
    // A window that ended lets the name sign in again.
    expect((await signIn(platform, "admin", ADMIN_PASSWORD)).status).toBe(200);
  } finally {
    await platform.stop();
  }
});
