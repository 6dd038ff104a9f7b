/**
 * First start (docs/platform-rules.md#sign-in-and-roles): group `admins` with role admin, and account `admin` in it.
 * The password comes from ADMIN_PASSWORD; when unset one is generated, printed once and written to
 * <DATA_DIR>/admin-password (mode 0600). Replicas starting together race on unique indexes, so
 * exactly one creates each document. An existing admin's password is never changed here.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { PlatformConfig } from "../../shared/config";
import { DuplicateKeyError } from "../../shared/store/types";
import { nowIso } from "../../shared/text";
import type { AccountsService } from "./accounts.service";
import { hashPassword } from "./passwords";

/** Runs the insert; another replica that inserted the same unique key first is no failure. */
async function unlessTaken(insert: () => Promise<unknown>): Promise<void> {
  try {
    await insert();
  } catch (err) {
    if (!(err instanceof DuplicateKeyError)) throw err;
  }
}

export async function ensureBootstrapAdmin(service: AccountsService, config: PlatformConfig): Promise<void> {
  const { accounts, groups, credentials, logger } = service;
  const now = nowIso();
  await unlessTaken(() =>
    groups.insert({
      provenance: "local",
      name: "admins",
      description: "Platform administrators",
      memberOf: [],
      assignedRoles: ["admin"],
      inactive: false,
      _meta: { created: now, updated: now },
    }),
  );
  if (await accounts.byUsername("admin")) return;

  const admins = await groups.byName("admins");
  const password = config.adminPassword ?? randomBytes(18).toString("base64url");
  let account;
  try {
    account = await accounts.insert({
      provenance: "local",
      username: "admin",
      firstname: "Administrator",
      memberOf: [{ groupId: admins!._id, aaaManaged: true }],
      lastLogin: null,
      inactive: false,
      _meta: { created: now, updated: now },
    });
  } catch (err) {
    if (err instanceof DuplicateKeyError) return; // another replica won the race
    throw err;
  }
  await credentials.insert(account._id, await hashPassword(password), now);
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
