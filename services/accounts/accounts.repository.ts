/**
 * Collection `accounts`: the people who sign in (spec operation 4). Never a password: the hashes
 * live in `account_credentials` (./credentials.repository.ts). `_rev` is a hidden revision the
 * compare-and-set writes turn on (./lifecycle.ts); the projection below keeps it out of answers.
 */
import type { Account } from "../../shared/contracts/resources";
import { index, Repository } from "../../shared/store/repository";
import type { Filter, Projection, Sort } from "../../shared/store/types";

export type StoredAccount = Account & { _rev?: number };

/** An account as a create writes it (its id comes from the repository). */
export type NewAccount = Omit<StoredAccount, "_id">;

/** What an account's update may change. */
export type AccountChanges = Partial<
  Pick<Account, "inactive" | "email" | "firstname" | "assignedRoles" | "memberOf">
>;

const ACCOUNT_FIELDS = [
  "_id",
  "provenance",
  "username",
  "firstname",
  "memberOf",
  "assignedRoles",
  "lastLogin",
  "inactive",
  "email",
  "_meta",
  "last_updated_by",
];
/** An account as answers show it (no `_rev`). Frozen: the embedded store compiles a frozen projection once. */
const accountProjection: Projection = Object.freeze(
  Object.fromEntries(ACCOUNT_FIELDS.map((f) => [f, 1 as const])),
);

export class AccountsRepository extends Repository<StoredAccount> {
  readonly collectionName = "accounts";
  readonly indexes = [
    index({ username: 1 }, { unique: true }),
    // Operation 4's list: each field it may filter or sort on (ACCOUNT_QUERY_FIELDS, ..._SORT_FIELDS).
    index({ firstname: 1, _id: 1 }),
    index({ provenance: 1, _id: 1 }),
    // A group's members (the list by groupId, a group's delete).
    index({ "memberOf.groupId": 1 }),
    // A custom role's delete.
    index({ assignedRoles: 1 }),
  ];

  /** A new account; a taken username is a DuplicateKeyError (the unique index decides, so two creates cannot both win). */
  insert(account: NewAccount): Promise<StoredAccount> {
    return this.docs.insertOne({ ...account, _id: this.newId() });
  }

  byId(id: string): Promise<StoredAccount | null> {
    return this.docs.findOne({ _id: id });
  }

  byUsername(username: string): Promise<StoredAccount | null> {
    return this.docs.findOne({ username });
  }

  /** An account as answers show it. */
  shownById(id: string): Promise<Account | null> {
    return this.docs.findOne({ _id: id }, { projection: accountProjection });
  }

  /** Operation 4's page: `filter` and `sort` from ./query.ts (allow-listed fields). */
  async page(
    filter: Filter,
    sort: Sort,
    skip: number,
    limit: number,
  ): Promise<{ results: Account[]; total: number }> {
    // Read-only: the page goes out as it is, so the store need not copy it.
    return this.findPage(filter, { sort, skip, limit, projection: accountProjection, readOnly: true });
  }

  /** The accounts named by id or username: their ids and usernames. */
  refsByIdOrUsername(refs: string[]): Promise<Pick<Account, "_id" | "username">[]> {
    return this.docs.find(
      { $or: [{ _id: { $in: refs } }, { username: { $in: refs } }] },
      { projection: { _id: 1, username: 1 } },
    );
  }

  noteSignIn(id: string, at: string): Promise<unknown> {
    return this.docs.updateOne({ _id: id }, { $set: { lastLogin: at } });
  }

  /** Marks a change that lives elsewhere (its password). */
  touch(id: string, at: string): Promise<unknown> {
    return this.docs.updateOne({ _id: id }, { $set: { "_meta.updated": at } });
  }

  /**
   * Compare-and-set on the hidden revision: writes `set` only if the account is still at `rev`
   * (undefined: never revised). Null when it changed meanwhile (or is gone): the caller reads again.
   */
  updateAtRevision(
    id: string,
    rev: number | undefined,
    set: AccountChanges,
    at: string,
    by: string,
  ): Promise<Account | null> {
    return this.docs.findOneAndUpdate(
      { _id: id, _rev: rev ?? { $exists: false } },
      { $set: { ...set, "_meta.updated": at, last_updated_by: by }, $inc: { _rev: 1 } },
      { projection: accountProjection },
    );
  }

  /** Takes groups that no longer exist out of one account's `memberOf`. */
  dropGroups(id: string, groupIds: string[]): Promise<unknown> {
    return this.docs.updateOne(
      { _id: id },
      { $pull: { memberOf: { groupId: { $in: groupIds } } }, $inc: { _rev: 1 } },
    );
  }

  /**
   * The accounts join the group, each in one atomic write filtered on "not a member yet": two
   * callers changing the same account's groups at once both take effect, and a repeat adds nothing.
   * Answers how many joined.
   */
  async joinGroup(ids: string[], groupId: string, at: string, by: string): Promise<number> {
    const changed = await this.docs.updateMany(
      { _id: { $in: ids }, "memberOf.groupId": { $ne: groupId } },
      {
        $push: { memberOf: { groupId, aaaManaged: true } },
        $set: { "_meta.updated": at, last_updated_by: by },
        $inc: { _rev: 1 },
      },
    );
    return changed.modifiedCount;
  }

  /** One account leaves the group in one atomic $pull; false when it was no member. */
  async leaveGroup(id: string, groupId: string, at: string, by: string): Promise<boolean> {
    const changed = await this.docs.updateOne(
      { _id: id, "memberOf.groupId": groupId },
      {
        $pull: { memberOf: { groupId } },
        $set: { "_meta.updated": at, last_updated_by: by },
        $inc: { _rev: 1 },
      },
    );
    return changed.matchedCount > 0;
  }

  /** Takes back the joins of a group deleted while they were written (no audit: they never took effect). */
  undoJoins(groupId: string): Promise<unknown> {
    return this.docs.updateMany({ "memberOf.groupId": groupId }, { $pull: { memberOf: { groupId } } });
  }

  /** A deleted group leaves every account; answers how many it left. */
  async leaveDeletedGroup(groupId: string, at: string): Promise<number> {
    const changed = await this.docs.updateMany(
      { "memberOf.groupId": groupId },
      { $pull: { memberOf: { groupId } }, $set: { "_meta.updated": at }, $inc: { _rev: 1 } },
    );
    return changed.modifiedCount;
  }

  /** A deleted custom role leaves every account that had it. */
  dropRole(name: string): Promise<unknown> {
    return this.docs.updateMany({ assignedRoles: name }, { $pull: { assignedRoles: name } });
  }

  /** The deleted account, or null when there was none. */
  remove(id: string): Promise<StoredAccount | null> {
    return this.docs.findOneAndDelete({ _id: id });
  }
}
