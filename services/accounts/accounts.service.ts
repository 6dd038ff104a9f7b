/**
 * accounts: accounts, groups, passwords and sessions (spec operation 4, DECISIONS.md section 2).
 *
 * Collections: `accounts` (never holds a password), `account_credentials` (the scrypt hashes, read
 * only here), `groups`, and `sessions` keyed by the SHA-256 of the token, so the store never holds
 * a usable token. Every replica reads sessions from the store: any gateway accepts any token.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { ServiceSchema } from "moleculer";
import { accounts as contract } from "../../shared/contracts/accounts";
import { SESSIONS_REVOKED_EVENT } from "../../shared/contracts/events";
import type { Account, Caller, Group } from "../../shared/contracts/resources";
import { BadRequestError, ConflictError, NotFoundError, UnauthorizedError } from "../../shared/errors";
import { configOf } from "../../shared/runtime";
import {
  contractActions,
  isActionAvailable,
  storeMixin,
  type PlatformMeta,
  type ServiceThis,
} from "../../shared/service";
import { DuplicateKeyError, type Projection, type Store } from "../../shared/store/types";
import { nowIso } from "../../shared/text";
import { accountQuery } from "./query";
import { decoyHash, hashPassword, verifyPassword } from "./passwords";
import { resolveGroups } from "./roles";
import { ensureBootstrapAdmin } from "./bootstrap";

interface Session {
  _id: string;
  accountId: string;
  created: number;
  expiresAt: number;
}

/** Sliding expiry is written at most this often per session, not on every request. */
const SLIDE_GRANULARITY_MS = 60_000;

export const sessionIdOf = (token: string) => createHash("sha256").update(token).digest("hex");

const ACCOUNT_FIELDS = [
  "_id",
  "provenance",
  "username",
  "firstname",
  "memberOf",
  "lastLogin",
  "inactive",
  "_meta",
];
const accountProjection: Projection = Object.fromEntries(ACCOUNT_FIELDS.map((f) => [f, 1 as const]));

