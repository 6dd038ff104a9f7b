"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * accounts: accounts, groups, passwords and sessions (spec operation 4, docs/platform-rules.md#sign-in-and-roles).
 *
 * Collections: `accounts` (never holds a password), `account_credentials` (the scrypt hashes, read
 * only here), `groups`, and `sessions` keyed by the session id of the token (shared/session-id.ts),
 * so the store never holds a usable token. Every replica reads sessions from the store: any gateway
 * accepts any token. Handlers: ./sessions.ts (sign-in and out), ./accounts.ts, ./groups.ts.
 */
const accounts_1 = require("../../shared/contracts/accounts");
const runtime_1 = require("../../shared/runtime");
const service_1 = require("../../shared/service");
const accounts_2 = require("./accounts");
const bootstrap_1 = require("./bootstrap");
const groups_1 = require("./groups");
const service_accounts_1 = require("./service-accounts");
const sessions_1 = require("./sessions");
async function ensureIndexes(store) {
    await store.collection("accounts").createIndex({ keys: { username: 1 }, unique: true });
    await store.collection("groups").createIndex({ keys: { name: 1 }, unique: true });
    await store.collection(sessions_1.SERVICE_ACCOUNTS).createIndex({ keys: { name: 1 }, unique: true });
    await store.collection("sessions").createIndex({ keys: { accountId: 1 } });
    await store.collection("sessions").createIndex({ keys: { expiresAt: 1 } });
}
exports.default = (0, service_1.typedService)({
    name: accounts_1.accounts.name,
    mixins: [service_1.storeMixin],
    actions: (0, service_1.contractActions)(accounts_1.accounts, {
        login: sessions_1.login,
        logout: sessions_1.logout,
        whoami: sessions_1.whoami,
        myTtl: sessions_1.myTtl,
        authenticate: sessions_1.authenticate,
        authenticateBasic: sessions_1.authenticateBasic,
        refreshCaller: sessions_1.refreshCaller,
        list: accounts_2.list,
        create: accounts_2.create,
        setPassword: accounts_2.setPassword,
        changePassword: accounts_2.changePassword,
        createGroup: groups_1.createGroup,
        listGroups: groups_1.listGroups,
        groupsPage: groups_1.groupsPage,
        createServiceAccount: service_accounts_1.createServiceAccount,
        listServiceAccounts: service_accounts_1.listServiceAccounts,
        deleteServiceAccount: service_accounts_1.deleteServiceAccount,
        rotateServiceAccountSecret: service_accounts_1.rotateServiceAccountSecret,
        token: service_accounts_1.token,
    }),
    async started() {
        await ensureIndexes(this.store);
        await (0, bootstrap_1.ensureBootstrapAdmin)(this.store, (0, runtime_1.configOf)(this.broker), this.logger);
        // Expired sessions are refused on read already; this only keeps the collection small.
        this.sweepTimer = setInterval(() => {
            this.store
                .collection("sessions")
                .deleteMany({ expiresAt: { $lt: Date.now() } })
                .catch((err) => this.logger.warn(`session sweep failed: ${err.message}`));
        }, 60_000);
        this.sweepTimer.unref();
    },
    stopped() {
        clearInterval(this.sweepTimer);
    },
});
//# sourceMappingURL=accounts.service.js.map