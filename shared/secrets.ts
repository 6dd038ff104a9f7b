/**
 * Secrets at rest (docs/platform-rules.md#secrets): AES-256-GCM under ENCRYPTION_KEY, or under a key
 * generated once into <DATA_DIR>/encryption-key (mode 0600). The stored form is text, so it can sit
 * in any document and be answered in place of the plaintext:  enc:v1:<iv>:<tag>:<ciphertext> (base64)
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { setOwn } from "./objects";
import type { PlatformConfig } from "./config";

const PREFIX = "enc:v1:";

export function parseKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, "hex")
    : Buffer.from(trimmed, "base64");
  if (key.length !== 32) throw new Error("ENCRYPTION_KEY must be 32 bytes: 64 hex characters or base64");
  return key;
}

/** The platform key: ENCRYPTION_KEY, else the one in DATA_DIR, else a new one written there. */
export function loadKey(config: Pick<PlatformConfig, "encryptionKey" | "dataDir">): Buffer {
  if (config.encryptionKey) return parseKey(config.encryptionKey);
  const file = path.join(config.dataDir, "encryption-key");
  fs.mkdirSync(config.dataDir, { recursive: true });
  try {
    // "wx": of two processes starting together, exactly one writes the key; the other reads it.
    fs.writeFileSync(file, randomBytes(32).toString("hex") + "\n", { mode: 0o600, flag: "wx" });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  return parseKey(fs.readFileSync(file, "utf8"));
}

export function isEncrypted(value: unknown): value is string {
  return typeof value === "string" && value.startsWith(PREFIX);
}

export function encrypt(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return PREFIX + [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString("base64")).join(":");
}

export function decrypt(key: Buffer, stored: string): string {
  if (!isEncrypted(stored)) throw new Error("not an encrypted value");
  const [iv, tag, ciphertext] = stored
    .slice(PREFIX.length)
    .split(":")
    .map((p) => Buffer.from(p, "base64"));
  const decipher = createDecipheriv("aes-256-gcm", key, iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString("utf8");
}

/**
 * The one rule for which keys hold credentials (adapter settings, logged objects): the key,
 * lowercased with everything but letters and digits dropped, ends with one of these suffixes
 * (services/adapters/credentials.ts lists examples).
 */
export const CREDENTIAL_SUFFIXES = [
  "password",
  "passwd",
  "pwd",
  "pass",
  "passphrase",
  "secretkey",
  "accesskey",
  "sshkey",
  "privkey",
  "secret",
  "token",
  "apikey",
  "privatekey",
  "community",
  "credential",
  "credentials",
] as const;

export function isCredentialKey(key: string): boolean {
  const normalized = key.toLowerCase().replace(/[^a-z0-9]/g, "");
  return CREDENTIAL_SUFFIXES.some((suffix) => normalized.endsWith(suffix));
}

/** A copy of `value` with every credential member's value replaced by "[redacted]", at any depth (bounded). */
export function redactCredentials(value: unknown, depth = 0): unknown {
  if (depth > 20) return "[deep]";
  if (Array.isArray(value)) return value.map((v) => redactCredentials(v, depth + 1));
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    setOwn(out, k, isCredentialKey(k) ? "[redacted]" : redactCredentials(v, depth + 1));
  return out;
}
