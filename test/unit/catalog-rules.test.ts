/**
 * The rules the catalog services are built on, directly: JSON pointers with wildcards (the
 * encryption decorators), the adapter credential rule and the profile secrets. preserveFormData's
 * container restoration has its own suite (preserve-form-data.test.ts).
 */
import { randomBytes } from "node:crypto";
import { decrypt, isEncrypted } from "../../shared/secrets";
import {
  formatPointer,
  mapPointers,
  parsePointer,
  resolvePointer,
  sealPointers,
} from "../../shared/pointers";
import { holdsCredentials, isCredentialKey, sealCredentials } from "../../services/adapters/credentials";
import { profileProps, PROFILE_ENCRYPTED_POINTERS } from "../../shared/contracts/profiles";

const key = randomBytes(32);

describe("JSON pointers", () => {
  test("parse and format follow RFC 6901 escaping", () => {
    expect(parsePointer("")).toEqual([]);
    expect(parsePointer("/a~1b/c~0d/0")).toEqual(["a/b", "c~d", "0"]);
    expect(formatPointer(["a/b", "c~d", "0"])).toBe("/a~1b/c~0d/0");
    expect(() => parsePointer("a/b")).toThrow("must start with '/'");
  });

  test("`*` matches every array index and every object key; absent places match nothing", () => {
    const doc = {
      alarms: [{ community: "a" }, { ip: "x" }, { community: "c" }],
      repos: {
        one: { credentials: { token: "t1" } },
        two: { credentials: {} },
        three: { credentials: { token: "t3" } },
      },
    };
    expect(resolvePointer(doc, "/alarms/*/community")).toEqual([
      { pointer: "/alarms/0/community", value: "a" },
      { pointer: "/alarms/2/community", value: "c" },
    ]);
    expect(resolvePointer(doc, "/repos/*/credentials/token").map((m) => m.pointer)).toEqual([
      "/repos/one/credentials/token",
      "/repos/three/credentials/token",
    ]);
    expect(resolvePointer(doc, "/missing/*/x")).toEqual([]);
    expect(resolvePointer({ a: "scalar" }, "/a/b")).toEqual([]);
  });

  test("mapPointers copies: the input is never changed, absent places are not created", () => {
    const doc = { a: { secret: "s" }, list: [{ secret: "x" }] };
    const out = mapPointers(doc, ["/a/secret", "/list/*/secret", "/b/secret"], (v) => `<${v}>`);
    expect(out).toEqual({ a: { secret: "<s>" }, list: [{ secret: "<x>" }] });
    expect(doc).toEqual({ a: { secret: "s" }, list: [{ secret: "x" }] });
  });

  test("sealPointers encrypts strings and numbers, leaves null, re-encrypts an already-sealed value", () => {
    const already = sealPointers(key, { p: "inner" }, ["/p"]).p;
    const out = sealPointers(key, { p: "plain", n: 1234, z: null, again: already }, [
      "/p",
      "/n",
      "/z",
      "/again",
    ]);
    expect(decrypt(key, out.p)).toBe("plain");
    expect(decrypt(key, out.n as unknown as string)).toBe("1234");
    expect(out.z).toBeNull();
    expect(decrypt(key, out.again)).toBe(already);
  });
});

describe("adapter credentials: one rule", () => {
  test.each([
    "password",
    "adminPassword",
    "db_password",
    "passwd",
    "token",
    "authToken",
    "access-token",
    "secret",
    "client_secret",
    "apiKey",
    "api_key",
    "privateKey",
    "ssh_private_key",
    "passphrase",
    "community",
    "snmpCommunity",
    "credentials",
    // Issue 8, defect 10: names users expect hidden.
    "pwd",
    "pass",
    "enable_pass",
    "secretKey",
    "aws_secret_key",
    "accessKey",
    "sshKey",
  ])("%s is a credential", (k) => expect(isCredentialKey(k)).toBe(true));

  test.each(["username", "tokenUrl", "passwordPolicy", "host", "keyFile", "secretName", "auth_method"])(
    "%s is not a credential",
    (k) => expect(isCredentialKey(k)).toBe(false),
  );

  test("credentials are sealed at any depth; a credential block is sealed as a whole", () => {
    const settings = {
      host: "h",
      password: "p1",
      nested: [{ deeper: { token: "t1", note: "n" } }],
      credentials: { user: "u", pin: 1234, enabled: true },
    };
    const out = sealCredentials(key, settings) as any;
    expect(out.host).toBe("h");
    expect(decrypt(key, out.password)).toBe("p1");
    expect(decrypt(key, out.nested[0].deeper.token)).toBe("t1");
    expect(out.nested[0].deeper.note).toBe("n");
    expect(decrypt(key, out.credentials.user)).toBe("u");
    expect(decrypt(key, out.credentials.pin)).toBe("1234");
    expect(out.credentials.enabled).toBe(true);
    expect(settings.password).toBe("p1"); // the input is untouched
    expect(holdsCredentials(settings)).toBe(true);
    expect(holdsCredentials({ host: "h", useToken: false })).toBe(false);
    expect(holdsCredentials(undefined)).toBe(false);
    expect(JSON.stringify(out)).not.toMatch(/"p1"|"t1"|"u"|1234/);
    expect(isEncrypted(out.password)).toBe(true);
  });
});

describe("profile secrets: the schema's own marking", () => {
  /** JSON pointers of every field the profile schema marks `secret` (`*` for record and array members). */
  function markedSecret(rule: any, pointer = ""): string[] {
    if (!rule || typeof rule !== "object") return [];
    if (rule.secret) return [pointer];
    if (rule.props) return Object.entries(rule.props).flatMap(([k, r]) => markedSecret(r, `${pointer}/${k}`));
    if (rule.type === "record") return markedSecret(rule.value, `${pointer}/*`);
    if (rule.type === "array") return markedSecret(rule.items, `${pointer}/*`);
    return [];
  }

  test("every field marked secret is stored encrypted, the TLS key and its passphrase among them", () => {
    const marked = markedSecret({ props: profileProps });
    expect(marked).toEqual(
      expect.arrayContaining(["/expressProps/express_https/key", "/expressProps/express_https/passphrase"]),
    );
    expect([...PROFILE_ENCRYPTED_POINTERS].sort()).toEqual(expect.arrayContaining(marked.sort()));
  });
});
