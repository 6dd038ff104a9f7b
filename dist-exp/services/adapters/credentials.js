"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.isCredentialKey = exports.CREDENTIAL_SUFFIXES = void 0;
exports.sealCredentials = sealCredentials;
exports.holdsCredentials = holdsCredentials;
/**
 * Which adapter settings are credentials (docs/platform-rules.md#secrets: "adapter
 * passwords"), so they are stored encrypted and never answered in plain text.
 *
 * A member of `properties.properties`, at any depth (inside nested objects and arrays too), is a
 * credential when its key, lowercased with everything but letters and digits dropped, ENDS WITH
 * one of CREDENTIAL_SUFFIXES: `password`, `adminPassword`, `db_password`, `token`, `authToken`,
 * `client_secret`, `apiKey`, `api-key`, `privateKey`, `ssh_private_key`, `passphrase`,
 * `community`, `snmpCommunity`, `credential`, `pwd`, `pass`, `secretKey`, `accessKey`,
 * `sshKey` ... but not `tokenUrl`, `passwordPolicy` or `username`. A credential's string or number value is sealed; when it is an object or array,
 * every string and number inside it is sealed (a `credentials: {...}` block is secret as a whole).
 */
const pointers_1 = require("../../shared/pointers");
const secrets_1 = require("../../shared/secrets");
Object.defineProperty(exports, "CREDENTIAL_SUFFIXES", { enumerable: true, get: function () { return secrets_1.CREDENTIAL_SUFFIXES; } });
Object.defineProperty(exports, "isCredentialKey", { enumerable: true, get: function () { return secrets_1.isCredentialKey; } });
/** A copy of `value` with every string and number inside it sealed. */
function sealAll(key, value) {
    if (Array.isArray(value))
        return value.map((v) => sealAll(key, v));
    if (typeof value === "object" && value !== null)
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sealAll(key, v)]));
    return (0, pointers_1.sealValue)(key, value);
}
/** A copy of an adapter's `properties.properties` with every credential sealed. */
function sealCredentials(key, settings) {
    if (Array.isArray(settings))
        return settings.map((v) => sealCredentials(key, v));
    if (typeof settings !== "object" || settings === null)
        return settings;
    return Object.fromEntries(Object.entries(settings).map(([k, v]) => [
        k,
        (0, secrets_1.isCredentialKey)(k) ? sealAll(key, v) : sealCredentials(key, v),
    ]));
}
/** Is there a string or number anywhere in `value`? (what sealAll seals) */
function holdsSealable(value) {
    if (typeof value === "string" || typeof value === "number")
        return true;
    if (typeof value !== "object" || value === null)
        return false;
    return Object.values(value).some(holdsSealable);
}
/** Does sealCredentials seal anything in these settings? (the adapter's `isEncrypted`) */
function holdsCredentials(settings) {
    if (typeof settings !== "object" || settings === null)
        return false;
    return Object.entries(settings).some(([k, v]) => (0, secrets_1.isCredentialKey)(k) ? holdsSealable(v) : holdsCredentials(v));
}
//# sourceMappingURL=credentials.js.map