/** Secrets at rest: AES-256-GCM round trip, tamper detection, key loading and generation. */
import fs from "node:fs";
import path from "node:path";
import { decrypt, encrypt, isEncrypted, loadKey, parseKey } from "../../shared/secrets";
import { tempDir } from "../support/platform";

test("encrypts to the stored form, and decrypts back; the same text never encrypts the same way twice", () => {
  const key = parseKey("ab".repeat(32));
  const a = encrypt(key, "s3cret-token");
  expect(a).toMatch(/^enc:v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
  expect(a).not.toContain("s3cret");
  expect(encrypt(key, "s3cret-token")).not.toBe(a);
  expect(isEncrypted(a)).toBe(true);
  expect(decrypt(key, a)).toBe("s3cret-token");
});

test("a tampered value or another key is refused", () => {
  const key = parseKey("ab".repeat(32));
  const stored = encrypt(key, "value");
  const parts = stored.split(":");
  parts[4] = Buffer.from("other").toString("base64");
  expect(() => decrypt(key, parts.join(":"))).toThrow();
  expect(() => decrypt(parseKey("cd".repeat(32)), stored)).toThrow();
});

test("ENCRYPTION_KEY accepts hex or base64 of 32 bytes, nothing else", () => {
  expect(parseKey("00".repeat(32))).toHaveLength(32);
  expect(parseKey(Buffer.alloc(32, 7).toString("base64"))).toEqual(Buffer.alloc(32, 7));
  expect(() => parseKey("too-short")).toThrow(/32 bytes/);
});

test("without ENCRYPTION_KEY a key is generated once into DATA_DIR (0600) and reused", () => {
  const dataDir = tempDir();
  const first = loadKey({ dataDir });
  const file = path.join(dataDir, "encryption-key");
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  expect(loadKey({ dataDir })).toEqual(first);
  expect(loadKey({ dataDir, encryptionKey: "11".repeat(32) })).toEqual(Buffer.alloc(32, 0x11));
});
