"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.hashPassword = hashPassword;
exports.verifyPassword = verifyPassword;
exports.decoyHash = decoyHash;
/**
 * Password hashing with scrypt (docs/platform-rules.md#sign-in-and-roles). The stored form names its parameters, so
 * they can be raised later without breaking existing hashes:  scrypt$N$r$p$<salt b64>$<hash b64>
 */
const node_crypto_1 = require("node:crypto");
const N = 1 << 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 64;
function derive(password, salt, n, r, p) {
    return new Promise((resolve, reject) => 
    // scrypt runs on libuv's thread pool: a login never blocks the event loop.
    (0, node_crypto_1.scrypt)(password, salt, KEY_LENGTH, { N: n, r, p, maxmem: 256 * n * r }, (err, key) => err ? reject(err) : resolve(key)));
}
async function hashPassword(password) {
    const salt = (0, node_crypto_1.randomBytes)(16);
    const key = await derive(password, salt, N, R, P);
    return ["scrypt", N, R, P, salt.toString("base64"), key.toString("base64")].join("$");
}
async function verifyPassword(password, stored) {
    const [scheme, n, r, p, salt, hash] = stored.split("$");
    if (scheme !== "scrypt" || !hash)
        return false;
    const expected = Buffer.from(hash, "base64");
    const key = await derive(password, Buffer.from(salt, "base64"), Number(n), Number(r), Number(p));
    return key.length === expected.length && (0, node_crypto_1.timingSafeEqual)(key, expected);
}
/** A hash of a random password, verified against when the username is unknown, so timing does not tell. */
let decoy;
function decoyHash() {
    decoy ??= hashPassword((0, node_crypto_1.randomBytes)(16).toString("hex"));
    return decoy;
}
//# sourceMappingURL=passwords.js.map