/**
 * Collection `groups`: groups of accounts, each granting its `assignedRoles` to its members and to
 * the groups whose `memberOf` names it (by name). `_rev` is a hidden revision the compare-and-set
 * update turns on (./group-lifecycle.ts); answers never show it.
 */
import { randomUUID } from "node:crypto";
import type { Group } from "../../shared/contracts/resources";
import { index, Repository } from "../../shared/store/repository";
import type { Filter, Sort } from "../../shared/store/types";

export type StoredGroup = Group & { _rev?: number };

/** What a group's update may change. */
export type GroupChanges = Partial<Pick<Group, "description" | "inactive" | "memberOf" | "assignedRoles">>;

/** The hidden revision never leaves the service. */
const HIDDEN = Object.freeze({ _rev: 0 as const });

export class GroupsRepository extends Repository<StoredGroup> {
  readonly collectionName = "groups";
  readonly indexes = [index({ name: 1 }, { unique: true })];

  /**
   * Group ids are UUIDs, not ObjectId text: the spec's Group has them (DECISIONS.md section 4, "form
   * ids and group ids are UUIDs"), and so has every group stored so far.
   */
  override newId(): string {
    return randomUUID();
  }

  /** A new group; a taken name is a DuplicateKeyError (the unique index decides). */
  insert(group: Omit<Group, "_id">): Promise<StoredGroup> {
    return this.docs.insertOne({ ...group, _id: this.newId() });
  }

  /** Every group as answers show it, by name: the internal `accounts.listGroups`. */
  all(): Promise<Group[]> {
    return this.docs.find({}, { sort: { name: 1 }, projection: HIDDEN });
  }

  /** Every group as stored: a caller's rights follow `memberOf` across all of them. */
  allForRights(): Promise<Group[]> {
    return this.docs.find({});
  }

  /** A page of groups: `filter` and `sort` from ./query.ts (allow-listed fields). */
  async page(
    filter: Filter,
    sort: Sort,
    skip: number,
    limit: number,
  ): Promise<{ results: Group[]; total: number }> {
    return this.findPage(filter, { sort, skip, limit, projection: HIDDEN });
  }

  /** A group by its id or its name, with its revision. */
  byIdOrName(ref: string): Promise<StoredGroup | null> {
    return this.docs.findOne({ $or: [{ _id: ref }, { name: ref }] });
  }

  byName(name: string): Promise<StoredGroup | null> {
    return this.docs.findOne({ name });
  }

  /** The groups named by name or id (unknown ones are simply not there). */
  byNamesOrIds(refs: string[]): Promise<StoredGroup[]> {
    return this.docs.find({ $or: [{ name: { $in: refs } }, { _id: { $in: refs } }] });
  }

  /** The ids and names of these groups (those that exist). */
  namesOf(ids: string[]): Promise<Pick<Group, "_id" | "name">[]> {
    return this.docs.find({ _id: { $in: ids } }, { projection: { _id: 1, name: 1 } });
  }

  /** Which of these ids are groups. */
  async existing(ids: string[]): Promise<Set<string>> {
    const found = await this.docs.find({ _id: { $in: ids } }, { projection: { _id: 1 } });
    return new Set(found.map((g) => g._id));
  }

  async exists(id: string): Promise<boolean> {
    return (await this.docs.findOne({ _id: id }, { projection: { _id: 1 } })) !== null;
  }

  /**
   * Compare-and-set on the hidden revision: writes `set` only if the group is still at `rev`
   * (undefined: never revised). Null when it changed meanwhile (or is gone): the caller reads again.
   */
  updateAtRevision(
    id: string,
    rev: number | undefined,
    set: GroupChanges,
    at: string,
    by: string,
  ): Promise<Group | null> {
    return this.docs.findOneAndUpdate(
      { _id: id, _rev: rev ?? { $exists: false } },
      { $set: { ...set, "_meta.updated": at, last_updated_by: by }, $inc: { _rev: 1 } },
      { projection: HIDDEN },
    );
  }

  /** The deleted group, or null when there was none. */
  remove(id: string): Promise<StoredGroup | null> {
    return this.docs.findOneAndDelete({ _id: id });
  }

  /** A deleted group leaves every group that inherited from it (by name); answers how many. */
  async dropParent(name: string, at: string, by: string): Promise<number> {
    const changed = await this.docs.updateMany(
      { memberOf: name },
      { $pull: { memberOf: name }, $set: { "_meta.updated": at, last_updated_by: by }, $inc: { _rev: 1 } },
    );
    return changed.modifiedCount;
  }

  /** A deleted custom role leaves every group that had it. */
  dropRole(name: string): Promise<unknown> {
    return this.docs.updateMany({ assignedRoles: name }, { $pull: { assignedRoles: name } });
  }
}
