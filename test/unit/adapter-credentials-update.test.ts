/**
 * An adapter update's credentials (services/adapters/credentials.ts `sealUpdate`), at every depth
 * and in request headers: left out of an object the update sends, kept; resent exactly as stored,
 * kept; `null`, removed; anything else sealed as new plaintext, even sealed text from elsewhere.
 */
import { sealCredentials, sealUpdate } from "../../services/adapters/credentials";
import { decrypt, isEncrypted, parseKey } from "../../shared/secrets";

const key = parseKey("ab".repeat(32));
const stored = sealCredentials(key, {
  host: "nso.lab",
  password: "top-pw",
  auth: { username: "u", client_secret: "cs-1" },
  headers: { "X-Api-Key": "hk-1", Accept: "application/json" },
  credentials: { user: "a", pass: "b" },
  targets: [{ url: "https://a", token: "t-1" }],
}) as any;

test("left out: kept, at every depth and in headers", () => {
  const next = sealUpdate(
    key,
    {
      host: "nso2.lab",
      auth: { username: "u2" },
      headers: { Accept: "text/plain" },
      targets: [{ url: "https://b" }],
    },
    stored,
  ) as any;
  expect(next.host).toBe("nso2.lab");
  expect(next.password).toBe(stored.password);
  expect(next.auth).toEqual({ username: "u2", client_secret: stored.auth.client_secret });
  expect(next.headers).toEqual({ Accept: "text/plain", "X-Api-Key": stored.headers["X-Api-Key"] });
  expect(next.credentials).toEqual(stored.credentials);
  expect(next.targets).toEqual([{ url: "https://b", token: stored.targets[0].token }]);
  // A block the update leaves out entirely goes, with what it held.
  expect(sealUpdate(key, { host: "x" }, stored)).not.toHaveProperty("auth");
});

test("resent as stored: kept as it is; a new value or a credentials block changed in part: sealed anew", () => {
  const next = sealUpdate(
    key,
    {
      password: stored.password,
      credentials: { ...stored.credentials, pass: "b2" },
      headers: { "X-Api-Key": "hk-2" },
    },
    stored,
  ) as any;
  expect(next.password).toBe(stored.password);
  expect(decrypt(key, next.credentials.pass)).toBe("b2");
  expect(isEncrypted(next.credentials.user)).toBe(true);
  expect(decrypt(key, next.credentials.user)).toBe(stored.credentials.user); // sealed text taken as plaintext
  expect(decrypt(key, next.headers["X-Api-Key"])).toBe("hk-2");
});

test("sealed text that is not this place's stored value is plaintext to us; null removes", () => {
  const next = sealUpdate(
    key,
    { password: stored.auth.client_secret, auth: { client_secret: null } },
    stored,
  ) as any;
  expect(decrypt(key, next.password)).toBe(stored.auth.client_secret);
  expect(next.auth).toEqual({});
});
