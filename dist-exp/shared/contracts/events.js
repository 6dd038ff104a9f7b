"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ADAPTER_DELETED_EVENT = exports.ENGINE_EVENTS = exports.PROFILE_ACTIVATED_EVENT = exports.SESSIONS_REVOKED_EVENT = void 0;
/** accounts -> gateways: these sessions ended (logout, password change); forget them now. */
exports.SESSIONS_REVOKED_EVENT = "accounts.sessionsRevoked";
/** profiles -> gateways, accounts: another profile is active. */
exports.PROFILE_ACTIVATED_EVENT = "profiles.activated";
/** engine -> gateways (GET /events): a job or one of its tasks changed. */
/**
 * engine -> gateways: one broadcast per job write, with everything that write changed. One event
 * per write, not one per task: broadcasting (and, over NATS, a packet per listening node) cost the
 * engine more than the write's own store update (docs/performance.md).
 */
exports.ENGINE_EVENTS = {
    changes: "engine.jobChanges",
};
/** adapters -> devices: an adapter instance was deleted; its inventory devices go with it. */
exports.ADAPTER_DELETED_EVENT = "adapters.deleted";
//# sourceMappingURL=events.js.map