"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.ensureBootstrapAdmin = ensureBootstrapAdmin;
/**
 * First start (docs/platform-rules.md#sign-in-and-roles): group `admins` with role admin, and account `admin` in it.
 * The password comes from ADMIN_PASSWORD; when unset one is generated, printed once and written to
 * <DATA_DIR>/admin-password (mode 0600). Replicas starting together race on unique indexes, so
 * exactly one creates each document. An existing admin's password is never changed here.
 */
const node_crypto_1 = require("node:crypto");
const node_fs_1 = __importDefault(require("node:fs"));
const node_path_1 = __importDefault(require("node:path"));
const types_1 = require("../../shared/store/types");
const text_1 = require("../../shared/text");
const passwords_1 = require("./passwords");
async function insertIfAbsent(store, collection, doc) {
    try {
        await store.collection(collection).insertOne(doc);
        return true;
    }
    catch (err) {
        if (err instanceof types_1.DuplicateKeyError)
            return false;
        throw err;
    }
}
async function ensureBootstrapAdmin(store, config, logger) {
    const now = (0, text_1.nowIso)();
    await insertIfAbsent(store, "groups", {
        _id: (0, node_crypto_1.randomUUID)(),
        provenance: "local",
        name: "admins",
        description: "Platform administrators",
        memberOf: [],
        assignedRoles: ["admin"],
        inactive: false,
        _meta: { created: now, updated: now },
    });
    if (await store.collection("accounts").findOne({ username: "admin" }))
        return;
    const admins = await store.collection("groups").findOne({ name: "admins" });
    const password = config.adminPassword ?? (0, node_crypto_1.randomBytes)(18).toString("base64url");
    const account = {
        provenance: "local",
        username: "admin",
        firstname: "Administrator",
        memberOf: [{ groupId: admins._id, aaaManaged: true }],
        lastLogin: null,
        inactive: false,
        _meta: { created: now, updated: now },
    };
    let created;
    try {
        created = await store.collection("accounts").insertOne(account);
    }
    catch (err) {
        if (err instanceof types_1.DuplicateKeyError)
            return; // another replica won the race
        throw err;
    }
    await store
        .collection("account_credentials")
        .insertOne({ _id: created._id, hash: await (0, passwords_1.hashPassword)(password), updated: now });
    if (config.adminPassword) {
        logger.info("Created account 'admin' with the password from ADMIN_PASSWORD");
        return;
    }
    node_fs_1.default.mkdirSync(config.dataDir, { recursive: true });
    const file = node_path_1.default.join(config.dataDir, "admin-password");
    node_fs_1.default.writeFileSync(file, password + "\n", { mode: 0o600 });
    // Printed once, on purpose: the operator has no other way to learn a generated password.
    process.stdout.write(`\n  Created account 'admin' with generated password: ${password}\n  (also written to ${file})\n\n`);
}
//# sourceMappingURL=bootstrap.js.map