/**
 * Collection `config_trees`: the golden config trees, one per name:
 * { _id, name (unique), deviceType, parser, description, versions (the first `initial`), created,
 * lastUpdated }. A tree's nodes are in `config_nodes` (./nodes.repository.ts).
 */
import type { GoldenConfigTree } from "../../shared/contracts/configuration";
import { index, Repository } from "../../shared/store/repository";

export type StoredTree = GoldenConfigTree;

export class TreesRepository extends Repository<StoredTree> {
  readonly collectionName = "config_trees";
  readonly indexes = [
    // One tree per name: a taken name is a DuplicateKeyError from the insert itself.
    index({ name: 1 }, { unique: true }),
    // A parser's delete: does a tree use it?
    index({ parser: 1 }),
  ];

  /** Stores a new tree; a taken name throws DuplicateKeyError. */
  create(fields: Omit<StoredTree, "_id">): Promise<StoredTree> {
    return this.docs.insertOne({ _id: this.newId(), ...fields });
  }

  byId(id: string): Promise<StoredTree | null> {
    return this.docs.findOne({ _id: id });
  }

  /** A page of trees by name; read-only: handed on as the answer, never changed. */
  pageByName(skip: number, limit: number): Promise<StoredTree[]> {
    return this.docs.find({}, { sort: { name: 1 }, skip, limit, readOnly: true });
  }

  count(): Promise<number> {
    return this.docs.count({});
  }

  /** A tree that reads with `parser`, if any. */
  usingParser(parser: string): Promise<StoredTree | null> {
    return this.docs.findOne({ parser });
  }

  /**
   * Adds `version` to the tree's versions by compare-and-set: one write that matches only while the
   * tree lacks it, so two creates of one version leave one. Null when the tree is gone or has it.
   */
  addVersion(id: string, version: string, now: string): Promise<StoredTree | null> {
    return this.docs.findOneAndUpdate(
      { _id: id, versions: { $ne: version } },
      { $push: { versions: version }, $set: { lastUpdated: now } },
    );
  }

  /** Takes a half-made version back out (its nodes could not be written). */
  async removeVersion(id: string, version: string): Promise<void> {
    await this.docs.updateOne({ _id: id }, { $pull: { versions: version } });
  }

  /** Notes that the tree's content (a node) changed. */
  async touch(id: string, now: string): Promise<void> {
    await this.docs.updateOne({ _id: id }, { $set: { lastUpdated: now } });
  }

  /** Deletes the tree and answers it, in one write; null when there was none. */
  removeById(id: string): Promise<StoredTree | null> {
    return this.docs.findOneAndDelete({ _id: id });
  }
}
