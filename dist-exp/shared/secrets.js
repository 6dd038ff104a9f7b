"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.CREDENTIAL_SUFFIXES = void 0;
exports.parseKey = parseKey;
exports.loadKey = loadKey;
exports.isEncrypted = isEncrypted;
exports.encrypt = encrypt;
exports.decrypt = decrypt;
exports.isCredentialKey = isCredentialKey;
exports.redactCredentials = redactCredentials;
/**
 * Secrets at rest (docs/platform-rules.md#secrets): AES-256-GCM under ENCRYPTION_KEY, or under a key
 * generated once into <DATA_DIR>/encryption-key (mode 0600). The stored form is text, so it can sit
 * in any document and be answered in place of the plaintext:  enc:v1:<iv>:<tag>:<ciphertext> (base64)
 */
const node_crypto_1 = require("node:crypto");
const node_fs_1 = __importDefault(require("node:fs"));
const node_path_1 = __importDefault(require("node:path"));
const objects_1 = require("./objects");
const PREFIX = "enc:v1:";
function parseKey(text) {
    const trimmed = text.trim();
    const key = /^[0-9a-fA-F]{64}$/.test(trimmed)
        ? Buffer.from(trimmed, "hex")
        : Buffer.from(trimmed, "base64");
    if (key.length !== 32)
        throw new Error("ENCRYPTION_KEY must be 32 bytes: 64 hex characters or base64");
    return key;
}
/** The platform key: ENCRYPTION_KEY, else the one in DATA_DIR, else a new one written there. */
function loadKey(config) {
    if (config.encryptionKey)
        return parseKey(config.encryptionKey);
    const file = node_path_1.default.join(config.dataDir, "encryption-key");
    node_fs_1.default.mkdirSync(config.dataDir, { recursive: true });
    try {
        // "wx": of two processes starting together, exactly one writes the key; the other reads it.
        node_fs_1.default.writeFileSync(file, (0, node_crypto_1.randomBytes)(32).toString("hex") + "\n", { mode: 0o600, flag: "wx" });
    }
    catch (err) {
        if (err.code !== "EEXIST")
            throw err;
    }
    return parseKey(node_fs_1.default.readFileSync(file, "utf8"));
}
function isEncrypted(value) {
    return typeof value === "string" && value.startsWith(PREFIX);
}
function encrypt(key, plaintext) {
    const iv = (0, node_crypto_1.randomBytes)(12);
    const cipher = (0, node_crypto_1.createCipheriv)("aes-256-gcm", key, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return PREFIX + [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString("base64")).join(":");
}
function decrypt(key, stored) {
    if (!isEncrypted(stored))
        throw new Error("not an encrypted value");
    const [iv, tag, ciphertext] = stored
        .slice(PREFIX.length)
        .split(":")
        .map((p) => Buffer.from(p, "base64"));
    const decipher = (0, node_crypto_1.createDecipheriv)("aes-256-gcm", key, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString("utf8");
}
/**
 * The one rule for which keys hold credentials (adapter settings, logged objects): the key,
 * lowercased with everything but letters and digits dropped, ends with one of these suffixes
 * (services/adapters/credentials.ts lists examples).
 */
exports.CREDENTIAL_SUFFIXES = [
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
];
function isCredentialKey(key) {
    const normalized = key.toLowerCase().replace(/[^a-z0-9]/g, "");
    return exports.CREDENTIAL_SUFFIXES.some((suffix) => normalized.endsWith(suffix));
}
/** A copy of `value` with every credential member's value replaced by "[redacted]", at any depth (bounded). */
function redactCredentials(value, depth = 0) {
    if (depth > 20)
        return "[deep]";
    if (Array.isArray(value))
        return value.map((v) => redactCredentials(v, depth + 1));
    if (typeof value !== "object" || value === null)
        return value;
    const out = {};
    for (const [k, v] of Object.entries(value))
        (0, objects_1.setOwn)(out, k, isCredentialKey(k) ? "[redacted]" : redactCredentials(v, depth + 1));
    return out;
}
//# sourceMappingURL=secrets.js.map