const AccountsService: ServiceSchema = {
  name: contract.name,
  mixins: [storeMixin],

  actions: contractActions(contract, {
    async login(ctx) {
      const { username, password } = ctx.params.user;
      const account = await this.store.collection("accounts").findOne({ username });
      const credentials = account
        ? await this.store.collection("account_credentials").findOne({ _id: account._id })
        : null;
      const valid = await verifyPassword(password, credentials?.hash ?? (await decoyHash()));
      if (!account || !credentials || !valid || account.inactive)
        throw new UnauthorizedError("Invalid username or password");

      const token = randomBytes(32).toString("base64url");
      const now = Date.now();
      const session: Session = {
        _id: sessionIdOf(token),
        accountId: account._id,
        created: now,
        expiresAt: now + this.ttlMs(),
      };
      const profile = await this.activeProfile(ctx);
      if (profile?.authenticationProps?.uniqueSession === true)
        await this.revokeSessions({ accountId: account._id });
      await this.store.collection("sessions").insertOne(session);
      await this.store
        .collection("accounts")
        .updateOne({ _id: account._id }, { $set: { lastLogin: nowIso() } });
      this.logger.info(`login: ${username}`);
      return { token, expiresAt: session.expiresAt };
    },

    async logout(ctx) {
      const sessionId = ctx.meta.caller?.sessionId;
      if (!sessionId) return { status: "OK", message: "No session to end (Basic authentication)" };
      await this.revokeSessions({ _id: sessionId });
      return { status: "OK", message: "Logged out" };
    },

    async whoami(ctx) {
      const caller = this.requireCaller(ctx.meta);
      const account = await this.store
        .collection("accounts")
        .findOne({ _id: caller.accountId }, { projection: accountProjection });
      if (!account) throw new UnauthorizedError("Account no longer exists");
      const groups = await this.store
        .collection("groups")
        .find({ _id: { $in: caller.groupIds } }, { projection: { _id: 1, name: 1 } });
      return {
        account: account as Account,
        roles: caller.roles,
        groups: groups as Pick<Group, "_id" | "name">[],
      };
    },

    async myTtl(ctx) {
      const caller = this.requireCaller(ctx.meta);
      if (!caller.sessionId) return 0;
      const session = await this.store.collection<Session>("sessions").findOne({ _id: caller.sessionId });
      return session ? Math.max(0, Math.floor((session.expiresAt - Date.now()) / 1000)) : 0;
    },

    async authenticate(ctx) {
      const sessionId = sessionIdOf(ctx.params.token);
      const now = Date.now();
      const sessions = this.store.collection<Session>("sessions");
      let session = await sessions.findOne({ _id: sessionId, expiresAt: { $gt: now } });
      if (!session) throw new UnauthorizedError("Invalid or expired token");
      const expiresAt = now + this.ttlMs();
      if (expiresAt - session.expiresAt >= SLIDE_GRANULARITY_MS) {
        session =
          (await sessions.findOneAndUpdate(
            { _id: sessionId, expiresAt: { $gt: now } },
            { $set: { expiresAt } },
          )) ?? null;
        if (!session) throw new UnauthorizedError("Invalid or expired token");
      }
      return { ...(await this.callerOf(session.accountId)), sessionId, expiresAt: session.expiresAt };
    },

    async authenticateBasic(ctx) {
      const account = await this.store.collection("accounts").findOne({ username: ctx.params.username });
      const credentials = account
        ? await this.store.collection("account_credentials").findOne({ _id: account._id })
        : null;
      const valid = await verifyPassword(ctx.params.password, credentials?.hash ?? (await decoyHash()));
      if (!account || !credentials || !valid || account.inactive)
        throw new UnauthorizedError("Invalid username or password");
      return this.callerOf(account._id);
    },

    async list(ctx) {
      const { filter, sort, skip, limit } = accountQuery(ctx.params.queryOptions);
      const collection = this.store.collection("accounts");
      const [results, total] = await Promise.all([
        collection.find(filter, { sort, skip, limit, projection: accountProjection }),
        collection.count(filter),
      ]);
      return { results: results as Account[], skip, limit, total };
    },

    async create(ctx) {
      const { username, password, firstname, groups = [], inactive = false } = ctx.params;
      const memberOf = (await this.groupsByNameOrId(groups, "groups")).map((g: Group) => ({
        groupId: g._id,
        aaaManaged: true as const,
      }));
      const hash = await hashPassword(password);
      const now = nowIso();
      const doc = {
        provenance: "local",
        username,
        firstname: firstname ?? "",
        memberOf,
        lastLogin: null,
        inactive,
        _meta: { created: now, updated: now },
      };
      let account: Account;
      try {
        account = (await this.store.collection("accounts").insertOne(doc)) as Account;
      } catch (err) {
        if (err instanceof DuplicateKeyError) throw new ConflictError(`Account '${username}' already exists`);
        throw err;
      }
      await this.store.collection("account_credentials").insertOne({ _id: account._id, hash, updated: now });
      return account;
    },

    async setPassword(ctx) {
      const account = await this.store.collection("accounts").findOne({ username: ctx.params.username });
      if (!account) throw new NotFoundError("Account", ctx.params.username);
      await this.storePassword(account._id, ctx.params.password);
      await this.revokeSessions({ accountId: account._id });
      return { status: "OK", message: `Password of '${ctx.params.username}' set; its sessions ended` };
    },

    async changePassword(ctx) {
      const caller = this.requireCaller(ctx.meta);
      const credentials = await this.store
        .collection("account_credentials")
        .findOne({ _id: caller.accountId });
      if (!credentials || !(await verifyPassword(ctx.params.currentPassword, credentials.hash))) {
        throw new BadRequestError("Current password is wrong", [
          { field: "currentPassword", message: "Current password is wrong", type: "password" },
        ]);
      }
      await this.storePassword(caller.accountId, ctx.params.newPassword);
      await this.revokeSessions({ accountId: caller.accountId, _id: { $ne: caller.sessionId ?? "" } });
      return { status: "OK", message: "Password changed; your other sessions ended" };
    },

    async createGroup(ctx) {
      const { name, description = "", memberOf = [], assignedRoles = [], inactive = false } = ctx.params;
      const parents = await this.groupsByNameOrId(memberOf, "memberOf");
      const now = nowIso();
      const group: Group = {
        _id: randomUUID(),
        provenance: "local",
        name,
        description,
        memberOf: parents.map((g: Group) => g.name),
        assignedRoles: [...new Set(assignedRoles)],
        inactive,
        _meta: { created: now, updated: now },
      };
      try {
        return (await this.store.collection("groups").insertOne(group)) as Group;
      } catch (err) {
        if (err instanceof DuplicateKeyError) throw new ConflictError(`Group '${name}' already exists`);
        throw err;
      }
    },

    async listGroups() {
      return (await this.store.collection("groups").find({}, { sort: { name: 1 } })) as Group[];
    },
  }),

  methods: {
    ttlMs(this: ServiceThis): number {
      return configOf(this.broker).sessionTtlSeconds * 1000;
    },

    requireCaller(this: ServiceThis, meta: PlatformMeta): Caller {
      if (!meta.caller) throw new UnauthorizedError();
      return meta.caller;
    },

    async callerOf(this: ServiceThis, accountId: string): Promise<Caller> {
      const account = await this.store.collection("accounts").findOne({ _id: accountId });
      if (!account || account.inactive) throw new UnauthorizedError("Account is inactive or gone");
      const groups = (await this.store.collection("groups").find({})) as Group[];
      const { groupIds, roles } = resolveGroups(
        (account.memberOf ?? []).map((m: { groupId: string }) => m.groupId),
        groups,
      );
      return { accountId, username: account.username, roles, groupIds };
    },

    /** Groups named by name or id; an unknown one is a 400 on `field`. */
    async groupsByNameOrId(this: ServiceThis, refs: string[], field: string): Promise<Group[]> {
      if (refs.length === 0) return [];
      const found = (await this.store
        .collection("groups")
        .find({ $or: [{ name: { $in: refs } }, { _id: { $in: refs } }] })) as Group[];
      const missing = refs.filter((r) => !found.some((g: Group) => g.name === r || g._id === r));
      if (missing.length > 0) {
        throw new BadRequestError(
          `Unknown group(s): ${missing.join(", ")}`,
          missing.map((m) => ({ field, message: `Unknown group '${m}'`, type: "unknownGroup" })),
        );
      }
      return found;
    },

    async storePassword(this: ServiceThis, accountId: string, password: string): Promise<void> {
      const hash = await hashPassword(password);
      await this.store
        .collection("account_credentials")
        .updateOne({ _id: accountId }, { $set: { hash, updated: nowIso() } }, { upsert: true });
      await this.store
        .collection("accounts")
        .updateOne({ _id: accountId }, { $set: { "_meta.updated": nowIso() } });
    },

    /** Deletes the matching sessions and tells every gateway to forget them now. */
    async revokeSessions(this: ServiceThis, filter: Record<string, unknown>): Promise<void> {
      const sessions = this.store.collection<Session>("sessions");
      const ids = (await sessions.find(filter, { projection: { _id: 1 } })).map((s) => s._id);
      if (ids.length === 0) return;
      await sessions.deleteMany({ _id: { $in: ids } });
      this.broker.broadcast(SESSIONS_REVOKED_EVENT, { sessionIds: ids });
    },

    /** The active profile's settings, when the profiles service runs; defaults otherwise. */
    async activeProfile(this: ServiceThis, ctx: any): Promise<Record<string, any> | null> {
      if (!isActionAvailable(this.broker, "profiles.active")) return null;
      try {
        return await ctx.call("profiles.active", {}, { timeout: 2000 });
      } catch {
        return null;
      }
    },

    async ensureIndexes(this: ServiceThis, store: Store): Promise<void> {
      await store.collection("accounts").createIndex({ keys: { username: 1 }, unique: true });
      await store.collection("groups").createIndex({ keys: { name: 1 }, unique: true });
      await store.collection("sessions").createIndex({ keys: { accountId: 1 } });
      await store.collection("sessions").createIndex({ keys: { expiresAt: 1 } });
    },
  },

  async started() {
    await this.ensureIndexes(this.store);
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
};

export default AccountsService;
