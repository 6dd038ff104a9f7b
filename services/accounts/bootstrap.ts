/**
 * First start (docs/platform-rules.md#sign-in-and-roles): group `admins` with role admin, and account `admin` in it.
 * The password comes from ADMIN_PASSWORD; when unset one is generated, printed once and written to
 * <DATA_DIR>/admin-password (mode 0600). Replicas starting together race on unique indexes, so
 * exactly one creates each document. An existing admin's password is never changed here.
 */
import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Service } from "moleculer";
import type { PlatformConfig } from "../../shared/config";
import { DuplicateKeyError, type Store } from "../../shared/store/types";
import { nowIso } from "../../shared/text";
import { hashPassword } from "./passwords";

async function insertIfAbsent(store: Store, collection: string, doc: Record<string, any>): Promise<boolean> {
  try {
    await store.collection(collection).insertOne(doc);
    return true;
  } catch (err) {
    if (err instanceof DuplicateKeyError) return false;
    throw err;
  }
}

export async function ensureBootstrapAdmin(
  store: Store,
  config: PlatformConfig,
  logger: Service["logger"],
): Promise<void> {
  const now = nowIso();
  await insertIfAbsent(store, "groups", {
    _id: randomUUID(),
    provenance: "local",
    name: "admins",
    description: "Platform administrators",
    memberOf: [],
    assignedRoles: ["admin"],
    inactive: false,
    _meta: { created: now, updated: now },
  });
  if (await store.collection("accounts").findOne({ username: "admin" })) return;

  const admins = await store.collection("groups").findOne({ name: "admins" });
  const password = config.adminPassword ?? randomBytes(18).toString("base64url");
  const account = {
    provenance: "local",
    username: "admin",
    firstname: "Administrator",
    memberOf: [{ groupId: admins!._id, aaaManaged: true }],
    lastLogin: null,
    inactive: false,
    _meta: { created: now, updated: now },
  };
  let created;
  try {
    created = await store.collection("accounts").insertOne(account);
  } catch (err) {
    if (err instanceof DuplicateKeyError) return; // another replica won the race
    throw err;
  }
  await store
    .collection("account_credentials")
    .insertOne({ _id: created._id, hash: await hashPassword(password), updated: now });
  if (config.adminPassword) {
    logger.info("Created account 'admin' with the password from ADMIN_PASSWORD");
    return;
  }
  fs.mkdirSync(config.dataDir, { recursive: true });
  const file = path.join(config.dataDir, "admin-password");
  fs.writeFileSync(file, password + "\n", { mode: 0o600 });
  // Printed once, on purpose: the operator has no other way to learn a generated password.
  process.stdout.write(
    `\n  Created account 'admin' with generated password: ${password}\n  (also written to ${file})\n\n`,
  );
}
