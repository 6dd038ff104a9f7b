/**
 * accounts: accounts, groups, passwords and sessions (spec operation 4, docs/platform-rules.md#sign-in-and-roles).
 *
 * Its collections, each with its repository (docs/architecture.md#repositories): `accounts`
 * (never holds a password), `account_credentials` (the scrypt hashes, read only here), `groups`,
 * `service_accounts`, `roles` (custom roles), `sessions` keyed by the session id of the token
 * (shared/session-id.ts), so the store never holds a usable token, and `login_failures` (failed
 * sign-ins under a keyed hash of the username). Handlers: ./sessions.ts (sign-in and out),
 * ./accounts.ts, ./groups.ts, ./lifecycle.ts, ./group-lifecycle.ts, ./service-accounts.ts,
 * ./custom-roles.ts.
 */
import { accounts as contract } from "../../shared/contracts/accounts";
import { configOf } from "../../shared/runtime";
import { loadKey } from "../../shared/secrets";
import { contractActions, storeMixin, typedService, type PlatformService } from "../../shared/service";
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
import { createGroup, groupsPage, listGroups, pageGroups } from "./groups";
import { createRole, deleteRole, getRole, listMethods, listRoles, updateRole } from "./custom-roles";
import {
  createServiceAccount,
  deleteServiceAccount,
  listServiceAccounts,
  rotateServiceAccountSecret,
  token,
} from "./service-accounts";
import { authenticate, authenticateBasic, login, logout, myTtl, refreshCaller, whoami } from "./sessions";
import { AccountsRepository } from "./accounts.repository";
import { CredentialsRepository } from "./credentials.repository";
import { GroupsRepository } from "./groups.repository";
import { LoginFailuresRepository } from "./login-failures.repository";
import { PasswordWork } from "./password-work";
import { RolesRepository } from "./roles.repository";
import { ServiceAccountsRepository } from "./service-accounts.repository";
import { SessionsRepository } from "./sessions.repository";

/** `this` of the accounts service: its repositories, the failure counts' key and the session sweep timer. */
export type AccountsService = PlatformService<{
  sweepTimer?: NodeJS.Timeout;
  secretKey: Buffer;
  /** The bounded line every scrypt derivation of a request goes through (./password-work.ts). */
  passwordWork: PasswordWork;
  accounts: AccountsRepository;
  credentials: CredentialsRepository;
  groups: GroupsRepository;
  serviceAccounts: ServiceAccountsRepository;
  roles: RolesRepository;
  sessions: SessionsRepository;
  loginFailures: LoginFailuresRepository;
}>;

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
    pageGroups,
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
    const config = configOf(this.broker);
    this.secretKey = loadKey(config);
    this.passwordWork = new PasswordWork({ ...config.passwordWork, maxWaitMs: config.requestTimeout });
  },

  async started() {
    this.accounts = new AccountsRepository(this.store);
    this.credentials = new CredentialsRepository(this.store);
    this.groups = new GroupsRepository(this.store);
    this.serviceAccounts = new ServiceAccountsRepository(this.store);
    this.roles = new RolesRepository(this.store);
    this.sessions = new SessionsRepository(this.store);
    this.loginFailures = new LoginFailuresRepository(this.store);
    for (const repository of [
      this.accounts,
      this.credentials,
      this.groups,
      this.serviceAccounts,
      this.roles,
      this.sessions,
      this.loginFailures,
    ])
      await repository.ensureIndexes();
    await ensureBootstrapAdmin(this, configOf(this.broker));
    // Expired sessions are refused on read already; this only keeps the collection small.
    this.sweepTimer = setInterval(() => {
      this.sessions
        .sweepExpired(Date.now())
        .catch((err: Error) => this.logger.warn(`session sweep failed: ${err.message}`));
    }, 60_000);
    this.sweepTimer.unref();
  },

  stopped() {
    clearInterval(this.sweepTimer);
  },
});
