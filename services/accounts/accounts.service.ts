/**
 * accounts: accounts, groups, passwords and sessions (spec operation 4, docs/platform-rules.md#sign-in-and-roles).
 *
 * Collections: `accounts` (never holds a password), `account_credentials` (the scrypt hashes, read
 * only here), `groups`, `roles` (custom roles, ./custom-roles.ts), and `sessions` keyed by the session id of the token (shared/session-id.ts),
 * so the store never holds a usable token. Every replica reads sessions from the store: any gateway
 * accepts any token. `login_failures` counts failed sign-ins under a keyed hash of the username
 * (./sessions.ts). Handlers: ./sessions.ts (sign-in and out), ./accounts.ts, ./groups.ts.
 */
import { accounts as contract } from "../../shared/contracts/accounts";
import { configOf } from "../../shared/runtime";
import { loadKey } from "../../shared/secrets";
import { contractActions, storeMixin, typedService, type PlatformService } from "../../shared/service";
import type { Store } from "../../shared/store/types";
import { changePassword, create, list, setPassword } from "./accounts";
import { ensureBootstrapAdmin } from "./bootstrap";
import { deleteAccount, forceLogout, getAccount, updateAccount } from "./lifecycle";
import {
  addGroupMembers,
  createAuthorizationGroup,
  deleteGroup,
  getGroup,
  removeGroupMember,
  updateGroup,
} from "./group-lifecycle";
import { createGroup, groupsPage, listGroups } from "./groups";
import {
  createRole,
  deleteRole,
  getRole,
  listMethods,
  listRoles,
  ROLES_COLLECTION,
  updateRole,
} from "./custom-roles";
import {
  createServiceAccount,
  deleteServiceAccount,
  listServiceAccounts,
  rotateServiceAccountSecret,
  token,
} from "./service-accounts";
import {
  authenticate,
  authenticateBasic,
  login,
  logout,
  myTtl,
  refreshCaller,
  ensureFailureExpiry,
  SERVICE_ACCOUNTS,
  whoami,
} from "./sessions";

/** `this` of the accounts service: a platform service with its session sweep timer. */
export type AccountsService = PlatformService<{ sweepTimer?: NodeJS.Timeout; secretKey: Buffer }>;

async function ensureIndexes(store: Store): Promise<void> {
  await store.collection("accounts").createIndex({ keys: { username: 1 }, unique: true });
  await store.collection("groups").createIndex({ keys: { name: 1 }, unique: true });
  await store.collection(SERVICE_ACCOUNTS).createIndex({ keys: { name: 1 }, unique: true });
  await store.collection(ROLES_COLLECTION).createIndex({ keys: { name: 1 }, unique: true });
  await store.collection("sessions").createIndex({ keys: { accountId: 1 } });
  await store.collection("sessions").createIndex({ keys: { expiresAt: 1 } });
  // Operation 4's list: each field it may filter or sort on (ACCOUNT_QUERY_FIELDS, ..._SORT_FIELDS),
  // and a group's members (the list by groupId, a group's delete).
  await store.collection("accounts").createIndex({ keys: { firstname: 1, _id: 1 } });
  await store.collection("accounts").createIndex({ keys: { provenance: 1, _id: 1 } });
  await store.collection("accounts").createIndex({ keys: { "memberOf.groupId": 1 } });
  await store.collection("accounts").createIndex({ keys: { assignedRoles: 1 } }); // a custom role's delete
}

export default typedService<AccountsService>({
  name: contract.name,
  mixins: [storeMixin],

  actions: contractActions<typeof contract.name, typeof contract.actions, AccountsService>(contract, {
    login,
    logout,
    whoami,
    myTtl,
    authenticate,
    authenticateBasic,
    refreshCaller,
    list,
    create,
    setPassword,
    changePassword,
    createGroup,
    listGroups,
    groupsPage,
    createServiceAccount,
    listServiceAccounts,
    deleteServiceAccount,
    rotateServiceAccountSecret,
    token,
    listRoles,
    getRole,
    createRole,
    updateRole,
    deleteRole,
    listMethods,
    getAccount,
    updateAccount,
    deleteAccount,
    forceLogout,
    getGroup,
    createAuthorizationGroup,
    updateGroup,
    deleteGroup,
    addGroupMembers,
    removeGroupMember,
  }),

  created() {
    // The key of the failure counts' ids (./sessions.ts): every replica shares it.
    this.secretKey = loadKey(configOf(this.broker));
  },

  async started() {
    await ensureIndexes(this.store);
    await ensureFailureExpiry(this);
    await ensureBootstrapAdmin(this.store, configOf(this.broker), this.logger);
    // Expired sessions are refused on read already; this only keeps the collection small.
    this.sweepTimer = setInterval(() => {
      this.store
        .collection("sessions")
        .deleteMany({ expiresAt: { $lt: Date.now() } })
        .catch((err: Error) => this.logger.warn(`session sweep failed: ${err.message}`));
    }, 60_000);
    this.sweepTimer.unref();
  },

  stopped() {
    clearInterval(this.sweepTimer);
  },
});
