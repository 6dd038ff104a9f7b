/**
 * Collection `config_nodes`: the nodes of every version of every golden config tree, one per
 * (tree, version, slash path under `base`): { _id, treeId, version, path, spec, variables, devices,
 * created, lastUpdated }. `spec` is stored as checked (spec-model.ts), so it is read back typed.
 */
import type { TreeNode } from "../../shared/contracts/configuration";
import { index, Repository } from "../../shared/store/repository";
import type { SpecLine } from "./spec-model";

export type StoredNode = Omit<TreeNode, "spec"> & { spec: SpecLine[] };
export type NewNode = Omit<StoredNode, "_id">;
/** What a node's PUT sets: the members the request names. */
export type NodeChanges = Partial<Pick<StoredNode, "spec" | "variables" | "devices">> & {
  lastUpdated: string;
};

export class NodesRepository extends Repository<StoredNode> {
  readonly collectionName = "config_nodes";
  /** One node per path per version; serves every read, which is by tree and version (and path). */
  readonly indexes = [index({ treeId: 1, version: 1, path: 1 }, { unique: true })];

  create(node: NewNode): Promise<StoredNode> {
    return this.docs.insertOne({ _id: this.newId(), ...node });
  }

  /** Stores many nodes at once (a new version's clones, an import's nodes). */
  async createAll(nodes: NewNode[]): Promise<void> {
    if (nodes.length > 0) await this.docs.insertMany(nodes.map((n) => ({ _id: this.newId(), ...n })));
  }

  /** Every node of a tree, by path: its version, path and devices only (a tree's read answers them). */
  outlineOfTree(treeId: string): Promise<Pick<StoredNode, "_id" | "version" | "path" | "devices">[]> {
    return this.docs.find({ treeId }, { sort: { path: 1 }, projection: { version: 1, path: 1, devices: 1 } });
  }

  /** Every node of a tree in full, by version then path (an export). */
  allOfTree(treeId: string): Promise<StoredNode[]> {
    return this.docs.find({ treeId }, { sort: { version: 1, path: 1 } });
  }

  /** Every node of a version in full (a new version clones them). */
  allOfVersion(treeId: string, version: string): Promise<StoredNode[]> {
    return this.docs.find({ treeId, version });
  }

  /** The devices assigned in a tree (one version, or every version). */
  async devicesOfTree(treeId: string, version?: string): Promise<string[]> {
    const nodes = await this.docs.find(
      { treeId, ...(version && { version }) },
      { projection: { devices: 1 } },
    );
    return [...new Set(nodes.flatMap((n) => n.devices))];
  }

  /** Each node's path and devices in a version, by path (a batch's targets). */
  assignments(treeId: string, version: string): Promise<Pick<StoredNode, "_id" | "path" | "devices">[]> {
    return this.docs.find({ treeId, version }, { projection: { path: 1, devices: 1 }, sort: { path: 1 } });
  }

  async exists(treeId: string, version: string, path: string): Promise<boolean> {
    return (await this.docs.findOne({ treeId, version, path }, { projection: { _id: 1 } })) !== null;
  }

  countOfVersion(treeId: string, version: string): Promise<number> {
    return this.docs.count({ treeId, version });
  }

  /** The nodes at `paths` in a version (`readOnly`: the caller changes nothing, so no copies need be made). */
  atPaths(treeId: string, version: string, paths: string[], readOnly = false): Promise<StoredNode[]> {
    return this.docs.find({ treeId, version, path: { $in: paths } }, { readOnly });
  }

  /**
   * Creates or changes the node in one upsert on its unique key: what `changes` sets, and for a new
   * node the rest of an empty node. Two writers leave one node. The answer is read-only (frozen on
   * the embedded store): the caller hands it on as it is.
   */
  async put(treeId: string, version: string, path: string, changes: NodeChanges): Promise<StoredNode> {
    const onInsert: Partial<StoredNode> = { created: changes.lastUpdated };
    if (!changes.spec) onInsert.spec = [];
    if (!changes.variables) onInsert.variables = {};
    if (!changes.devices) onInsert.devices = [];
    const node = await this.docs.findOneAndUpdate(
      { treeId, version, path },
      { $set: changes, $setOnInsert: onInsert },
      { upsert: true, readOnly: true },
    );
    // An upsert answering "after" always has a document.
    return node!;
  }

  /** Deletes the node at `path` and every node under it; false when there was none at `path`. */
  async removeWithDescendants(treeId: string, version: string, path: string): Promise<boolean> {
    if (!(await this.docs.findOneAndDelete({ treeId, version, path }))) return false;
    const nodes = await this.docs.find({ treeId, version }, { projection: { path: 1 } });
    const under = nodes.filter((n) => n.path.startsWith(`${path}/`)).map((n) => n._id);
    if (under.length > 0) await this.docs.deleteMany({ _id: { $in: under } });
    return true;
  }

  /** A version's nodes (a half-made version undone). */
  async removeVersion(treeId: string, version: string): Promise<void> {
    await this.docs.deleteMany({ treeId, version });
  }

  /** A deleted tree's nodes. */
  async removeTree(treeId: string): Promise<void> {
    await this.docs.deleteMany({ treeId });
  }
}
