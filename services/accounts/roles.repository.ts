/**
 * Collection `roles`: the custom roles (./custom-roles.ts), unique by name. The built-in roles are
 * not stored: they follow from the contracts.
 */
import type { CustomRole } from "../../shared/contracts/resources";
import { index, Repository } from "../../shared/store/repository";

/** What an update of a custom role may change. */
export type RoleChanges = Partial<Pick<CustomRole, "description" | "allowedMethods" | "allowedViews">>;

export class RolesRepository extends Repository<CustomRole> {
  readonly collectionName = "roles";
  /** One per name; also serves the list (by name) and the lookups by name. */
  readonly indexes = [index({ name: 1 }, { unique: true })];

  /** A new custom role; a taken name is a DuplicateKeyError (the unique index decides). */
  insert(role: Omit<CustomRole, "_id">): Promise<CustomRole> {
    // newId(): 24-hex, the form custom role ids always had (they were 12 random bytes in hex).
    return this.docs.insertOne({ ...role, _id: this.newId() });
  }

  byId(id: string): Promise<CustomRole | null> {
    return this.docs.findOne({ _id: id });
  }

  /** A page of custom roles by name. */
  page(skip: number, limit: number): Promise<CustomRole[]> {
    return this.docs.find({}, { sort: { name: 1 }, skip, limit });
  }

  count(): Promise<number> {
    return this.docs.count({});
  }

  /** The names among these that are custom roles. */
  async existingNames(names: string[]): Promise<Set<string>> {
    const found = await this.docs.find({ name: { $in: names } }, { projection: { name: 1 } });
    return new Set(found.map((r) => r.name));
  }

  /** The names of the custom roles with these ids, by id. */
  async namesById(ids: string[]): Promise<Map<string, string>> {
    const found = await this.docs.find({ _id: { $in: ids } }, { projection: { name: 1 } });
    return new Map(found.map((r) => [r._id, r.name]));
  }

  /** The methods the custom roles of these names allow. */
  async allowedMethodsOf(names: string[]): Promise<CustomRole["allowedMethods"]> {
    const found = await this.docs.find({ name: { $in: names } }, { projection: { allowedMethods: 1 } });
    return found.flatMap((r) => r.allowedMethods ?? []);
  }

  /** The role as changed, or null when there is none. */
  update(id: string, changes: RoleChanges, at: string): Promise<CustomRole | null> {
    return this.docs.findOneAndUpdate({ _id: id }, { $set: { ...changes, "_meta.updated": at } });
  }

  /** The deleted role, or null when there was none. */
  remove(id: string): Promise<CustomRole | null> {
    return this.docs.findOneAndDelete({ _id: id });
  }
}
